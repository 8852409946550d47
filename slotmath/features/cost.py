"""Cost bounds of the features' exact methods, checked by ``validate``.

Each exact method's work is estimated from the declaration alone (cells,
respins, games, masks) before anything is computed, and a declaration above
the bound is refused in one line naming the field and the estimate, so that
nothing ``validate`` accepts runs for hours or out of memory in ``par``.

* A respin chain (hold-and-spin, lock-it) on ``S`` states stepped through at
  most ``spins`` respins (``countdown``) or ``spins x (cells + 1)`` (``reset``:
  every landing restarts the count, at most once per cell) does
  ``S x steps`` state updates: at most :data:`MAX_CHAIN_WORK` (float64), and
  :data:`MAX_EXACT_WORK` where the chain runs in exact Fractions.  A mask
  chain has ``2**cells`` states, at most ``2**24`` (:data:`MAX_MASK_CELLS`).
* Capped free games (``max_games`` ``G``, awards of up to ``K`` games) are
  settled over ``G`` levels of ``G`` states and ``K + 1`` moves:
  ``G**2 x (K + 1)`` at most :data:`MAX_GAMES_WORK`; with a sticky wild each
  sticky mask (at most ``2**cells``, and the method's 4,096) multiplies it.
"""

from __future__ import annotations

from fractions import Fraction
from math import gcd, lcm

from slotmath.engine.limits import MAX_DRAW
from slotmath.io.gamefile import MAX_PAY_DENOMINATOR

#: most state updates of a float64 respin chain (about a minute of numpy work)
MAX_CHAIN_WORK = 2**30
#: most state updates of a respin chain run in exact Fractions
MAX_EXACT_WORK = 2**22
#: mask chains on at most this many cells run in exact Fractions (hold-and-spin, lock-it)
EXACT_MASK_CELLS = 6
#: most cells of a window whose respins run on masks (2**cells states)
MAX_MASK_CELLS = 24
#: most (games, games left, move) updates of capped free games
MAX_GAMES_WORK = 2**30
#: most sticky masks the exact sticky-wild method visits (:mod:`slotmath.features.sticky`)
MAX_STICKY_MASKS = 4096
#: most free games one award (a trigger count, a retrigger, a selection choice,
#: a bought round) starts: the law of games played and the simulator's round
#: grow with it (the game file schema holds the same bound for ``modes.*.buy.games``)
MAX_AWARD_GAMES = 1000


def games_problem_of(games: int) -> str | None:
    """Why an award of ``games`` free games is refused (None: within the bound)."""
    if games <= MAX_AWARD_GAMES:
        return None
    return (
        f"{sci(games)} games in one award is above the bound {MAX_AWARD_GAMES:,} (the law of games "
        "played and every simulated round grow with it)"
    )


def counted(n, noun: str, plural: str | None = None) -> str:
    """``n`` and ``noun`` in words, the noun singular for exactly one: ``1
    respin``, ``3 respins``, ``1.5 games``."""
    text = str(int(n)) if n == int(n) else f"{float(n):.4g}"
    return f"{text} {noun if n == 1 else plural or noun + 's'}"


def sci(n: int) -> str:
    """A count in scientific notation, also beyond the range of a float."""
    return f"{n:,}" if n < 10**12 else f"{n:.3e}" if n < 10**300 else f"10**{len(str(n)) - 1}"


def chain_steps(spins: int, rule: str, cells: int) -> int:
    """Most respins a chain is stepped through: ``spins`` (countdown) or
    ``spins x (cells + 1)`` (reset: at most one restart per cell)."""
    return spins * (cells + 1) if rule == "reset" else spins


def chain_problem(what: str, states: int, spins: int, rule: str, cells: int, exact: bool) -> str | None:
    """Why the respin chain of ``what`` is refused (None: within the bound)."""
    steps = chain_steps(spins, rule, cells)
    work, bound = states * steps, MAX_EXACT_WORK if exact else MAX_CHAIN_WORK
    if work <= bound:
        return None
    kind = "exact Fraction" if exact else "float64"
    return (
        f"the {what}'s {kind} chain would run about {sci(work)} state updates ({states:,} states x "
        f"{sci(steps)} respins, {rule} rule), more than the bound {bound:.3e}; lower the respins or the grid"
    )


def mask_problem(what: str, cells: int) -> str | None:
    """Why a mask chain on ``cells`` cells is refused (None: it fits)."""
    if cells <= MAX_MASK_CELLS:
        return None
    return (
        f"the {what} runs on 2**{cells} = {sci(2**cells)} masks of the {cells}-cell window; "
        f"the exact method holds 2**{MAX_MASK_CELLS} at most"
    )


def games_problem(games: int, most_awarded: int, cells: int, sticky: bool = False) -> str | None:
    """Why capped free games (``games`` = max_games, awards of up to
    ``most_awarded`` games; with a ``sticky`` wild, up to ``2**cells`` masks)
    are refused (None: within the bound)."""
    masks = min(1 << cells, MAX_STICKY_MASKS) if sticky else 1
    work = masks * games * games * (most_awarded + 1)
    if work <= MAX_GAMES_WORK:
        return None
    per = f"{masks:,} sticky masks x " if masks > 1 else ""
    return (
        f"the capped free games would take about {sci(work)} updates ({per}{sci(games)}**2 game states x "
        f"{most_awarded + 1} awards), more than the bound {MAX_GAMES_WORK:.3e}; lower max_games"
    )


#: the weights of one weighted draw sum to less than this (the samplers' exact uniform draws)
MAX_DRAW_WEIGHT = MAX_DRAW
#: largest prize, jackpot, cap or multiplier of a feature [x total bet]
MAX_AMOUNT = 10**9


def lockit_problem(cells: int, spins: int, rule: str, where: str) -> tuple | None:
    """``(field, problem)`` when a lock-it's mask chain on ``cells`` cells
    stepped ``spins`` times is beyond the bounds (``where`` names the spins)."""
    problem = mask_problem("lock-it", cells)
    if problem:
        return "options.lockit", problem
    problem = chain_problem("lock-it", 1 << cells, spins, rule, cells, cells <= EXACT_MASK_CELLS)
    return (where, problem) if problem else None


def amount_problem(x: Fraction, value) -> str | None:
    """Why a prize, jackpot, cap or multiplier ``x`` (written ``value``) is
    refused: above :data:`MAX_AMOUNT`, or a denominator above 10**6 (every
    win of a round stays an exact integer of a small win unit)."""
    if abs(x) > MAX_AMOUNT:
        return f"{float(x):.4g} is above the bound {MAX_AMOUNT:.0e} [x total bet]"
    if x.denominator > MAX_PAY_DENOMINATOR:
        return (
            f"{str(value)[:40]!r} has denominator {sci(x.denominator)}, more than "
            f"{MAX_PAY_DENOMINATOR:,} (give a fraction 'p/q' with a smaller q)"
        )
    return None


def denominators_problem(values: list, whose: str) -> str | None:
    """Why prizes whose common denominator exceeds 10**6 are refused."""
    den = lcm(*(Fraction(v).denominator for v in values))
    if den <= MAX_PAY_DENOMINATOR:
        return None
    return (
        f"the prizes' common denominator is {sci(den)}, more than {MAX_PAY_DENOMINATOR:,} "
        f"({whose} wins are counted in exact units of it)"
    )


def draw_weights(weights: list) -> tuple:
    """``(weights, problem)`` of a weighted draw (a prize table, wheel
    segments): as given when they sum to less than :data:`MAX_DRAW_WEIGHT`
    (the compiled samplers' exact uniform draws), else in lowest terms
    (divided by their gcd: the same law); a problem when even those reach it."""
    if sum(weights) < MAX_DRAW_WEIGHT:
        return list(weights), None
    common = gcd(*weights) or 1
    out = [x // common for x in weights]
    if sum(out) < MAX_DRAW_WEIGHT:
        return out, None
    return out, (
        f"the weights sum to {sci(sum(out))} in lowest terms; the compiled samplers draw "
        "below 2**62 (give smaller weights: only their ratios matter)"
    )
