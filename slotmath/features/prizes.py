"""Fixed jackpots, a triggered prize wheel and a feature selection in the round of ``rules: lines``.

Declared under ``options:`` (see ``docs/features.md``):

``jackpots``
    ``{NAME: prize}`` [x total bet]; a wheel segment or a selection choice
    names one to award it.  A jackpot nothing awards is refused.
``wheel``
    ``symbol`` and ``trigger`` (at least that many anywhere in the base
    window spin the wheel ``spins`` times, default 1), weighted ``segments``
    (a prize or a jackpot name each) and an optional ``before`` super prize
    drawn before each spin (as :class:`~slotmath.features.wheel.WheelSpec`).
    Without ``symbol``/``trigger`` the wheel is spun only by a selection choice.
``selection``
    ``symbol`` and ``trigger`` start it; the player takes one of the
    ``choices`` (each a ``prize``, ``free_games`` games at ``multiplier``
    played as ``options.free_games`` declares them, and/or ``wheel`` spins);
    ``policy`` ``player`` (declared ``weight`` per choice), ``uniform`` or
    ``max_rtp`` (the choice of the highest mean).

Exact method: given the key, a wheel award is the sum of ``spins``
independent draws (mean ``spins x E[draw]``, a Fraction); a choice's value
is the sum of its independent parts (free games: the renewal mean of
:mod:`slotmath.features.freeround`); the selection's award is the mixture
of its choices' laws under the policy.  Laws are float64 probabilities on
the least common win unit.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction
from functools import cache
from math import lcm

import numpy as np

from slotmath.engine.cache import all_sets, game_cache
from slotmath.engine.distribution import WinDistribution
from slotmath.errors import EngineTooLarge, ensure
from slotmath.features import wheel as wheel_mod
from slotmath.features.declaration import Reader
from slotmath.features.infree import in_free_tables
from slotmath.features.kinds import FeatureKind
from slotmath.features.options import UNAWARDED_FREE_GAMES, load_features, plays_prizes, read_wheel
from slotmath.features.progressive import ProgressiveJackpot, jackpot_figures
from slotmath.features.reach import reach_problem
from slotmath.features.round import Feature, Trigger, convolve_probabilities, count_feature, dense_points
from slotmath.features.tunables import inline_table
from slotmath.features.wheel import WheelSpec
from slotmath.model import Game

__all__ = [
    "prize_event",
    "plays_prizes",
    "TriggeredWheel",
    "Choice",
    "ChoiceSpec",
    "LinePrizes",
    "POLICIES",
    "load_line_prizes",
    "wheel_feature",
    "selection_feature",
    "policy_probabilities",
    "PROGRESSIVE_CONVENTION",
    "progressive_component",
    "progressive_figures",
]

#: how the player's choice is made
POLICIES = ("player", "uniform", "max_rtp")


@dataclass(frozen=True)
class TriggeredWheel:
    """A prize wheel spun ``spins`` times when the base window shows at least
    ``trigger`` of ``symbol`` (both None: spun only by a selection choice);
    ``in_free_games``: a free game's window starts it too
    (:mod:`slotmath.features.infree`)."""

    wheel: WheelSpec
    symbol: str | None
    trigger: int | None
    spins: int = 1
    in_free_games: bool = False


@dataclass(frozen=True)
class Choice:
    """One choice of a selection: ``prize`` [x total bet] (``label`` its
    jackpot name or value), ``free_games`` games at ``multiplier``, ``wheel``
    spins; ``weight`` the player's (policy ``player`` only, else None)."""

    name: str
    prize: Fraction
    label: str
    free_games: int
    multiplier: Fraction | None
    wheel: int
    weight: int | None


@dataclass(frozen=True)
class ChoiceSpec:
    """A feature selection started by ``trigger`` or more ``symbol``
    (``in_free_games``: on a free game's window too)."""

    symbol: str
    trigger: int
    policy: str
    choices: tuple
    in_free_games: bool = False


@dataclass(frozen=True)
class LinePrizes:
    """The jackpots, wheel and selection a line game declares (None where absent)."""

    jackpots: dict
    wheel: TriggeredWheel | None
    selection: ChoiceSpec | None


def load_line_prizes(game: Game) -> LinePrizes:
    """Validate and return ``options.jackpots``, ``options.wheel`` and
    ``options.selection`` of a ``rules: lines`` game (errors name the field)."""
    return _load(game)


# keyed on the strips too: the checks (a feature that could never start) read them
@game_cache(all_sets, maxsize=32)
def _load(game: Game) -> LinePrizes:
    opts = game.options if isinstance(game.options, dict) else {}
    rd = Reader(game)
    declared = load_features(game)  # validates jackpots, free games, round cap
    jackpots = declared.jackpots
    wheel = _triggered_wheel(rd, opts["wheel"], jackpots) if "wheel" in opts else None
    sel = _selection(rd, opts["selection"], jackpots, declared, wheel) if "selection" in opts else None
    if wheel is not None and wheel.symbol is None and not (sel and any(c.wheel for c in sel.choices)):
        rd.fail("options.wheel", "has no symbol/trigger and no selection choice spins it")
    free = declared.free_games
    if free is not None and not free.awards and not (sel and any(c.free_games for c in sel.choices)):
        rd.fail(*UNAWARDED_FREE_GAMES)
    # a segment or value of weight 0 is never drawn: the jackpot it names would never be won
    used = {lab for lab, _, w in wheel.wheel.segments if w} if wheel else set()
    named = {lab for lab, _, _ in wheel.wheel.segments} if wheel else set()
    used |= {c.label for c in sel.choices} if sel else set()
    if "hold_and_spin" in opts:
        from slotmath.features.holdspin import load_hold_and_spin

        hs = load_hold_and_spin(game)
        ensure(hs is not None, "prizes.py: expected hs is not None")
        used |= {p.label for p in hs.values + hs.start_values if p.weight} | {hs.full_screen_label}
        named |= {p.label for p in hs.values + hs.start_values}
    for name in jackpots:
        if name not in used:
            rd.fail(
                f"options.jackpots.{name}",
                "is only on draws of weight 0: it is never won"
                if name in named
                else "is not awarded by any wheel segment, selection choice or hold-and-spin prize",
            )
    return LinePrizes(jackpots, wheel, sel)


def _trigger(rd: Reader, spec: dict, where: str, required: bool) -> tuple:
    """``(symbol, trigger count)`` of a feature started by the base window."""
    if not required and "symbol" not in spec and "trigger" not in spec:
        return None, None
    for key in ("symbol", "trigger"):
        if key not in spec:
            rd.fail(f"{where}.{key}", "is required")
    symbol = rd.symbol(spec["symbol"], f"{where}.symbol")
    count = rd.number(spec["trigger"], f"{where}.trigger", integer=True, positive=True)
    if count > rd.game.reels * rd.game.rows:
        rd.fail(f"{where}.trigger", f"{count} symbols do not fit the window")
    rd.check(
        reach_problem(rd.game, symbol, [(f"{where}.trigger", count)], where, f"the {where.split('.')[-1]}")
    )
    return symbol, count


def _triggered_wheel(rd: Reader, spec, jackpots) -> TriggeredWheel:
    w = "options.wheel"
    rd.mapping(spec, w, ("symbol", "trigger", "spins", "segments", "before", "in_free_games"), ("segments",))
    symbol, count = _trigger(rd, spec, w, required=False)
    spins = rd.number(spec.get("spins", 1), f"{w}.spins", integer=True, positive=True)
    if "spins" in spec and symbol is None:
        rd.fail(f"{w}.spins", "is given but the wheel has no trigger (a selection choice gives its spins)")
    in_free = _in_free_games(rd, spec, w)
    if in_free and symbol is None:
        rd.fail(f"{w}.in_free_games", "is true but the wheel has no symbol/trigger to start it")
    wheel = read_wheel(rd, {k: v for k, v in spec.items() if k in ("segments", "before")}, jackpots)
    return TriggeredWheel(wheel, symbol, count, spins, in_free)


def _in_free_games(rd: Reader, spec: dict, where: str) -> bool:
    """``<where>.in_free_games`` (default false), a boolean."""
    value = spec.get("in_free_games", False)
    if not isinstance(value, bool):
        rd.fail(f"{where}.in_free_games", f"must be true or false, got {str(value)[:40]!r}")
    return value


CHOICE_KEYS = ("name", "weight", "prize", "free_games", "multiplier", "wheel")


def _selection(rd: Reader, spec, jackpots, declared, wheel) -> ChoiceSpec:
    w = "options.selection"
    keys = ("symbol", "trigger", "policy", "choices")
    rd.mapping(spec, w, (*keys, "in_free_games"), keys)
    in_free = _in_free_games(rd, spec, w)
    symbol, count = _trigger(rd, spec, w, required=True)
    policy = spec["policy"]
    if policy not in POLICIES:
        rd.fail(f"{w}.policy", f"must be one of {', '.join(POLICIES)}, got {policy!r}")
    if not isinstance(spec["choices"], list) or len(spec["choices"]) < 2:
        rd.fail(f"{w}.choices", "must be a list of at least two choices")
    out: list[Choice] = []
    for i, c in enumerate(spec["choices"]):
        f = f"{w}.choices[{i}]"
        rd.mapping(c, f, CHOICE_KEYS)
        if not any(k in c for k in ("prize", "free_games", "wheel")):
            rd.fail(f, "must award a prize, free_games or wheel spins")
        prize, label = rd.prize(c.get("prize", 0), f"{f}.prize", jackpots)
        games = rd.number(c.get("free_games", 0), f"{f}.free_games", integer=True, minimum=0)
        if games and declared.free_games is None:
            rd.fail(f"{f}.free_games", "needs options.free_games (reels, retriggers) to be declared")
        if games and declared.free_games.trigger_reels is not None:
            rd.fail(f"{f}.free_games", "is not computed with a reel condition on the free games' trigger")
        if games and declared.free_games.trigger_lines is not None:
            rd.fail(f"{f}.free_games", "is not computed with a count on a payline as the free games' trigger")
        if games and "multiplier" not in c and declared.free_games.multipliers:
            rd.fail(f"{f}.multiplier", "must be given: the free games' multiplier varies by trigger count")
        mult = None
        if "multiplier" in c:
            if not games:
                rd.fail(f"{f}.multiplier", "is given but the choice awards no free_games")
            mult = rd.amount(c["multiplier"], f"{f}.multiplier", positive=True)
        elif games:
            mult = declared.free_games.multiplier
        spins = rd.number(c.get("wheel", 0), f"{f}.wheel", integer=True, minimum=0)
        if spins and wheel is None:
            rd.fail(f"{f}.wheel", "needs options.wheel to be declared")
        weight = None
        if policy == "player":
            if "weight" not in c:
                rd.fail(f"{f}.weight", "is required with policy: player")
            weight = rd.number(c["weight"], f"{f}.weight", integer=True, minimum=0)
        elif "weight" in c:
            rd.fail(f"{f}.weight", f"is used only with policy: player (policy is {policy})")
        name = str(c.get("name", f"choice {i + 1}"))
        if name in (o.name for o in out):
            rd.fail(f"{f}.name", f"choice {name!r} is listed twice")
        out.append(Choice(name, prize, label if "prize" in c else "", games, mult, spins, weight))
    if policy == "player" and sum(o.weight or 0 for o in out) == 0:
        rd.fail(f"{w}.choices", "all weights are zero")
    if in_free and any(o.free_games for o in out):
        rd.fail(
            f"{w}.in_free_games",
            "is not computed with a choice of free games (free games started inside free games)",
        )
    return ChoiceSpec(symbol, count, policy, tuple(out), in_free)


# ===========================================================================
# laws
# ===========================================================================
def _law(points: dict, den: int, total_bet: int) -> WinDistribution:
    """``{value [x total bet]: probability}`` as a float law on ``den`` units per coin."""
    pairs = [(int(v * total_bet * den), float(p)) for v, p in points.items()]
    return WinDistribution.from_pairs(pairs, den, total_bet)


def _unit(values, total_bet: int) -> int:
    """Least win units per coin on which every value [x total bet] is whole."""
    return lcm(1, *(Fraction(v * total_bet).denominator for v in values))


def _hist(law: WinDistribution, den: int) -> np.ndarray:
    step = den // law.unit_den
    return dense_points(dict(zip((law.wins * step).tolist(), law.probabilities.tolist(), strict=True)))


def _sum_of(laws: list, total_bet: int) -> WinDistribution:
    """Law of the sum of independent awards."""
    den = lcm(*(law.unit_den for law in laws))
    hist = _hist(laws[0], den)
    for law in laws[1:]:
        hist = convolve_probabilities(hist, _hist(law, den))
    return WinDistribution.from_histogram(hist, den, total_bet)


def _mixture(parts: list, total_bet: int) -> WinDistribution:
    """Law of an award that is ``law`` with probability ``q`` for ``(q, law)`` in ``parts``."""
    den = lcm(*(law.unit_den for _, law in parts))
    hists = [(float(q), _hist(law, den)) for q, law in parts if q]
    out = np.zeros(max(len(h) for _, h in hists))
    for q, h in hists:
        out[: len(h)] += q * h
    return WinDistribution.from_histogram(out, den, total_bet)


def wheel_law(wheel: WheelSpec, spins: int, total_bet: int) -> WinDistribution:
    """Law of the total of ``spins`` independent wheel awards [float64]."""
    o = wheel_mod.outcomes(wheel)
    points: dict = {}
    for _, v, p in o:
        points[v] = points.get(v, 0) + p
    one = _law(points, _unit(points, total_bet), total_bet)
    return _sum_of([one] * spins, total_bet)


def jackpot_rates(wheel: WheelSpec) -> dict:
    """``{label: P(a wheel award is it)}`` of the named outcomes (jackpots and the before prize)."""
    out: dict = {}
    named = {s[0] for s in wheel.segments if not _numeric(s[0])}
    for label, _, p in wheel_mod.outcomes(wheel):
        if p and (label in named or (label == wheel.pre_name and wheel.pre_probability)):
            out[label] = out.get(label, 0) + p
    return out


def _numeric(label: str) -> bool:
    try:
        Fraction(label)
    except (ValueError, ZeroDivisionError):
        return False
    return True


def prize_event(feature: str, jackpot: str | None = None) -> str:
    """The round sampler's event of a wheel's or selection's start
    (``wheel starts``) or of one of its jackpots (``wheel jackpot GRAND``);
    its exact rate is in the feature's ``event_rates`` [expected count per round]."""
    return f"{feature} starts" if jackpot is None else f"{feature} jackpot {jackpot}"


def _rates(rates: dict) -> dict:
    """``{jackpot: {per_round, one_in}}`` from expected awards per round."""
    inf = float("inf")
    return {k: {"per_round": float(v), "one_in": float(1 / v) if v else inf} for k, v in rates.items()}


def wheel_feature(game: Game, level: int, spec: TriggeredWheel) -> Feature:
    """The triggered wheel as a round :class:`Feature` (component ``wheel``)."""
    ensure(
        spec.symbol is not None and spec.trigger is not None,
        "prizes.py: expected spec.symbol is not None and spec.trigger is not None",
    )
    total_bet = game.bet(level).total_bet
    mean = spec.spins * wheel_mod.moments(spec.wheel)[0]

    @cache
    def law() -> WinDistribution:  # built when the distribution asks for it, not for the mean
        try:
            return wheel_law(spec.wheel, spec.spins, total_bet)
        except EngineTooLarge as e:
            if e.field != "options":  # a refusal of dense_points names no feature
                raise
            raise EngineTooLarge(e.problem, file=e.file, field="options.wheel.segments") from None

    per_spin = jackpot_rates(spec.wheel)

    def odds(key_p: dict) -> dict:
        p = sum(key_p.values(), Fraction(0))
        return {
            "trigger_probability": float(p),
            "trigger_one_in": float(1 / p) if p else float("inf"),
            "spins": spec.spins,
            "mean_award": float(mean),
            "outcomes": [
                {"outcome": label, "value": float(v), "probability": float(q)}
                for label, v, q in wheel_mod.outcomes(spec.wheel)
            ],
            "jackpots": _rates({k: p * spec.spins * q for k, q in per_spin.items()}),
            "event_rates": {prize_event("wheel"): float(p)}
            | {prize_event("wheel", k): float(p * spec.spins * q) for k, q in per_spin.items()},
        }

    return count_feature("wheel", spec.symbol, spec.trigger, mean, law, odds)


def policy_probabilities(policy: str, choices, means: list) -> list:
    """Probability [exact Fraction] that each choice is taken under ``policy``."""
    n = len(choices)
    if policy == "uniform":
        return [Fraction(1, n)] * n
    if policy == "player":
        total = sum(c.weight for c in choices)
        return [Fraction(c.weight, total) for c in choices]
    best = means.index(max(means))  # max_rtp: the first choice of the highest mean
    return [Fraction(int(i == best)) for i in range(n)]


def selection_feature(game: Game, level: int, spec: ChoiceSpec, prizes: LinePrizes) -> Feature:
    """The feature selection as a round :class:`Feature` (component ``selection``)."""
    from slotmath.features.freeround import free_games_feature_of

    total_bet = game.bet(level).total_bet
    fgs = load_features(game).free_games

    def wheel() -> WheelSpec:
        """The declared wheel (a choice with wheel spins needs one)."""
        ensure(prizes.wheel is not None, "prizes.py: expected prizes.wheel is not None")
        return prizes.wheel.wheel

    @cache
    def free_games(games: int, mult: Fraction) -> Feature:
        ensure(
            fgs is not None, "prizes.py: expected fgs is not None"
        )  # a choice with free games needs them declared
        again = fgs.retrigger_awards or fgs.awards  # none: the choice's games are not retriggered
        one = replace(
            fgs,
            multiplier=mult,
            multipliers=None,
            reels_by_count=None,  # a choice's free games play the declared reels
            awards={1: (Fraction(0), games)},
            retrigger_awards=again or None,
        )
        one = one if again else replace(one, retrigger=False)
        return free_games_feature_of(game, level, one)

    def choice_mean(c: Choice):
        m = c.prize + (free_games(c.free_games, c.multiplier).mean(1) if c.free_games else 0)
        return m + (c.wheel * wheel_mod.moments(wheel())[0] if c.wheel else 0)

    def choice_law(c: Choice) -> WinDistribution:
        laws = [_law({c.prize: 1}, _unit([c.prize], total_bet), total_bet)]
        if c.free_games:
            laws.append(free_games(c.free_games, c.multiplier).award(1))
        if c.wheel:
            laws.append(wheel_law(wheel(), c.wheel, total_bet))
        return _sum_of(laws, total_bet)

    means = [choice_mean(c) for c in spec.choices]
    probs = policy_probabilities(spec.policy, spec.choices, means)
    mean = sum((q * m for q, m in zip(probs, means, strict=True)), Fraction(0))

    @cache
    def law() -> WinDistribution:
        try:
            parts = [(q, choice_law(c)) for q, c in zip(probs, spec.choices, strict=True) if q]
            return _mixture(parts, total_bet)
        except EngineTooLarge as e:
            if e.field != "options":  # a refusal of dense_points names no feature
                raise
            raise EngineTooLarge(e.problem, file=e.file, field="options.selection.choices") from None

    def odds(key_p: dict) -> dict:
        p = sum(key_p.values(), Fraction(0))
        rates: dict = {}
        for q, c in zip(probs, spec.choices, strict=True):
            if c.label and not _numeric(c.label):
                rates[c.label] = rates.get(c.label, 0) + p * q
            for k, r in (jackpot_rates(wheel()) if c.wheel else {}).items():
                rates[k] = rates.get(k, 0) + p * q * c.wheel * r
        return {
            "trigger_probability": float(p),
            "trigger_one_in": float(1 / p) if p else float("inf"),
            "policy": spec.policy,
            "mean_award": float(mean),
            "choices": {
                c.name: {"probability": float(q), "mean_value": float(m)}
                for c, q, m in zip(spec.choices, probs, means, strict=True)
            },
            "jackpots": _rates(rates),
            "event_rates": {prize_event("selection"): float(p)}
            | {prize_event("selection", k): float(r) for k, r in rates.items()},
        }

    return Feature(
        "selection",
        Trigger(spec.symbol),
        lambda count: count >= spec.trigger,
        lambda count: mean,
        lambda count: law(),
        lambda count: True,
        odds,
    )


# ===========================================================================
# progressive jackpots
# ===========================================================================
#: how a game file's progressive jackpot enters the RTP
PROGRESSIVE_CONVENTION = (
    "renewal-reward in units of the total bet: with h the expected hits per round, the meter "
    "at a win has mean reset + contribution / h, so the jackpot returns h x E[J] = contribution "
    "+ h x reset per round (contribution_rtp + seed_rtp); the round's coin win (hit frequency, "
    "SD, distribution, sampler) counts the jackpot as 0"
)


def progressive_component(spec: ProgressiveJackpot, rate) -> Fraction:
    """Long-run return of ``spec`` [x total bet] at ``rate`` expected hits per
    round: ``contribution + rate x reset`` (:meth:`~slotmath.features.progressive.Progressive.rtp`
    at a bet of 1); exact when ``rate`` is a Fraction."""
    return spec.funding.rtp(rate, 1)


def progressive_figures(spec: ProgressiveJackpot, rate) -> dict:
    """JSON-ready figures of ``spec`` at ``rate`` expected hits per round
    (> 0): the declaration, the hit rate (exact ``p/q`` when a Fraction), the
    RTP parts and, under ``reference``, the renewal-reward figures of
    :func:`~slotmath.features.progressive.jackpot_figures` at a bet of 1
    (money in x total bet; a round is one spin).  ``expected_first_jackpot``
    is the mean of the first win after start-up, ``seed + contribution / rate``."""
    rtp = progressive_component(spec, rate)
    exact = isinstance(rate, Fraction)
    return {
        "name": spec.name,
        "convention": PROGRESSIVE_CONVENTION,
        "seed": float(spec.seed),
        "contribution": float(spec.contribution),
        "reset": float(spec.reset),
        "hit_probability": float(rate),
        "hit_probability_exact": f"{rate.numerator}/{rate.denominator}" if exact else None,
        "one_in": float(1 / rate),
        "expected_first_jackpot": float(spec.seed + spec.contribution / rate),
        "rtp": float(rtp),
        "rtp_exact": f"{rtp.numerator}/{rtp.denominator}" if isinstance(rtp, Fraction) else None,
        "reference": jackpot_figures(spec.funding, rate, 1),
    }


# ---------------------------------------------------------------------------
# PAR tables (the feature objects' ``tables``)
# ---------------------------------------------------------------------------
def wheel_tables(game: Game, wheel: dict, rtp: float) -> dict:
    """Wheel: every segment's value and odds per spin."""
    import pandas as pd

    from slotmath.features.sheetrows import jackpot_values, one_in, start_and_jackpot_tables

    rows = [
        {
            "segment": o["outcome"],
            "value [x total bet]": o["value"],
            "probability per spin": o["probability"],
            "odds [1 in N spins of the wheel]": one_in(o["probability"]),
        }
        for o in wheel["outcomes"]
    ]
    values = jackpot_values(game) | {o["outcome"]: o["value"] for o in wheel["outcomes"]}
    return {"Wheel (one spin)": pd.DataFrame(rows), **start_and_jackpot_tables("Wheel", wheel, rtp, values)}


# ---------------------------------------------------------------------------
# the feature objects (slotmath.features.registry)
# ---------------------------------------------------------------------------
def _check_prizes(game: Game) -> None:
    if plays_prizes(game):  # beside a lock-it they are its own, checked with it
        load_line_prizes(game)


def _check_in_free(key: str):
    """The ``check`` of the wheel or selection (``key``): the declaration,
    then its ``in_free_games`` (:func:`slotmath.features.infree.check_in_free_games`)."""

    def check(game: Game) -> None:
        from slotmath.features.infree import check_in_free_games

        _check_prizes(game)
        spec = _in_free_spec(game, key)
        if spec is None:
            return
        field = f"options.{key}.in_free_games"

        def reach(free_reels: str) -> str | None:
            problem = reach_problem(
                game, spec.symbol, [(field, spec.trigger)], field, f"the {key}", free_reels
            )
            return None if problem is None else problem[1]

        check_in_free_games(game, field, reach)

    return check


def _in_free_spec(game: Game, key: str):
    """The wheel's or selection's (``key``) spec when it plays in free games, else None."""
    if not plays_prizes(game) or key not in game.options:
        return None
    spec = getattr(load_line_prizes(game), key)
    return spec if spec is not None and spec.in_free_games else None


def _free_prize_feature(key: str):
    """The ``free_feature`` of the wheel or selection (``key``): the base
    game's feature, its count read on the free reel set by the free spin."""

    def feature(game: Game, level: int, free_reels: str) -> Feature:
        return _wheel_feature(game, level) if key == "wheel" else _selection_feature(game, level)

    return feature


def prize_in_free_games_figures(per_game: dict, games: Fraction, weighted: Fraction) -> dict:
    """Figures per round of the wheel or selection free games start, from
    ``per_game`` (its odds per free game), ``games`` = E[free games played
    per round] and ``weighted`` = E[free games played x their multiplier per
    round] (exact).  Starts and jackpot hits are expected counts per round;
    ``rtp`` [x total bet] is the awards' part of the ``free_games`` component."""
    from slotmath.features.infree import in_free_games_event

    g, p = float(games), per_game["trigger_probability"]
    return {
        "trigger_probability_per_free_game": p,
        "free_games_per_round": g,
        "starts_per_round": g * p,
        "mean_award": per_game["mean_award"],
        "mean_multiplier": float(weighted / games) if games else 1.0,
        "rtp": float(weighted) * p * per_game["mean_award"],
        "jackpot_hits_per_round": {k: g * v["per_round"] for k, v in per_game["jackpots"].items()},
        "event_rates": {in_free_games_event(k): g * v for k, v in per_game["event_rates"].items()},
    }


def _check_jackpots(game: Game) -> None:
    opts = game.options
    if not {"hold_and_spin", "lockit"} & set(opts):  # else checked with the feature awarding them
        load_line_prizes(game)


def _prize_notes(game: Game, law) -> list:
    if "wheel" not in law.figures and "selection" not in law.figures:
        return []
    out = [
        "Wheel and selection: exact means (a wheel award is the sum of its spins' "
        "independent draws; a selection the mixture of its choices under the policy, "
        "each choice the sum of its prize, free games and wheel spins)."
    ]
    free = law.figures.get("free_games", {})
    for key in ("wheel", "selection"):
        if f"{key}_per_free_game" in free and key in law.figures:
            out.append(
                f"{key.capitalize()} in free games: a free game's window starts it on the free reel set "
                "by the same trigger; its award is part of that game's win (times the free games' "
                "multiplier, in the free_games component); mean exact by Wald's identity (E[games "
                "played] x E[award per free game]), award law through the per-game (win, extra games) "
                "table (float64)."
            )
    return out


def _wheel_spec(game: Game):
    return load_line_prizes(game).wheel if plays_prizes(game) else load_features(game).wheel


def _selection_spec(game: Game):
    return load_line_prizes(game).selection if plays_prizes(game) else load_features(game).selection


def _selection_feature(game: Game, level: int) -> Feature:
    prizes = load_line_prizes(game)
    return selection_feature(game, level, prizes.selection, prizes)


def _wheel_feature(game: Game, level: int) -> Feature:
    return wheel_feature(game, level, load_line_prizes(game).wheel)


def _in_free_tables(game: Game, key: str, figures: dict, rtp: float) -> dict:
    inside = figures.get("free_games", {}).get(f"{key}_in_free_games")
    return {} if inside is None else in_free_tables(game, key.capitalize(), inside, rtp)


def _wheel_tables(game: Game, figures: dict, rtp: float, level: int) -> dict:
    if "wheel" not in figures:
        return {}
    return wheel_tables(game, figures["wheel"], rtp) | _in_free_tables(game, "wheel", figures, rtp)


def selection_tables(game: Game, figures: dict, rtp: float, level: int) -> dict:
    """Selection: every choice's probability under the policy and mean value;
    the start odds, mean award and share of RTP; the jackpots."""
    import pandas as pd

    from slotmath.features.sheetrows import jackpot_values, start_and_jackpot_tables

    sel = figures.get("selection")
    if sel is None:
        return {}
    rows = [
        {
            "choice": name,
            "probability given the selection": v["probability"],
            "mean value [x total bet]": v["mean_value"],
        }
        for name, v in sel["choices"].items()
    ]
    return {
        f"Selection choices (policy {sel['policy']})": pd.DataFrame(rows),
        **start_and_jackpot_tables("Selection", sel, rtp, jackpot_values(game)),
        **_in_free_tables(game, "selection", figures, rtp),
    }


def _wheel_tunables(game: Game) -> tuple:
    """The wheel's ``segments``: each spin pays one segment, so what spins it
    (the wheel started by its symbol, a selection's wheel choice, a lock-it
    mark) pays linearly in their draw probabilities."""
    opts = game.options
    moves = []
    if isinstance(opts.get("wheel"), dict) and "symbol" in opts["wheel"]:
        moves.append("wheel")
    choices = opts.get("selection", {}).get("choices") if isinstance(opts.get("selection"), dict) else None
    if isinstance(choices, list) and any(isinstance(c, dict) and c.get("wheel") for c in choices):
        moves.append("selection")
    if "lockit" in opts:
        moves.append("lockit")
        if isinstance(opts["lockit"], dict) and opts["lockit"].get("in_free_games") is True:
            moves.append("free_games")  # its mark spins the wheel in free games too
    found = inline_table(opts, ("wheel", "segments"), moves)
    return () if found is None else (found,)


def _selection_tunables(game: Game) -> tuple:
    """The player's ``choices`` (policy ``player``): one choice per selection,
    so its RTP is linear in their draw probabilities."""
    found = inline_table(game.options, ("selection", "choices"), ("selection",))
    return () if found is None else (found,)


WHEEL = FeatureKind(
    key="wheel",
    title="wheel",
    parse=_wheel_spec,
    component="wheel",
    starts=lambda game: plays_prizes(game) and getattr(_wheel_spec(game), "symbol", None) is not None,
    exact=_wheel_feature,
    check=_check_in_free("wheel"),
    in_free_games=lambda game: _in_free_spec(game, "wheel") is not None,
    free_feature=_free_prize_feature("wheel"),
    free_figures=prize_in_free_games_figures,
    notes=_prize_notes,
    tables=_wheel_tables,
    tunables=_wheel_tunables,
    example="data/games/pick_and_wheel/game.yaml",
    schema={
        "type": "object",
        "description": "Prize wheel: beside a lockit, its mark award (segments, before); otherwise a "
        "round feature started by symbol/trigger or a selection choice: docs/features.md.",
        "additionalProperties": False,
        "properties": {
            "symbol": {},
            "trigger": {},
            "spins": {},
            "segments": {},
            "before": {},
            "in_free_games": {},
        },
    },
    slot="slotmath.montecarlo.prizesim:WHEEL_SLOT",
)

SELECTION = FeatureKind(
    key="selection",
    title="selection",
    parse=_selection_spec,
    component="selection",
    starts=lambda game: plays_prizes(game) and _selection_spec(game) is not None,
    exact=_selection_feature,
    check=_check_in_free("selection"),
    in_free_games=lambda game: _in_free_spec(game, "selection") is not None,
    free_feature=_free_prize_feature("selection"),
    free_figures=prize_in_free_games_figures,
    notes=_prize_notes,
    tables=selection_tables,
    tunables=_selection_tunables,
    example="data/games/pick_and_wheel/game.yaml",
    schema={
        "type": "object",
        "description": "Feature selection: beside a lockit, its choices by count (symbol, awards, "
        "lockit_source); otherwise a round pick (symbol, trigger, policy, choices): "
        "docs/features.md.",
        "additionalProperties": False,
        "properties": {
            "symbol": {},
            "trigger": {},
            "policy": {},
            "choices": {},
            "awards": {},
            "lockit_source": {},
            "in_free_games": {},
        },
    },
    slot="slotmath.montecarlo.prizesim:SELECTION_SLOT",
)

JACKPOTS = FeatureKind(
    key="jackpots",
    title="jackpots",
    parse=lambda game: load_features(game).jackpots,
    check=_check_jackpots,
    example="data/games/hold_and_spin/game.yaml",
    schema={
        "type": ["object", "array"],
        "description": "Named prizes (features): a fixed prize [x total bet] or a progressive {seed, "
        "contribution, reset} (docs/features.md), or Grand Spinn Superpot's jackpot "
        "symbols (a list).",
    },
)
