"""Tune a selection's choice values: cash ``prize`` [x total bet] and ``wheel`` spins.

A designer sets the values of ``options.selection.choices`` (docs/features.md,
"Selection"); the choices' weights (``policy: player``) model the players and
are tuned by the table tuner (:mod:`slotmath.tuning.tabletune`).  Here each
named choice's numeric ``prize`` is one variable, named
``options.selection.choices.NAME.prize`` (``options.selection.choices``: every
choice whose prize is a number), and its whole ``wheel`` spins
(``...NAME.wheel``, at least 1: ``d RTP / d spins_i = P x q_i x E[one spin]``).
A choice's ``free_games`` count is not tuned (under ``max_games`` its mean is
not linear in the count).

**Exact model.**  With ``policy: player`` or ``uniform`` the choice
probabilities ``q_i`` do not depend on the values, and a prize is paid once
per choice taken, so the RTP is exactly affine in the prizes::

    d RTP / d prize_i = P x q_i

``P`` [per round] the rate of selection starts (in free games times their
multiplier): ``P`` is the exact RTP change when every choice's prize rises by
1 (``sum q_i = 1``), one exact evaluation; ``q_i`` the policy's
(:func:`slotmath.features.prizes.policy_probabilities`).  With ``max_rtp`` the
RTP is a max of affine functions: refused.  A round cap makes it no affine
function: refused.

**Grid and limits.**  A prize stays a multiple of ``step`` [x total bet]
(default 1/100 of the total bet, a cent at a bet of one unit, or the file's
own finer decimal step so the file's value is on the grid) within a factor
``weight_factor`` of the file's value (never below 0), or ``LO:HI`` given.

**Targets.**  ``rtp``: the continuous solution moves every tuned prize by one
common factor (clipped at the limits), then the grid points around it are
searched for the least RTP error.  ``equal_values``: every choice's mean value
equal (the designer's "every choice worth the same"), the common value set by
the target RTP; each choice's mean value is exact (the RTP with only that
choice taken, :func:`choice_values`).
"""

from __future__ import annotations

import copy
import dataclasses
import itertools
import math
from dataclasses import dataclass
from fractions import Fraction

from slotmath.analysis.metrics import game_figures
from slotmath.errors import BoundsError
from slotmath.features import wheel as wheel_mod
from slotmath.features.declaration import is_number
from slotmath.features.prizes import load_line_prizes, policy_probabilities
from slotmath.io.gamewriter import write_game
from slotmath.model import Game
from slotmath.rules.result import fraction_str

__all__ = ["CHOICES", "ValueTuning", "choice_values", "prize_derivatives", "tune_values"]

CHOICES = "options.selection.choices"
DEFAULT_STEP = Fraction(1, 100)  # [x total bet]
VALUE_KEYS = ("prize", "wheel")  # a choice's values tuned
MAX_GRID_SEARCH = 12  # units searched floor/ceil jointly (2**12 points)


@dataclass(frozen=True)
class ValueUnit:
    """One tuned value: choice ``index`` and ``name``, its ``key``
    (``prize`` [x total bet] or ``wheel`` [spins]), file value ``x0``,
    limits ``lo``..``hi`` and grid ``step``."""

    index: int
    name: str
    key: str
    x0: Fraction
    lo: Fraction
    hi: Fraction
    step: Fraction

    @property
    def path(self) -> str:
        return f"{CHOICES}.{self.name}.{self.key}"


def _choices(game: Game) -> list:
    sel = game.options.get("selection")
    if not isinstance(sel, dict) or not isinstance(sel.get("choices"), list):
        raise BoundsError(f"--value: {game.name} declares no options.selection.choices")
    return sel["choices"]


def _name(c, i: int) -> str:
    return str(c.get("name", f"choice {i + 1}"))


def _file_step(x: Fraction) -> Fraction:
    """The grid step: 1/100 or the finer decimal step of the file's value."""
    step = DEFAULT_STEP
    while (x / step).denominator != 1 and step > Fraction(1, 10**9):
        step /= 10
    return step


def parse_units(game: Game, specs, weight_factor: float | None = 2.0) -> list:
    """The :class:`ValueUnit` of each ``PATH[=LO:HI]`` named (``--value``)."""
    sel = game.options.get("selection") or {}
    if sel.get("policy") == "max_rtp":
        raise BoundsError(
            f"--value: {game.name} options.selection.policy is max_rtp (the RTP is a max of affine "
            "functions of the prizes); tune with policy player or uniform"
        )
    if game.options.get("round_cap") is not None:
        raise BoundsError("--value: under options.round_cap the RTP is not affine in the prizes")
    choices = _choices(game)
    names = [_name(c, i) for i, c in enumerate(choices)]
    out: list = []
    for spec in specs:
        path, _, rng = str(spec).partition("=")
        path = path.strip()
        if path == CHOICES:
            picked = [i for i, c in enumerate(choices) if is_number(str(c.get("prize", "x")))]
            rest = "prize"
        else:
            head, _, rest = path.rpartition(".")
            if not head.startswith(CHOICES + ".") or rest not in VALUE_KEYS:
                raise BoundsError(
                    f"--value {path}: expected {CHOICES}.NAME.prize, {CHOICES}.NAME.wheel or {CHOICES} "
                    "(a choice's free_games count is not tuned)"
                )
            name = head[len(CHOICES) + 1 :]
            if name not in names:
                raise BoundsError(f"--value {path}: no choice {name!r} (choices: {', '.join(names)})")
            picked = [names.index(name)]
        for i in picked:
            c = choices[i]
            if any(u.index == i and u.key == rest for u in out):
                raise BoundsError(f"--value {path}: choice {names[i]!r} named twice")
            if rest == "wheel":
                out.append(_spins_unit(i, names[i], c, weight_factor, rng, path))
                continue
            if "prize" not in c:
                raise BoundsError(f"--value {path}: choice {names[i]!r} has no prize")
            if not is_number(str(c["prize"])):
                raise BoundsError(
                    f"--value {path}: choice {names[i]!r} pays the jackpot {c['prize']!r}, not a number"
                )
            x0 = Fraction(str(c["prize"]))
            step = _file_step(x0)
            lo, hi = _limits(x0, weight_factor, rng, path)
            lo = math.ceil(lo / step) * step
            hi = math.floor(hi / step) * step
            if lo > hi:
                raise BoundsError(f"--value {path}: no multiple of {_text(step)} within its limits")
            out.append(ValueUnit(i, names[i], "prize", x0, lo, hi, step))
    if not out:
        raise BoundsError(f"--value: {game.name} has no choice with a numeric prize")
    return out


def _spins_unit(i: int, name: str, c: dict, weight_factor, rng: str, path: str) -> ValueUnit:
    """A choice's wheel spins: whole, at least 1 (the choice keeps its wheel)."""
    spins = c.get("wheel", 0)
    if not spins:
        raise BoundsError(f"--value {path}: choice {name!r} spins no wheel")
    x0 = Fraction(int(spins))
    lo, hi = _limits(x0, weight_factor, rng, path)
    lo = max(math.ceil(min(lo, x0 - 1)) if not rng else math.ceil(lo), 1)
    hi = math.floor(max(hi, x0 + 1)) if not rng else math.floor(hi)
    return ValueUnit(i, name, "wheel", x0, Fraction(lo), Fraction(hi), Fraction(1))


def _limits(x0: Fraction, factor: float | None, rng: str, path: str) -> tuple:
    if rng:
        lo_t, sep, hi_t = rng.partition(":")
        try:
            lo, hi = Fraction(lo_t.strip()), Fraction(hi_t.strip())
        except (ValueError, ZeroDivisionError):
            raise BoundsError(f"--value {path}: expected =LO:HI with numbers, got {rng!r}") from None
        if not sep or lo < 0 or lo > hi:
            raise BoundsError(f"--value {path}: limits {rng!r} must be 0 <= LO <= HI")
        return lo, hi
    if factor is None:
        return Fraction(0), x0 * 100
    f = Fraction(str(factor))
    return x0 / f, x0 * f


def with_prizes(game: Game, prizes: dict, key: str = "prize") -> Game:
    """``game`` with choice ``i``'s ``key`` (prize [x total bet], wheel
    [spins]) set to ``prizes[i]``."""
    return with_values(game, {(i, key): x for i, x in prizes.items()})


def with_values(game: Game, values: dict) -> Game:
    """``game`` with choice ``i``'s ``key`` set to ``values[(i, key)]``."""
    options = copy.deepcopy(dict(game.options))
    for (i, key), x in values.items():
        options["selection"]["choices"][i][key] = int(x) if key == "wheel" else _text(x)
    return dataclasses.replace(game, options=options)


def _text(x: Fraction) -> str:
    """A prize on a decimal grid as the file writes it (``10.55``)."""
    d = x.denominator
    for p in (2, 5):
        while d % p == 0:
            d //= p
    if d != 1:  # no decimal: an exact fraction the reader takes as it is
        return f"{x.numerator}/{x.denominator}"
    digits = 0
    while (x * 10**digits).denominator != 1:
        digits += 1
    n = abs(x.numerator * 10**digits // x.denominator)
    whole, frac = divmod(n, 10**digits)
    return f"{'-' if x < 0 else ''}{whole}" + (f".{frac:0{digits}d}" if digits else "")


def _rtp(game: Game, level: int) -> Fraction:
    return Fraction(game_figures(game, level, "base", ("rtp",))["rtp"])


def _probabilities(game: Game) -> list:
    """The policy's choice probabilities ``q_i`` [probability] (player or uniform)."""
    spec = load_line_prizes(game).selection
    return policy_probabilities(spec.policy, spec.choices, [])


def selection_rate(game: Game, level: int) -> Fraction:
    """``P`` [per round]: the exact RTP change when every choice's prize
    rises by 1 (a jackpot's prize by a number 1 above its value)."""
    spec = load_line_prizes(game).selection
    up = {i: c.prize + 1 for i, c in enumerate(spec.choices)}
    return _rtp(with_prizes(game, up), level) - _rtp(game, level)


def prize_derivatives(game: Game, level: int) -> list:
    """``d RTP / d prize_i`` [x total bet per x total bet] of every choice,
    exact: ``P x q_i`` (:func:`selection_rate`, the policy's ``q_i``)."""
    p = selection_rate(game, level)
    return [p * q for q in _probabilities(game)]


def spin_derivatives(game: Game, level: int) -> list:
    """``d RTP / d wheel_i`` [x total bet per spin] of every choice, exact:
    ``P x q_i x E[one wheel award]``."""
    prizes = load_line_prizes(game)
    mean = wheel_mod.moments(prizes.wheel.wheel)[0] if prizes.wheel is not None else Fraction(0)
    return [d * mean for d in prize_derivatives(game, level)]


def choice_values(game: Game, level: int) -> list:
    """Each choice's exact mean value [x total bet] relative to the first's
    (``m_i - m_0``): the RTP with only choice ``i`` taken (``policy:
    player``, weight 1 on it) less that with only the first, over ``P``."""
    options = copy.deepcopy(dict(game.options))
    sel = options["selection"]
    sel["policy"] = "player"
    n = len(sel["choices"])
    rtps = []
    for i in range(n):
        for j, c in enumerate(sel["choices"]):
            c["weight"] = int(i == j)
        rtps.append(_rtp(dataclasses.replace(game, options=copy.deepcopy(options)), level))
    p = sum(prize_derivatives(game, level), Fraction(0))
    return [(r - rtps[0]) / p for r in rtps]


@dataclass
class ValueTuning:
    """The result of :func:`tune_values`: prizes before and after, the exact
    RTP before and after (of the game written), and why a target is missed."""

    game: Game
    units: list
    after: list
    level: int
    target: Fraction
    tolerance: Fraction
    rtp_before: Fraction
    rtp_after: Fraction
    derivatives: list  # d RTP / d value of each unit, exact
    equal_values: bool
    binding: list
    why: str

    @property
    def feasible(self) -> bool:
        return abs(self.rtp_after - self.target) <= self.tolerance and not self.binding and not self.why

    def tuned(self) -> Game:
        return with_values(
            self.game, {(u.index, u.key): x for u, x in zip(self.units, self.after, strict=True)}
        )

    def text(self) -> str:
        lines = [
            f"{self.game.name}: selection values (prize [x total bet], wheel [spins]) at bet {self.level}"
        ]
        lines.append("what moved:")
        for u, x, d in zip(self.units, self.after, self.derivatives, strict=True):
            lines.append(
                f"  {u.path}: {_text(u.x0)} -> {_text(x)}  (limits {_text(u.lo)}..{_text(u.hi)}, "
                f"step {_text(u.step)}; d RTP / d {u.key} = {fraction_str(d)} = {float(d):.6g})"
            )
        lines.append(
            f"RTP {float(self.rtp_before):.6%} -> {float(self.rtp_after):.6%} (exact, the tuned game; "
            f"target {float(self.target):.6%} +- {float(self.tolerance):.4%})"
        )
        if self.equal_values:
            lines.append("every choice's mean value equal (within the grid step)")
        if self.binding:
            lines.append("feasibility: infeasible; binds " + "; ".join(self.binding))
        elif self.why:
            lines.append(f"feasibility: {self.why}")
        return "\n".join(lines)

    def json(self) -> dict:
        return {
            "game": self.game.name,
            "bet": self.level,
            "targets_met": self.feasible,
            "target_rtp": float(self.target),
            "values": [
                {
                    "path": u.path,
                    "before": float(u.x0),
                    "after": float(x),
                    "lo": float(u.lo),
                    "hi": float(u.hi),
                    "step": float(u.step),
                    "d_rtp": float(d),
                }
                for u, x, d in zip(self.units, self.after, self.derivatives, strict=True)
            ],
            "rtp_before": float(self.rtp_before),
            "rtp_after": float(self.rtp_after),
            "binding": self.binding,
            "feasibility": self.why or ("infeasible" if self.binding else "met"),
        }

    def write(self, path=None, backup: bool = True):
        """Write the game with each changed value replaced in place."""
        values = {
            f"{CHOICES}.{u.index}.{u.key}": _text(x)
            for u, x in zip(self.units, self.after, strict=True)
            if x != u.x0
        }
        return write_game(self.game, {}, path, backup=backup, values=values)


def _grid_best(units, cont: list, grads: list, need: Fraction) -> list:
    """The grid point near ``cont`` of the least ``|sum g (x - x0) - need|``
    (floor/ceil of each unit; the units of the largest |g| searched jointly)."""
    order = sorted(range(len(units)), key=lambda k: -abs(grads[k]))[:MAX_GRID_SEARCH]
    base = [min(max(round(c / u.step) * u.step, u.lo), u.hi) for u, c in zip(units, cont, strict=True)]
    best, best_key = base, None
    options = []
    for k in range(len(units)):
        u, c = units[k], cont[k]
        lo_pt = min(max(math.floor(c / u.step) * u.step, u.lo), u.hi)
        hi_pt = min(max(math.ceil(c / u.step) * u.step, u.lo), u.hi)
        options.append(sorted({lo_pt, hi_pt}) if k in order else [base[k]])
    for pt in itertools.product(*options):
        err = abs(sum((g * (x - u.x0) for g, x, u in zip(grads, pt, units, strict=True)), Fraction(0)) - need)
        moved = sum(abs(x - u.x0) for x, u in zip(pt, units, strict=True))
        key = (err, moved)
        if best_key is None or key < best_key:
            best, best_key = list(pt), key
    return best


def tune_values(
    game: Game,
    target: Fraction,
    specs,
    tolerance: Fraction = Fraction(5, 100000),
    level: int | None = None,
    weight_factor: float | None = 2.0,
    equal_values: bool = False,
) -> ValueTuning:
    """Tune the selection prizes named by ``specs`` to the target RTP.

    Parameters
    ----------
    game : Game
    target : Fraction
        Target RTP [x total bet].
    specs : sequence of str
        ``options.selection.choices.NAME.prize[=LO:HI]`` or ``options.selection.choices``.
    tolerance : Fraction
        Allowed ``|RTP - target|``.
    level : int, optional
        Bet level (default the lowest).
    weight_factor : float or None
        Each prize within this factor of its file value (None: 0 to 100 x it).
    equal_values : bool
        Make every choice's mean value equal (every choice's prize tuned).

    Returns
    -------
    ValueTuning
    """
    level = game.bet(level).level
    units = parse_units(game, specs, weight_factor)
    grads = prize_derivatives(game, level)
    if not any(grads):
        raise BoundsError(
            f"--value: {game.name}'s selection never starts at bet {level} (no prize moves the RTP)"
        )
    spins = spin_derivatives(game, level) if any(u.key == "wheel" for u in units) else []
    g = [grads[u.index] if u.key == "prize" else spins[u.index] for u in units]
    r0 = _rtp(game, level)
    need = target - r0
    binding: list = []
    why = ""
    if equal_values:
        n = len(_choices(game))
        if len(units) != n or any(u.key != "prize" for u in units):
            raise BoundsError(
                "--equal-values: every choice's prize must be tuned (--value options.selection.choices)"
            )
        rel = choice_values(game, level)
        q = _probabilities(game)
        mbar = sum((qi * m for qi, m in zip(q, rel, strict=True)), Fraction(0))
        shift = need / sum(grads, Fraction(0))
        cont = [u.x0 + shift - (rel[u.index] - mbar) for u in units]
        for u, c in zip(units, cont, strict=True):
            if c < u.lo:
                binding.append(f"{u.path} below its lower limit {_text(u.lo)} (needs {float(c):.6g})")
            elif c > u.hi:
                binding.append(f"{u.path} above its upper limit {_text(u.hi)} (needs {float(c):.6g})")
        after = [min(max(round(c / u.step) * u.step, u.lo), u.hi) for u, c in zip(units, cont, strict=True)]
    else:
        reach_hi = sum(
            (gi * ((u.hi if gi > 0 else u.lo) - u.x0) for gi, u in zip(g, units, strict=True)), Fraction(0)
        )
        reach_lo = sum(
            (gi * ((u.lo if gi > 0 else u.hi) - u.x0) for gi, u in zip(g, units, strict=True)), Fraction(0)
        )
        if need > reach_hi or need < reach_lo:
            end_hi = need > reach_hi
            after = [(u.hi if (gi > 0) == end_hi else u.lo) for gi, u in zip(g, units, strict=True)]
            for u, x in zip(units, after, strict=True):
                if u.lo < u.hi or x == u.x0:
                    side = "upper" if x == u.hi else "lower"
                    binding.append(f"{u.path} at its {side} limit {_text(x)}")
        else:
            after = _solve(units, g, need)
    res = ValueTuning(game, units, after, level, target, tolerance, r0, r0, g, equal_values, binding, why)
    res.rtp_after = _rtp(res.tuned(), level)  # exact, of the game as written
    if not binding and abs(res.rtp_after - target) > tolerance:
        steps = ", ".join(_text(u.step) + (" spin" if u.key == "wheel" else "") for u in units)
        res.why = (
            f"the grid (steps {steps}) reaches "
            f"{float(res.rtp_after):.6%} nearest the target, not within the tolerance"
        )
    if binding:
        res.why = "infeasible"
    return res


def _solve(units, g: list, need: Fraction) -> list:
    """Values of least ``|sum g (x - x0) - need|`` (then least movement):
    each whole wheel-spin count at the floor or ceiling of the common-factor
    solution, the prizes solved again for what those leave
    (:func:`_common_factor`, :func:`_grid_best`)."""
    cont = _common_factor(units, g, need)
    whole = [k for k, u in enumerate(units) if u.key == "wheel"][:MAX_GRID_SEARCH]
    cash = [k for k in range(len(units)) if k not in whole]
    best, best_key = None, None
    ends = [
        sorted({_clip(units[k], math.floor(cont[k])), _clip(units[k], math.ceil(cont[k]))}) for k in whole
    ]
    for combo in itertools.product(*ends):
        x = list(cont)
        for k, v in zip(whole, combo, strict=True):
            x[k] = Fraction(v)
        left = need - sum((g[k] * (x[k] - units[k].x0) for k in whole), Fraction(0))
        if cash:
            sub, sub_g = [units[k] for k in cash], [g[k] for k in cash]
            for k, v in zip(
                cash, _grid_best(sub, _common_factor(sub, sub_g, left), sub_g, left), strict=True
            ):
                x[k] = v
        err = abs(sum((gk * (xk - u.x0) for gk, xk, u in zip(g, x, units, strict=True)), Fraction(0)) - need)
        key = (err, sum(abs(xk - u.x0) for xk, u in zip(x, units, strict=True)))
        if best_key is None or key < best_key:
            best, best_key = x, key
    return best if best is not None else [u.x0 for u in units]


def _clip(u: ValueUnit, x) -> Fraction:
    return min(max(Fraction(x), u.lo), u.hi)


def _common_factor(units, g: list, need: Fraction) -> list:
    """Prizes ``clip(x0 (1 + t))`` with the common relative move ``t`` that
    gives the RTP change ``need`` (exact; the change is piecewise linear
    and monotone in ``t``)."""

    def at(t: Fraction) -> list:
        return [min(max(u.x0 * (1 + t), u.lo), u.hi) for u in units]

    def change(t: Fraction) -> Fraction:
        return sum((gi * (x - u.x0) for gi, x, u in zip(g, at(t), units, strict=True)), Fraction(0))

    if all(u.x0 == 0 for u in units) or need == 0:  # no relative move: an equal shift
        total = sum(g, Fraction(0))
        return [min(max(u.x0 + need / total, u.lo), u.hi) for u in units] if total else [u.x0 for u in units]
    # breakpoints of the clipped lines, then the linear piece holding need
    ts = sorted({Fraction(0)} | {b / u.x0 - 1 for u in units if u.x0 for b in (u.lo, u.hi)})
    pts = [(t, change(t)) for t in ts]
    lo_t = min(ts) - 1
    hi_t = max(ts) + 1
    pts = [(lo_t, change(lo_t)), *pts, (hi_t, change(hi_t))]
    for (t1, c1), (t2, c2) in itertools.pairwise(pts):
        if min(c1, c2) <= need <= max(c1, c2):
            t = t1 if c1 == c2 else t1 + (need - c1) * (t2 - t1) / (c2 - c1)
            return at(t)
    return at(Fraction(0))
