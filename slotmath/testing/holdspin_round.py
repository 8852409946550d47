"""The round of a line game with a value-per-coin hold-and-spin: a base spin
(line and scatter pays), then the feature of :mod:`slotmath.features.holdspin`
when the window shows enough coins.

Exact RTP: ``E[base spin win] + sum over keys P(key) mean(key)``.  The round's
win law: the base win and the award depend on each other only through the
key, so the base win given the key is convolved with the award given the
key.  The key is the coins per reel of the window when every cell of a reel
lands alike; when the landing depends on the rows (``respin: reels``, or
per-cell probabilities that differ down a reel) the award depends on which
rows hold the coins, and so does the line win, so the key is the per-reel row
pattern of the coins (:func:`~slotmath.features.holdspin.rows_matter`).  The
generic feature round of ``rules: lines`` plays this feature (with any
other); :func:`hold_and_spin_par` is the same round alone by direct
convolutions, its tail resolved further.
"""

from __future__ import annotations

from fractions import Fraction
from math import lcm

import numpy as np

from slotmath.engine.distribution import WinDistribution
from slotmath.errors import ensure
from slotmath.features.declaration import Reader
from slotmath.features.holdspin import (
    COINS_TABLE,
    HoldAndSpinSpec,
    PrizeSums,
    award_grid_laws,
    check_jackpots,
    coins_table,
    depends_on_count_only,
    feature_odds,
    hold_and_spin_means,
    hold_and_spin_trigger,
    key_mask,
    mask_count_laws,
    required_hold_and_spin,
    rows_matter,
    trigger_keys,
)
from slotmath.model import Game

__all__ = [
    "base_rtp",
    "hold_and_spin_rtp",
    "base_by_coins",
    "base_given_key",
    "round_distribution",
    "hold_and_spin_par",
]


OWN_OPTIONS = ("jackpots", "hold_and_spin")


def _check_options(game: Game, spec: HoldAndSpinSpec) -> None:
    """Refuse option keys the round does not compute and unused jackpots."""
    Reader(game).mapping(game.options, "options", OWN_OPTIONS)
    check_jackpots(game, spec)


def base_rtp(game: Game, level: int, reel_set: str = "base") -> dict:
    """Exact line and scatter RTP of the base spin [x total bet] (Fractions)."""
    from slotmath.engine.combinations import line_rtp
    from slotmath.engine.scatters import count_distribution_window, scatter_pay, scatter_symbols

    lines, _ = line_rtp(game, level, reel_set)
    out = {"lines": lines}
    if game.scatter_pays:
        total = Fraction(0)
        for s in scatter_symbols(game):
            dist = count_distribution_window(game, reel_set, s)
            total += sum((scatter_pay(game, s, c) * int(n) for c, n in enumerate(dist)), Fraction(0))
        out["scatters"] = total / game.cycle(reel_set)
    return out


def hold_and_spin_rtp(game: Game, level: int, spec: HoldAndSpinSpec | None = None, exact: bool | None = None):
    """RTP of the round by component [x total bet]: ``lines``, ``scatters``
    (exact Fractions) and ``hold_and_spin`` = sum over keys of P(key) x
    mean(key) (a Fraction when the chain runs exact, else float64 within the
    bound of the module docstring)."""
    spec = spec or required_hold_and_spin(game)
    out = base_rtp(game, level, spec.base_reels)
    means = hold_and_spin_means(game, level, spec, exact)
    probs = trigger_keys(game, spec)
    feature = sum((probs[k] * means[k] for k in probs), Fraction(0))
    out["hold_and_spin"] = feature
    return out


def _tagged(game: Game, level: int, spec: HoldAndSpinSpec):
    """``game`` with the coin symbol paying ``big`` coins per coin as a scatter,
    ``big`` above the largest base win: one exact run of the line engine then
    gives the joint law of (base win, coins on the window)."""
    from dataclasses import replace

    from slotmath.engine.joint import spin_distribution
    from slotmath.model import ScatterPay

    bet = game.bet(level)
    plain = spin_distribution(game, level, spec.base_reels)
    big = int(plain.max_win * bet.total_bet) + 1  # coins
    cells = game.rows * game.reels
    pays = tuple(ScatterPay(spec.symbol, c, Fraction(big * c, bet.total_bet)) for c in range(1, cells + 1))
    return replace(game, scatter_pays=game.scatter_pays + pays), big


def base_by_coins(game: Game, level: int, spec: HoldAndSpinSpec) -> dict:
    """Exact joint law of (base spin win, coins on the window).

    Returns
    -------
    dict
        total coin count -> :class:`WinDistribution` of the base win (lines +
        scatters) with integer hit counts over the base cycle.
    """
    from slotmath.engine.joint import spin_distribution

    tagged, big = _tagged(game, level, spec)
    joint = spin_distribution(tagged, level, spec.base_reels)
    big_units = big * joint.unit_den
    pairs: dict = {}
    for w, c in zip(joint.wins.tolist(), joint.weights.tolist(), strict=True):
        pairs.setdefault(w // big_units, []).append((w % big_units, c))
    bet = game.bet(level)
    return {k: WinDistribution.from_pairs(p, joint.unit_den, bet.total_bet) for k, p in pairs.items()}


def base_given_key(game: Game, level: int, spec: HoldAndSpinSpec, key: tuple) -> WinDistribution:
    """Exact law of the base win on the stops whose windows show ``key`` (per
    reel, the coin count, or the coins' row pattern when
    :func:`~slotmath.features.holdspin.rows_matter`): the base strips with
    every other stop weighted 0."""
    from dataclasses import replace

    from slotmath.engine.joint import reel_digits, spin_distribution
    from slotmath.model import Strip

    trigger = hold_and_spin_trigger(game, spec)
    strips = []
    for strip, c in zip(game.strips(spec.base_reels), key, strict=True):
        keep = reel_digits(game, strip, trigger) == c
        strips.append(Strip(strip.symbols, tuple(int(w) for w in strip.stop_weights() * keep)))
    sets = dict(game.reel_sets)
    sets[spec.base_reels] = tuple(strips)
    return spin_distribution(replace(game, reel_sets=sets), level, spec.base_reels)


def round_distribution(
    game: Game, level: int, spec: HoldAndSpinSpec, exact: bool | None = None
) -> WinDistribution:
    """Law of the round win (base spin + feature award when triggered).

    The base win and the award both depend on the key, and only through it;
    they are independent given the key.  When every key with the same number
    of coins has the same award law (cells that land alike), the joint law of
    (base win, coin count) from :func:`base_by_coins` suffices; otherwise the
    base win is conditioned on every key (:func:`base_given_key`, slower):
    the per-reel counts, or the row patterns when the landing depends on the
    rows.  Float64 probabilities.
    """
    bet = game.bet(level)
    g, laws = award_grid_laws(game, spec, exact)
    by_count: dict = {}
    for key in laws:
        by_count.setdefault(sum(key), []).append(key)
    grouped = not rows_matter(game, spec) and depends_on_count_only(game, spec, exact)
    base = base_by_coins(game, level, spec)
    cycle = game.cycle(spec.base_reels)
    step = g * bet.total_bet
    ud_base = next(iter(base.values())).unit_den
    ud = lcm(ud_base, step.denominator)
    parts = []  # (base wins [1/ud coins], base probabilities, award law on the grid or None)
    for k0, dist in base.items():
        if k0 < spec.trigger:
            parts.append((dist, Fraction(1, cycle), None))
        elif grouped:
            parts.append((dist, Fraction(1, cycle), laws[by_count[k0][0]]))
    if not grouped:
        probs, laws = _keyed_awards(game, spec, exact, laws)
        for key in laws:
            d = base_given_key(game, level, spec, key)
            parts.append((d, probs[key] / d.total, laws[key]))
    step_units = int(step * ud)
    top = 0
    for dist, _, law in parts:
        award_top = 0 if law is None else (len(law) - 1) * step_units
        top = max(top, int(dist.wins[-1]) * (ud // dist.unit_den) + award_top)
    hist = np.zeros(top + 1)
    for dist, scale, law in parts:
        wb = dist.wins * (ud // dist.unit_den)
        pb = np.array([float(int(c) * scale) for c in dist.weights.tolist()])
        if law is None:
            hist[wb] += pb
            continue
        for j in np.flatnonzero(law):
            hist[wb + j * step_units] += law[j] * pb
    nz = np.flatnonzero(hist)
    return WinDistribution(nz.astype(np.int64), hist[nz], ud, bet.total_bet)


def _keyed_awards(game: Game, spec: HoldAndSpinSpec, exact, count_laws: dict) -> tuple:
    """({triggering key: P(key)}, {key: award law on the grid}) for the keys of
    :func:`~slotmath.features.holdspin.hold_and_spin_trigger`: ``count_laws``
    as they are, or per row pattern the law from its own start mask."""
    if not rows_matter(game, spec):
        return trigger_keys(game, spec), count_laws
    from slotmath.features.round import trigger_key_probability

    V = mask_count_laws(game, spec, exact)
    sums = PrizeSums(spec, game.rows * game.reels)
    probs, laws = {}, {}
    for key, p in trigger_key_probability(game, hold_and_spin_trigger(game, spec), spec.base_reels).items():
        m = key_mask(game, key)
        if bin(m).count("1") >= spec.trigger:
            probs[key], laws[key] = p, sums.mixture(bin(m).count("1"), V[:, m])
    return probs, laws


def hold_and_spin_par(game: Game, level: int | None = None, exact: bool | None = None):
    """Exact PAR of a line game with a hold-and-spin: components ``lines``,
    ``scatters`` and ``hold_and_spin``, the round's win distribution and the
    feature odds (``features["hold_and_spin"]``).

    The round is a base spin (line and scatter pays) followed by the feature
    when the window shows ``trigger`` or more coins.
    """

    from slotmath.engine.combinations import combination_table, line_rtp
    from slotmath.rules.result import ParResult

    spec = required_hold_and_spin(game)
    _check_options(game, spec)
    level = game.bet(level).level
    reels = spec.base_reels
    table = combination_table(game, level, reels)
    _, per_line = line_rtp(game, level, reels)
    comps = hold_and_spin_rtp(game, level, spec, exact)
    if not game.scatter_pays:
        comps.pop("scatters", None)
    rtp = sum(comps.values(), Fraction(0))
    dist = round_distribution(game, level, spec, exact)
    odds = feature_odds(game, spec, trigger_keys(game, spec), exact)
    gap = abs(float(dist.mean) - float(rtp))
    ensure(gap <= 1e-9 * max(1.0, float(rtp)), "the round's win law disagrees with its RTP")
    return ParResult(
        game=game,
        bet=game.bet(level),
        cycle=game.cycle(reels),
        rtp=rtp,
        components=comps,
        distribution=dist,
        combinations=table,
        per_line_rtp=per_line,
        features={"hold_and_spin": odds, "event_rates": odds.pop("event_rates")},
        tables={COINS_TABLE: coins_table(odds)},
        notes=_notes(game, spec, isinstance(comps["hold_and_spin"], Fraction)),
    )


def _notes(game: Game, spec: HoldAndSpinSpec, exact: bool) -> list:
    how = (
        "exact (rational chain)"
        if exact
        else "float64 chain, relative error below about 1e-12 (sums of non-negative products)"
    )
    return [
        f"Hold-and-spin: {spec.trigger}+ {spec.symbol} hold, {spec.respins} respins "
        f"({spec.rule}), respin model '{spec.respin}'; feature RTP {how}.",
        "The round distribution: base win given the coins on the window (per reel: their count, or "
        "their rows when the landing depends on the rows), convolved with the award law.",
    ]
