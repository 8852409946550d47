"""The generic feature round: a base spin followed by the features its window triggers.

A feature plugs into the round through :class:`Feature`: the :class:`Trigger`
(which symbol the base window must show, counted in total or per reel), a
test of the key (``triggers(key)``), the exact mean of its award given the
key and the law of that award.  The base spin's joint law of (spin win,
key) comes from the line engine in one forward pass
(:func:`slotmath.engine.joint.spin_key_distribution`, the key as one more
state digit), so the round is exact without listing the cycle:

* RTP: ``E[base win] + sum_key P(key) sum_f mean_f(key)`` [x total bet], a
  Fraction when every mean is one;
* distribution: per key, the base wins of the windows showing it convolved
  with the awards of the features it triggers (independent given the
  window), summed over keys; float probabilities on the lattice of the least
  common win unit.  FFT rounding (about ``1e-16 x log2(size)`` per point)
  leaves noise below :data:`RESOLVED` [probability]: points below it are
  dropped and their total mass reported (``dropped``);
* a cap on the round's total win (``round_cap`` [x total bet]) moves the
  mass above it onto the cap; the RTP loses ``E[(T - cap)+]``, computed
  from the distribution (float).

Several features may share a key (e.g. two triggers counted in one pass):
the key is then the tuple of their keys, one item per trigger, in the
order of :func:`round_triggers`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from math import lcm

import numpy as np

from slotmath.engine.distribution import MaxWin, WinDistribution
from slotmath.errors import EngineTooLarge, ensure

__all__ = [
    "Trigger",
    "Feature",
    "RoundLaw",
    "round_triggers",
    "round_law",
    "round_distribution",
    "feature_means",
    "feature_from_tables",
    "count_feature",
    "trigger_key_probability",
    "RESOLVED",
    "award_top",
    "round_max_win",
    "cap_max_win",
    "started_keys",
    "award_given_trigger",
    "RoundMoments",
    "round_moments",
]

#: Probabilities below this are not resolved by the float convolutions.
RESOLVED = 1e-15
#: most points of the round's dense win histogram (float64: 256 MB an array)
MAX_ROUND_POINTS = 1 << 25


@dataclass(frozen=True)
class Trigger:
    """What the base window must show: ``symbol`` (a name, or a tuple of
    names counted together) counted anywhere in the window, in total
    (``per_reel`` False: the key is an int) or per reel (the key is a tuple
    of counts, reel 1 first); with ``rows`` (per reel only) each reel's item
    is the row pattern of the symbol (bit k: row k), plus ``2**rows`` when
    that reel shows ``mark``."""

    symbol: str | tuple
    per_reel: bool = False
    rows: bool = False
    mark: str | None = None


@dataclass(frozen=True, eq=False)
class Feature:
    """One feature of the round.

    Attributes
    ----------
    name : str
        Its RTP component (e.g. ``"free_games"``).
    trigger : Trigger
    triggers : callable
        ``triggers(key) -> bool``: the window with this key starts the feature.
    mean : callable
        ``mean(key) -> Fraction | float``: expected award [x total bet].
    award : callable
        ``award(key) -> WinDistribution``: law of the award (float
        probabilities summing to 1, or exact counts), own ``unit_den``,
        ``total_bet`` the game's.
    group : callable
        ``group(key)``: keys with one award law share a group (convolved
        once); default the key itself.
    odds : callable, optional
        ``odds(key_probabilities) -> dict``: the feature's figures for the
        PAR sheet from ``{key: P(key)}`` of the triggering keys.
    mixture, parts : callable, optional
        An award that is a mixture of a few laws: ``parts() -> list`` of L
        :class:`WinDistribution` and ``mixture(keys) -> ndarray (len(keys),
        L)``, the probability of each part given each key.  The round then
        convolves each part once with the base wins of all the keys it mixes
        into (weighted), instead of once per key group (used where the feature
        alone starts; see :func:`round_law`).
    top : callable, optional
        ``top(key) -> MaxWin``: the largest award given the key [x total
        bet] and its probability, from the feature's structure; default the
        top point of ``award(key)`` (see :func:`award_top`).
    second_moment : callable, optional
        ``second_moment(key) -> float``: ``E[award^2 | key]`` [(x total
        bet)^2] from the feature's structure, without its award law
        (:func:`round_moments`); default from the award law (or its parts).
    """

    name: str
    trigger: Trigger
    triggers: Callable
    mean: Callable
    award: Callable
    group: Callable = field(default=lambda key: key)
    odds: Callable | None = None
    mixture: Callable | None = None
    parts: Callable | None = None
    top: Callable | None = None
    second_moment: Callable | None = None


def feature_from_tables(name: str, trigger: Trigger, awards: dict, means: dict, odds=None) -> Feature:
    """A :class:`Feature` from per-key tables: ``awards[key]`` its award law
    (:class:`WinDistribution`) and ``means[key]`` its exact mean [x total
    bet], for the keys that trigger (keys of ``trigger``'s form)."""
    return Feature(name, trigger, lambda key: key in awards, means.__getitem__, awards.__getitem__, odds=odds)


def count_feature(name: str, symbol: str, trigger: int, mean, law: Callable, odds=None) -> Feature:
    """A :class:`Feature` started by ``trigger`` or more ``symbol`` anywhere in
    the window whose award does not depend on the window: one ``mean`` [x
    total bet] and one law (``law()``, built when first asked) for every
    triggering key, all keys one group."""
    return Feature(
        name,
        Trigger(symbol),
        lambda count: count >= trigger,
        lambda count: mean,
        lambda count: law(),
        lambda count: True,
        odds,
    )


def round_triggers(features) -> list:
    """The distinct triggers of ``features``, in first-listed order (one key item each)."""
    out: list = []
    for f in features:
        if f.trigger not in out:
            out.append(f.trigger)
    return out


@dataclass
class RoundLaw:
    """The round's exact RTP by component and its distribution.

    ``components`` [x total bet] sum to ``rtp``; ``key_probability`` maps
    every key of the base window to its exact probability; ``dropped`` is
    the probability mass not resolved (see the module notes) and
    ``shortfall`` [x total bet] the mean win it carries (after the round
    cap), so ``distribution.mean + shortfall`` is the round's paid RTP;
    ``figures`` holds each feature's odds (JSON-ready).
    """

    rtp: Fraction | float
    components: dict
    distribution: WinDistribution | None
    key_probability: dict
    dropped: float
    figures: dict
    shortfall: float = 0.0


def _feature_key(key, features, triggers, f):
    """The key item of feature ``f`` inside the round's key tuple."""
    return key[triggers.index(f.trigger)]


def round_law(keyed, features, round_cap=None, distribution: bool = True, source: object = "") -> RoundLaw:
    """Exact RTP and (optionally) the distribution of the round.

    Parameters
    ----------
    keyed : KeyedWins
        Joint law of (base spin win, key) with one key item per trigger of
        :func:`round_triggers` (``features``).
    features : sequence of Feature
    round_cap : Fraction, optional
        Cap on the total win of a round [x total bet].
    distribution : bool
        Build the distribution (False: RTP and feature figures only; with a
        ``round_cap`` the distribution is always built).
    source : str, optional
        The game file, named by a refusal of a distribution beyond
        :data:`MAX_ROUND_POINTS`.
    """
    triggers = round_triggers(features)
    scale = keyed.unit_den * keyed.total_bet
    paid = sum(w * c for w, c in zip(keyed.wins.tolist(), keyed.counts, strict=True))
    base_mean = Fraction(paid, scale * keyed.cycle)
    key_p = {k: Fraction(c, keyed.cycle) for k, c in keyed.key_counts().items()}
    components: dict = {}
    figures: dict = {}
    for f in features:
        probs = {k: p for k, p in key_p.items() if f.triggers(_feature_key(k, features, triggers, f))}
        item = {}
        for k, p in probs.items():
            fk = _feature_key(k, features, triggers, f)
            item[fk] = item.get(fk, 0) + p
        components[f.name] = components.get(f.name, 0) + sum(
            (p * f.mean(fk) for fk, p in item.items()), Fraction(0)
        )
        if f.odds is not None:
            figures[f.name] = f.odds(item)
    rtp = base_mean + sum(components.values(), Fraction(0))
    dist, dropped, shortfall = None, 0.0, 0.0
    if distribution or round_cap is not None:
        dist, tail = _round_distribution(keyed, features, triggers, source)
        dropped = float(tail[1].sum())
        dist, over, shortfall = _capped(dist, tail, round_cap)
        if round_cap is not None:
            components["round_cap"] = -over
            rtp = float(rtp) - over
    return RoundLaw(rtp, components, dist, key_p, dropped, figures, shortfall)


def _capped(dist: WinDistribution, tail: tuple, round_cap) -> tuple:
    """``(distribution, over, shortfall)`` of a round's float ``dist`` and
    its unresolved ``tail`` = (wins, probabilities) [x total bet] under
    ``round_cap`` (None: no cap): every win above the cap paid as the cap,
    ``over`` = ``E[(T - cap)+]`` [x total bet] (float; 0 without a cap)
    and ``shortfall`` the capped tail's mean [x total bet]."""
    tail_wins, tail_p = tail
    over = 0.0
    if round_cap is not None:
        dist, over = cap_distribution(dist, round_cap)
        over += float(np.dot(np.maximum(tail_wins - float(round_cap), 0.0), tail_p))
        tail_wins = np.minimum(tail_wins, float(round_cap))
    return dist, over, float(np.dot(tail_wins, tail_p))


def round_distribution(keyed, features, source: object = "", round_cap=None) -> tuple:
    """The round's distribution: ``(distribution, dropped, shortfall,
    over)`` as :class:`RoundLaw` has them (float64), under ``round_cap``
    [x total bet] when given (``over`` = ``E[(T - cap)+]``, the cap's cut
    [x total bet], float; 0 without a cap).  ``keyed`` is a
    :class:`~slotmath.engine.joint.KeyedWins` of exact counts, or of float64
    probabilities for counts over a ``cycle`` of 1 (a base spin whose law is
    float: :meth:`slotmath.features.drawnlaw.DrawnLaw.keyed`); its exact RTP
    is the caller's."""
    dist, tail = _round_distribution(keyed, features, round_triggers(features), source)
    dist, over, shortfall = _capped(dist, tail, round_cap)
    return dist, float(tail[1].sum()), shortfall, over


def award_top(f: Feature, key) -> MaxWin:
    """The largest award of ``f`` given ``key`` [x total bet] and its
    probability: ``f.top`` when the feature gives one, else the top point of
    its award law (exact when that law's weights are counts)."""
    if f.top is not None:
        return f.top(key)
    law = f.award(key)
    if law.exact:
        return law.top("top of the exact award law")
    return MaxWin(
        law.max_win,
        float(law.max_win_probability),
        False,
        "top point of the float award law (a lower bound where that law drops tiny probabilities)",
    )


def started_keys(key_probability: dict, features, f: Feature) -> dict:
    """``{key item of f: P}`` of the base windows that start ``f``, from the
    round's ``{key: P(key)}`` (the keys of :func:`round_triggers`)."""
    triggers = round_triggers(features)
    out: dict = {}
    for k, p in key_probability.items():
        fk = _feature_key(k, features, triggers, f)
        if f.triggers(fk):
            out[fk] = out.get(fk, 0) + p
    return out


def award_given_trigger(f: Feature, started: dict) -> tuple:
    """Law of ``f``'s award given that it starts: ``(wins [x total bet],
    probabilities)`` (float), the mixture of the award laws of the keys in
    ``started`` (``{key item: P}``) by their probabilities (through the
    feature's parts where it has them)."""
    total = float(sum(started.values()))
    acc: dict = {}

    def add(law: WinDistribution, weight: float) -> None:
        for x, q in zip(law.x.tolist(), law.probabilities.tolist(), strict=True):
            acc[x] = acc.get(x, 0.0) + weight * q

    if f.parts is not None and f.mixture is not None:
        keys = list(started)
        weights = np.array([float(started[k]) for k in keys]) / total
        mix = np.zeros(len(f.parts()))
        for lo in range(0, len(keys), 4096):
            mix += weights[lo : lo + 4096] @ np.asarray(f.mixture(keys[lo : lo + 4096]), dtype=float)
        for law, w in zip(f.parts(), mix.tolist(), strict=True):
            if w:
                add(law, w)
    else:
        groups: dict = {}
        for k, p in started.items():
            g = f.group(k)
            entry = groups.setdefault(g, [k, 0.0])
            entry[1] += float(p) / total
        for k, w in groups.values():
            add(f.award(k), w)
    wins = np.array(sorted(acc))
    return wins, np.array([acc[x] for x in wins.tolist()])


def round_max_win(keyed, features, round_cap=None, distribution: WinDistribution | None = None) -> MaxWin:
    """The round's largest win with non-zero probability [x total bet] and its
    odds, from the supports: per key of the base window, the largest base win
    showing it plus the largest award of each feature it starts (the awards
    are independent given the window, so the total is largest only when every
    part is); the odds sum ``P(key, top base win) x prod P(top award | key)``
    over the keys reaching it.  With a ``round_cap`` below it, the cap, with
    the probability the capped ``distribution`` gives it (:func:`cap_max_win`);
    so too when the uncapped round has no largest win."""
    triggers = round_triggers(features)
    scale = keyed.unit_den * keyed.total_bet
    best: Fraction | None = None
    prob: Fraction | float | None = 0
    exact, hows = True, []
    for key, base in keyed.by_key().items():
        value = Fraction(int(base.wins[-1]), scale)
        # exact counts, or float probabilities (a float base law: round_distribution)
        top = base.weights[-1]
        p: Fraction | float | None = (
            Fraction(int(top), keyed.cycle) if base.exact else float(top) / keyed.cycle
        )
        ex, how = True, []
        for f in features:
            fk = _feature_key(key, features, triggers, f)
            if not f.triggers(fk):
                continue
            t = award_top(f, fk)
            if t.value is None:  # no largest win: every cap is passed
                return t if round_cap is None else cap_max_win(round_cap, distribution)
            value += t.value
            p = None if p is None or t.probability is None else p * t.probability
            ex = ex and t.exact
            how.append(f"{f.name.replace('_', ' ')}: {t.how}")  # the feature in words
        if best is None or value > best:
            best, prob, exact, hows = value, p, ex, how
        elif value == best:
            prob = None if prob is None or p is None else prob + p
            exact = exact and ex
            hows += [h for h in how if h not in hows]
    ensure(best is not None, "round.py: expected best is not None")
    if round_cap is not None and best > round_cap:
        return cap_max_win(round_cap, distribution)
    words = "largest base win of a window plus the largest award of each feature it starts"
    if hows:
        words += " (" + "; ".join(hows) + ")"
    if prob is None:
        exact = False
    return MaxWin(best, prob, exact and isinstance(prob, Fraction), words)


def cap_max_win(round_cap, distribution: WinDistribution | None) -> MaxWin:
    """The max win of a round whose uncapped wins pass ``round_cap`` [x total
    bet]: the cap, with the probability the capped float ``distribution``
    gives it when it resolves it (its top is the cap), else None (its top is
    then a smaller win, whose odds are not the cap's)."""
    capped = "the round cap (every win above it pays the cap)"
    if distribution is None:
        return MaxWin(Fraction(round_cap), None, False, capped)
    if distribution.max_win == Fraction(round_cap):
        top = float(distribution.max_win_probability)
        return MaxWin(Fraction(round_cap), top, False, f"{capped}; odds from the float distribution")
    return MaxWin(
        Fraction(round_cap),
        None,
        False,
        f"{capped}; its probability is below the float distribution's resolution (largest win "
        f"resolved: {float(distribution.max_win):g} x total bet)",
    )


def trigger_key_probability(game, trigger: Trigger, reel_set: str = "base") -> dict:
    """Exact ``{key: P(key)}`` of one trigger on the base window: reels are
    independent, so a per-reel key's probability is the product of its
    reels' count probabilities, and a total count's the convolution; with a
    top reel, the mix over its windows (:mod:`slotmath.engine.topreel`)."""
    from slotmath.engine.topreel import has_top, mix_probabilities, top_games

    if has_top(game):
        return mix_probabilities(
            [(w, trigger_key_probability(g, trigger, reel_set)) for w, g in top_games(game, reel_set)]
        )
    from itertools import product

    from slotmath.engine.reels import count_distribution, reel_digits, reel_radix

    per_reel = []
    for strip in game.strips(reel_set):
        counts = count_distribution(
            reel_digits(game, strip, trigger), strip.stop_weights(), reel_radix(game, trigger)
        )
        total = int(counts.sum())
        per_reel.append({c: Fraction(int(n), total) for c, n in enumerate(counts.tolist()) if n})
    out: dict = {}
    for combo in product(*(d.items() for d in per_reel)):
        key = tuple(c for c, _ in combo) if trigger.per_reel else sum(c for c, _ in combo)
        p = Fraction(1)
        for _, q in combo:
            p *= q
        out[key] = out.get(key, 0) + p
    return out


def feature_means(features, key_probability: dict) -> dict:
    """Each feature's RTP component [x total bet] from ``{feature name: {key:
    P(key)}}`` (its own key items): ``sum_key P(key) mean(key)`` over the
    triggering keys (exact when the means and probabilities are)."""
    out: dict = {}
    for f in features:
        probs = key_probability[f.name]
        out[f.name] = out.get(f.name, 0) + sum(
            (p * f.mean(k) for k, p in probs.items() if f.triggers(k)), Fraction(0)
        )
    return out


@dataclass(frozen=True)
class RoundMoments:
    """Moments of the round's total win without its distribution: ``hit_frequency``
    P(win > 0) [probability] and ``second_moment`` E[win^2] [(x total bet)^2]
    (float64)."""

    hit_frequency: float
    second_moment: float


def round_moments(keyed, features) -> RoundMoments:
    """Hit frequency and second moment of the round's total win ``T = B +
    sum_f A_f`` from the joint law of (base win B, key) and each started
    feature's award moments, the awards being independent given the key:
    ``E[T^2 1{key}] = E[B^2 1{key}] + 2 E[B 1{key}] sum_f m_f + P(key) E[(sum_f
    A_f)^2 | key]`` and ``P(T = 0, key) = P(B = 0, key) prod_f P(A_f = 0 | key)``
    (an award's zero probability is read only where a window that starts it
    may pay nothing).  No convolution: the cost is one pass over the keyed
    law and each feature's award moments per key."""
    triggers = round_triggers(features)
    scale = float(keyed.unit_den * keyed.total_bet)
    cycle = float(keyed.cycle)
    keys = sorted(set(keyed.keys))
    index = {k: i for i, k in enumerate(keys)}
    at = np.fromiter((index[k] for k in keyed.keys), dtype=np.int64, count=len(keyed.keys))
    w = keyed.wins.astype(float) / scale
    c = np.asarray(keyed.counts, dtype=float) / cycle
    p_key = np.bincount(at, weights=c, minlength=len(keys))
    b1 = np.bincount(at, weights=w * c, minlength=len(keys))
    b2 = np.bincount(at, weights=w * w * c, minlength=len(keys))
    b0 = np.bincount(at, weights=np.where(keyed.wins == 0, c, 0.0), minlength=len(keys))
    second = float(b2.sum())
    means = np.zeros(len(keys))  # sum of the started awards' means per key, so far
    zero = b0.copy()  # P(T = 0, key), so far
    for f in features:
        started = [(i, _feature_key(k, features, triggers, f)) for i, k in enumerate(keys)]
        started = [(i, fk) for i, fk in started if f.triggers(fk)]
        if not started:
            continue
        rows = np.array([i for i, _ in started])
        items = [fk for _, fk in started]
        m1 = np.array([float(f.mean(fk)) for fk in items])
        # E[(B + S + A)^2] - E[(B + S)^2] = 2 (E[B] + E[S]) E[A] + E[A^2], S the awards before A
        second += float(np.dot(2 * (b1[rows] + means[rows] * p_key[rows]), m1))
        second += float(np.dot(p_key[rows], _award_second_moments(f, items)))
        means[rows] += m1
        may = zero[rows] > 0  # windows that may still pay nothing
        if may.any():
            zero[rows[may]] *= _award_zero_probabilities(
                f, [fk for fk, m in zip(items, may, strict=True) if m]
            )
    return RoundMoments(1.0 - float(zero.sum()), second)


def _award_laws(f: Feature, items: list) -> tuple:
    """``(laws, rows)``: the award laws of ``f`` and, per key item of
    ``items``, the probability of each law (its parts' mixture, or one law
    per group)."""
    if f.parts is not None and f.mixture is not None:
        laws = f.parts()
        mix = [np.asarray(f.mixture(items[lo : lo + 4096]), dtype=float) for lo in range(0, len(items), 4096)]
        return laws, np.vstack(mix)
    groups: dict = {}
    for fk in items:
        groups.setdefault(f.group(fk), fk)
    pos = {g: j for j, g in enumerate(groups)}
    rows = np.zeros((len(items), len(pos)))
    rows[np.arange(len(items)), [pos[f.group(fk)] for fk in items]] = 1.0
    return [f.award(fk) for fk in groups.values()], rows


def _award_second_moments(f: Feature, items: list) -> np.ndarray:
    """``E[A^2 | key]`` of ``f`` per key item [(x total bet)^2]: its own
    ``second_moment`` or from its award laws."""
    if f.second_moment is not None:
        return np.array([float(f.second_moment(fk)) for fk in items])
    laws, rows = _award_laws(f, items)
    return rows @ np.array([float(np.dot(law.x * law.x, law.probabilities)) for law in laws])


def _award_zero_probabilities(f: Feature, items: list) -> np.ndarray:
    """``P(A = 0 | key)`` of ``f`` per key item [probability], from its award laws."""
    laws, rows = _award_laws(f, items)
    return rows @ np.array([float(law.probabilities[law.wins == 0].sum()) for law in laws])


def _round_distribution(keyed, features, triggers, source: object = ""):
    """Float law of the round's total win on the least common win unit, and the
    points it drops below :data:`RESOLVED`: (wins [x total bet], probabilities)."""
    by_key = keyed.by_key()
    plan: dict = {}  # (group of each triggered feature) -> [(features, key item), ...] and base wins
    mixed: dict = {}  # feature with parts, started alone -> ([key item], [base wins of the key])
    for key, base in by_key.items():
        started = tuple(
            (f, _feature_key(key, features, triggers, f))
            for f in features
            if f.triggers(_feature_key(key, features, triggers, f))
        )
        if len(started) == 1 and started[0][0].mixture is not None:
            entry = mixed.setdefault(started[0][0], ([], []))
            entry[0].append(started[0][1])
            entry[1].append(base)
            continue
        label = tuple((f.name, f.group(fk)) for f, fk in started)
        entry = plan.setdefault(label, [started, {}])
        for w, c in zip(base.wins.tolist(), base.weights.tolist(), strict=True):
            entry[1][w] = entry[1].get(w, 0) + c
    awards = {label: [f.award(fk) for f, fk in started] for label, (started, _) in plan.items() if started}
    laws = {f: f.parts() for f in mixed}
    den = lcm(
        keyed.unit_den,
        *(a.unit_den for laws_ in awards.values() for a in laws_),
        *(a.unit_den for parts_ in laws.values() for a in parts_),
    )
    _check_points(plan, awards, mixed, laws, keyed, den, source)
    parts = []
    for label, (_, base_counts) in plan.items():
        hist = dense_points({w * (den // keyed.unit_den): c / keyed.cycle for w, c in base_counts.items()})
        for law in awards.get(label, []):
            hist = convolve_probabilities(hist, _hist_on(law, den))
        parts.append(hist)
    for f, (items, bases) in mixed.items():
        parts += _mixed_parts(f, items, bases, laws[f], keyed, den)
    total = np.zeros(max(len(p) for p in parts))
    for p in parts:
        total[: len(p)] += p
    keep = total >= RESOLVED
    drop = np.flatnonzero(~keep & (total > 0))
    tail = (drop / (den * keyed.total_bet), total[drop])  # [x total bet], [probability]
    total[~keep] = 0.0
    return WinDistribution.from_histogram(total, den, keyed.total_bet), tail


def _check_points(plan: dict, awards: dict, mixed: dict, laws: dict, keyed, den: int, source: object) -> None:
    """Refuse (:class:`EngineTooLarge`, naming the feature's field) a round whose
    dense histogram on the lattice of 1/``den`` coins would pass
    :data:`MAX_ROUND_POINTS` points: the largest base win plus the largest
    award of the features it starts, each in that unit, before any array is
    taken (a prize or multiplier of 10**9 x total bet spreads a few outcomes
    over 10**9 and more points)."""

    def top(law: WinDistribution) -> int:
        return int(law.wins.max()) * (den // law.unit_den) if len(law.wins) else 0

    step = den // keyed.unit_den
    worst, whose = 0, None
    for label, (started, base_counts) in plan.items():
        tops = [(top(a), f) for a, (f, _) in zip(awards.get(label, []), started, strict=True)]
        n = max(base_counts) * step + sum(t for t, _ in tops)
        if n > worst:
            worst, whose = n, max(tops, key=lambda tf: tf[0])[1] if tops else None
    for f, (_, bases) in mixed.items():
        n = max(int(b.wins.max()) for b in bases if len(b.wins)) * step + max(map(top, laws[f]), default=0)
        if n > worst:
            worst, whose = n, f
    if worst + 1 > MAX_ROUND_POINTS:
        field = f"options.{whose.name}" if whose is not None else ""
        most = worst / (den * keyed.total_bet)
        raise EngineTooLarge(
            f"the round's win distribution would need {worst + 1:.3e} points (wins up to {most:.4g} "
            f"x total bet in steps of 1/{den * keyed.total_bet:,} of the total bet), more than the "
            f"bound {MAX_ROUND_POINTS:,}; lower the feature's largest prize or multiplier (slotmath "
            "simulate plays it)",
            file=source,
            field=field,
        )


def _hist_on(law: WinDistribution, den: int) -> np.ndarray:
    """Dense probabilities of ``law`` on the lattice of 1/``den`` coins."""
    step = den // law.unit_den
    return dense_points(dict(zip((law.wins * step).tolist(), law.probabilities.tolist(), strict=True)))


def _mixed_parts(f: Feature, items: list, bases: list, laws: list, keyed, den: int) -> list:
    """Per part of ``f``'s mixture, its base wins (those of every key, weighted
    by P(part | key), summed in one matrix product per chunk of keys)
    convolved with the part's law: dense histograms on 1/``den`` coins."""
    wins = np.unique(np.concatenate([b.wins for b in bases]))
    acc = np.zeros((len(laws), len(wins)))
    for lo in range(0, len(items), 4096):
        mix = np.asarray(f.mixture(items[lo : lo + 4096]), dtype=float)  # (keys, parts)
        base = np.zeros((mix.shape[0], len(wins)))
        for i, b in enumerate(bases[lo : lo + 4096]):
            base[i, np.searchsorted(wins, b.wins)] = np.asarray(b.weights, dtype=float) / keyed.cycle
        acc += mix.T @ base
    out = []
    scale = den // keyed.unit_den
    for law, row in zip(laws, acc, strict=True):
        if row.any():
            hist = np.zeros(int(wins[-1]) * scale + 1)
            hist[wins * scale] = row
            out.append(convolve_probabilities(hist, _hist_on(law, den)))
    return out


def dense_points(points: dict) -> np.ndarray:
    """Dense probabilities of ``{win unit: probability}``; a law spread over
    more than :data:`MAX_ROUND_POINTS` points is refused
    (:class:`EngineTooLarge` naming ``options``: a prize or multiplier far
    above the game's smallest win unit) before the array is taken."""
    if max(points) + 1 > MAX_ROUND_POINTS:
        raise EngineTooLarge(
            f"a feature's win law would need {max(points) + 1:.3e} points on the game's smallest win unit, "
            f"more than the bound {MAX_ROUND_POINTS:,}; lower the feature's largest prize or multiplier "
            "(slotmath simulate plays it)",
            field="options",
        )
    out = np.zeros(max(points) + 1)
    for w, p in points.items():
        out[w] += float(p)
    return out


def convolve_probabilities(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Convolution of two probability vectors (direct when small, FFT otherwise), negatives clipped."""
    if min(len(a), len(b)) <= 64 or len(a) * len(b) <= 1 << 22:
        out = np.convolve(a, b)
    else:
        from scipy.signal import fftconvolve

        out = fftconvolve(a, b)
    return np.maximum(out, 0.0)


def cap_distribution(dist: WinDistribution, cap: Fraction) -> tuple:
    """``dist`` with every win above ``cap`` [x total bet] paid as the cap, and
    ``E[(T - cap)+]`` [x total bet] (float)."""
    at = cap * dist.unit_den * dist.total_bet
    if at.denominator != 1:
        den = dist.unit_den * at.denominator
        dist = WinDistribution(dist.wins * at.denominator, dist.weights, den, dist.total_bet)
        at = cap * den * dist.total_bet
    top = int(at)
    above = dist.wins > top
    if not above.any():
        return dist, 0.0
    p = dist.probabilities
    over = float(np.dot(dist.wins[above] - top, p[above]) / (dist.unit_den * dist.total_bet))
    wins = [*dist.wins[~above].tolist(), top]
    weights = [*(p[~above] * float(dist.total)).tolist(), float(p[above].sum()) * float(dist.total)]
    pairs = zip(wins, weights, strict=True)
    merged = WinDistribution.from_pairs(pairs, dist.unit_den, dist.total_bet)
    return merged, over


def cap_note(cap: Fraction) -> str:
    """The method note of a round cap [x total bet]."""
    return (
        f"Round cap: a round pays at most {float(cap):g} x total bet; the distribution "
        "and the RTP are the capped ones (component round_cap = -E[(win - cap)+], float)."
    )
