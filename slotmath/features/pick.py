"""The pick-until-collect bonus (``options.pick``), exact.

Rule: ``trigger`` or more ``symbol`` anywhere in the base window start the
bonus.  A board hides ``tiles``: prize tiles (a prize [x total bet] each)
and ``collect`` tiles, in a uniformly random order.  The player reveals
tiles one by one; each prize tile adds its prize to the award, and the
first collect tile ends the bonus (a board with no collect tile ends when
every tile is revealed).  Which tile the player touches does not matter:
every unrevealed tile is equally likely to hide any of the remaining ones.

Exact law: with ``P`` prize tiles and ``C`` collect tiles, the number ``K``
of prizes revealed before the first collect has
``P(K = k) = C x P! (P + C - k - 1)! / ((P - k)! (P + C)!)`` for ``k = 0..P``
(``K = P`` surely when ``C = 0``), and given ``K = k`` the revealed prizes are a uniformly random
``k``-subset of the prize tiles.  The award's law is therefore
``P(A = a) = sum_k P(K = k) N_k(a) / binom(P, k)``, ``N_k(a)`` the number
of ``k``-subsets of the prize tiles summing to ``a`` (a product of
binomials over the prize values, one generating function); every
probability is a Fraction and the law is returned as integer counts over
their common denominator.  Mean: ``E[K] = P / (C + 1)`` prizes of the
tiles' mean prize.

The compiled round sampler draws the award from this law when the base
window starts the bonus (the kind's ``draws``, the generic slot of
:func:`slotmath.montecarlo.roundsim.drawn_args`): its z-scores check the
trigger and the round, and the brute force of the tests checks the law.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from math import comb, factorial, lcm

from slotmath.engine.cache import game_cache
from slotmath.engine.distribution import WinDistribution
from slotmath.features.declaration import Reader
from slotmath.features.kinds import FeatureKind
from slotmath.features.prizes import prize_event
from slotmath.features.reach import reach_problem
from slotmath.features.round import Feature, count_feature
from slotmath.model import Game

__all__ = ["PickSpec", "load_pick", "revealed_law", "pick_law", "pick_feature", "pick_draws", "PICK"]

KEYS = ("symbol", "trigger", "tiles")
TILE_KEYS = ("prize", "collect", "count")


@dataclass(frozen=True)
class PickSpec:
    """A declared pick-until-collect bonus: ``prizes`` one value [x total
    bet] per prize tile (sorted), ``collects`` the number of collect tiles."""

    symbol: str
    trigger: int
    prizes: tuple
    collects: int


def load_pick(game: Game) -> PickSpec | None:
    """Validate and return ``options.pick`` (None when absent); every error
    names its field."""
    if not isinstance(game.options, dict) or "pick" not in game.options:
        return None
    return _load(game)


@game_cache(maxsize=32)
def _load(game: Game) -> PickSpec:
    rd = Reader(game)
    w = "options.pick"
    spec = rd.mapping(game.options["pick"], w, KEYS, KEYS)
    symbol = rd.symbol(spec["symbol"], f"{w}.symbol")
    trigger = rd.number(spec["trigger"], f"{w}.trigger", integer=True, positive=True)
    rd.check(reach_problem(game, symbol, [(f"{w}.trigger", trigger)], w, "the pick bonus"))
    tiles = spec["tiles"]
    if not isinstance(tiles, list) or not tiles:
        rd.fail(f"{w}.tiles", "must be a non-empty list of {prize, count} and {collect: true, count} tiles")
    prizes: list = []
    collects = 0
    for i, tile in enumerate(tiles):
        at = f"{w}.tiles[{i}]"
        rd.mapping(tile, at, TILE_KEYS)
        count = rd.number(tile.get("count", 1), f"{at}.count", integer=True, positive=True)
        if ("prize" in tile) == ("collect" in tile):
            rd.fail(at, "must have exactly one of 'prize' (a value x total bet) and 'collect: true'")
        if "collect" in tile:
            if tile["collect"] is not True:
                rd.fail(f"{at}.collect", f"must be true, got {tile['collect']!r}")
            collects += count
        else:
            prizes += [rd.amount(tile["prize"], f"{at}.prize", positive=True)] * count
    if not prizes:
        rd.fail(f"{w}.tiles", "has no prize tile: the bonus would always pay 0")
    if len(prizes) + collects > 100:
        rd.fail(f"{w}.tiles", f"has {len(prizes) + collects} tiles; at most 100 are computed")
    states = _states(prizes)
    if states > MAX_STATES:
        rd.fail(
            f"{w}.tiles",
            f"the award law needs about {states:.3g} (revealed, sum) states, above {MAX_STATES:.0e} "
            "(fewer distinct prizes, or prizes on a coarser grid)",
        )
    return PickSpec(symbol, trigger, tuple(sorted(prizes)), collects)


#: most (prizes revealed, award) states of the award law's subset sums
MAX_STATES = 1_000_000


def _states(prizes: list) -> int:
    """Bound on the (k, sum) states of :func:`_subset_sums`: the product of
    (tiles + 1) over the distinct prizes, and (tiles + 1) x the sums on the
    prizes' common grid."""
    from math import prod

    units, _ = _grid(prizes)
    by_value = prod(prizes.count(v) + 1 for v in set(prizes))
    return min(by_value, (len(prizes) + 1) * (sum(units) + 1))


def revealed_law(prizes: int, collects: int) -> list:
    """``P(K = k)`` for ``k = 0..prizes`` [exact Fractions]: the number of
    prize tiles revealed before the first of ``collects`` collect tiles."""
    if collects == 0:
        return [Fraction(0)] * prizes + [Fraction(1)]
    n = prizes + collects
    return [
        Fraction(collects * factorial(prizes) * factorial(n - k - 1), factorial(prizes - k) * factorial(n))
        for k in range(prizes + 1)
    ]


def _grid(values) -> tuple:
    """``(units, step)``: the prizes as integers on their common grid of ``step`` [x total bet]."""
    from math import gcd

    den = lcm(1, *(v.denominator for v in values))
    units = [int(v * den) for v in values]
    g = gcd(*units)
    return [u // g for u in units], Fraction(g, den)


def _subset_sums(units: list) -> dict:
    """``{(k, sum): number of k-subsets of the tiles ``units`` with that sum}``
    (integer prizes; tiles of equal value chosen together: a product of
    binomials)."""
    out = {(0, 0): 1}
    for value in sorted(set(units)):
        m = units.count(value)
        ways_j = [comb(m, j) for j in range(m + 1)]
        nxt: dict = {}
        for (k, s), ways in out.items():
            for j in range(m + 1):
                key = (k + j, s + j * value)
                nxt[key] = nxt.get(key, 0) + ways * ways_j[j]
        out = nxt
    return out


def pick_law(spec: PickSpec) -> dict:
    """``{award [x total bet]: probability}`` of one bonus [exact Fractions]:
    ``sum_k P(K = k) N_k(a) / binom(P, k)``, in integers over one common
    denominator."""
    p = len(spec.prizes)
    units, step = _grid(spec.prizes)
    per_subset = [q / comb(p, k) for k, q in enumerate(revealed_law(p, spec.collects))]
    den = lcm(1, *(w.denominator for w in per_subset))
    weight = [int(w * den) for w in per_subset]
    law: dict = {}
    for (k, s), ways in _subset_sums(units).items():
        if weight[k]:
            law[s] = law.get(s, 0) + ways * weight[k]
    return {s * step: Fraction(n, den) for s, n in sorted(law.items())}


def pick_feature(game: Game, level: int) -> Feature:
    """The pick bonus as a round :class:`Feature` (component ``pick``): its
    award does not depend on the key, so every triggering key shares one law."""
    spec = load_pick(game)
    total_bet = game.bet(level).total_bet
    points = pick_law(spec)
    mean = sum((v * q for v, q in points.items()), Fraction(0))

    @cache
    def law() -> WinDistribution:
        den = lcm(1, *(Fraction(v * total_bet).denominator for v in points))
        scale = lcm(1, *(q.denominator for q in points.values()))
        pairs = [(int(v * total_bet * den), int(q * scale)) for v, q in points.items()]
        return WinDistribution.from_pairs(pairs, den, total_bet)

    def odds(key_p: dict) -> dict:
        trig = sum(key_p.values(), Fraction(0))
        return {
            "trigger_probability": float(trig),
            "trigger_one_in": float(1 / trig) if trig else float("inf"),
            "tiles": len(spec.prizes) + spec.collects,
            "collect_tiles": spec.collects,
            "mean_prizes_revealed": float(Fraction(len(spec.prizes), spec.collects + 1)),
            "mean_award": float(mean),
            "max_award": float(max(points)),
            "event_rates": {prize_event("pick"): float(trig)},
        }

    return count_feature("pick", spec.symbol, spec.trigger, mean, law, odds)


def pick_draws(game: Game, level: int) -> tuple:
    """The sampler part: ``(symbol, trigger, awards [x total bet], probabilities)``
    of one bonus (:attr:`~slotmath.features.kinds.FeatureKind.draws`)."""
    spec = load_pick(game)
    points = sorted(pick_law(spec).items())
    return spec.symbol, spec.trigger, [float(v) for v, _ in points], [float(q) for _, q in points]


def _pick_tables(game: Game, figures: dict, rtp: float, level: int) -> dict:
    from slotmath.features.sheetrows import start_and_jackpot_tables

    return start_and_jackpot_tables("Pick bonus", figures["pick"], rtp) if "pick" in figures else {}


PICK = FeatureKind(
    key="pick",
    title="pick bonus",
    parse=load_pick,
    component="pick",
    starts=lambda game: load_pick(game) is not None,
    exact=pick_feature,
    notes=lambda game, law: (
        [
            "Pick bonus: the number of prizes revealed before the first collect tile and the "
            "uniformly random subset of prize tiles they are, exact Fractions (mean and law)."
        ]
        if "pick" in law.figures
        else []
    ),
    tables=_pick_tables,
    draws=pick_draws,
    example="tests/data/pick_collect/game.yaml",
    schema={
        "type": "object",
        "description": "Pick-until-collect bonus: trigger or more symbol anywhere start it; "
        "tiles are prizes [x total bet] and collects: docs/features.md.",
        "additionalProperties": False,
        "required": list(KEYS),
        "properties": {
            "symbol": {"type": "string"},
            "trigger": {"type": "integer", "minimum": 1},
            "tiles": {
                "type": "array",
                "minItems": 1,
                "items": {
                    "type": "object",
                    "additionalProperties": False,
                    "properties": {"prize": {}, "collect": {}, "count": {}},
                },
            },
        },
    },
)
