"""How much work the exact engine takes on before it refuses (no heavy imports,
so the command line can name the error without loading the engine)."""

from __future__ import annotations

from slotmath.errors import EngineTooLarge as EngineTooLarge
from slotmath.errors import GameFileError

#: a reel step of the line distribution (:mod:`slotmath.engine.linesets`):
#: about 3 minutes on one core at :data:`LINE_SET_STEPS_PER_SECOND`
MAX_LINE_STEPS = 10**10
#: symbol tuples of a line game's pay tensor (every S**R tuple of S symbols on R
#: reels holds a win, an entry and a multiplier, 3 x 8 bytes: 2.4 GB at the bound)
MAX_PAY_TUPLES = 10**8
PAY_TUPLE_BYTES = 24
LINE_STEPS_PER_SECOND = 1e8  # measured on video20 and its stress variants (one core)
#: line-set steps (a live line by a stop class, or a state by a move) per second on
#: one core, measured on the 5x4 and 6x5 random-strip games of ``benchmarks/stress_games.py``
LINE_SET_STEPS_PER_SECOND = 5e7
#: values of the sum of a way's added drawn wild multipliers the ways state
#: carries as one digit (:func:`slotmath.engine.ways.compile_ways`, ``summed`` kinds)
MAX_WAY_SUMS = 1024
#: every weighted draw of the compiled samplers is exactly uniform below this total
#: weight or denominator (62 random bits); the schema's reel weights stay below it
#: (stop weights up to 2**32, at most 250,000 values a file) and ``validate``
#: refuses landing probabilities whose denominator reaches it
MAX_DRAW = 2**62


def check_step_cost(game, reel: int, n_states: int, n_classes: int, width: int, limit: int, **words) -> None:
    """Raise :class:`EngineTooLarge` (with the estimated time) when the step
    of ``reel`` (0-based) would take more than ``limit`` steps: every state x
    every stop class x ``width`` (lines, or digits of a ways state).
    ``words``: ``what`` ("distribution"), ``unit`` ("lines"), ``steps`` ("line
    steps") and ``per_second`` (:data:`LINE_STEPS_PER_SECOND`) for the message."""
    cost = n_states * n_classes * width
    if cost > limit:
        what, unit = words.get("what", "distribution"), words.get("unit", "lines")
        steps, per_second = words.get("steps", "line steps"), words.get("per_second", LINE_STEPS_PER_SECOND)
        raise EngineTooLarge(
            f"{game.name}: the exact {what} is still too large: reel {reel + 1} would "
            f"step {n_states:,} states x {n_classes} stop classes x {width} {unit} "
            f"= {cost:.2e} {steps} (about {cost / per_second:,.0f} s on one core, "
            f"more for the reels after it); simulate instead"
        )


def check_line_set_cost(
    game, reel: int, sets: int, live: int, states: int, steps: int, moves: int, limit: int
) -> None:
    """Raise :class:`EngineTooLarge` (with the estimated time) when the step
    of ``reel`` (0-based) of the line-set pass (:mod:`slotmath.engine.linesets`)
    would take more than ``limit`` line steps: ``steps`` (the ``live`` lines of
    ``sets`` distinct line sets x the stop classes on their rows) plus
    ``moves`` (at most, for ``states`` states)."""
    cost = steps + moves
    if cost > limit:
        raise EngineTooLarge(
            f"{game.name}: the exact distribution is still too large: reel {reel + 1} would "
            f"step {sets:,} line sets ({live:,} live lines) by {steps:,} class steps and make up to "
            f"{moves:,} moves of {states:,} states = {cost:.2e} line steps "
            f"(about {cost / LINE_SET_STEPS_PER_SECOND:,.0f} s on one core, more for the reels after it); "
            "simulate instead"
        )


def check_pay_tuples(game) -> None:
    """Refuse a line game whose pay tensor (``S**R`` symbol tuples, see
    :func:`slotmath.engine.lines.pay_tensor`) would pass
    :data:`MAX_PAY_TUPLES`: one line naming the file, the field and the
    estimate, before any memory is taken (``validate`` and ``par`` call it)."""
    S, R = len(game.symbols), game.reels
    tuples = S**R
    if tuples > MAX_PAY_TUPLES:
        raise GameFileError(
            game.source,
            "symbols",
            f"the line pay table of {S} symbols on {R} reels has {S}**{R} = {tuples:.3g} symbol tuples "
            f"(about {tuples * PAY_TUPLE_BYTES / 1e9:,.0f} GB), above the bound {MAX_PAY_TUPLES:.0e}; "
            "declare fewer symbols or reels, or pay by ways",
        )
