"""Declared free games of a line or ways game as a feature of the generic round.

The free spin's joint law of (pay + scatter win, trigger count) comes from
the pay rule's forward pass with the trigger count as one more state digit
(:meth:`slotmath.engine.pays.PayRule.key_distribution`: lines or ways),
on the free games' reel set (after the expanding wild, if any).  It gives the per-spin
table of (win, extra games) that :class:`~slotmath.features.freegames.FreeGames`
takes, as sparse integer counts: no free-game cycle is listed.

Per free spin (before the multiplier): ``Y`` = the spin's line win, plus
its scatter pays unless ``scatter_pays: false``, plus the prize of the
retrigger count; ``K`` = the games of ``retrigger_awards`` (default: the
trigger ``awards``) for that count, 0 without retriggers.  The feature from
``n`` games pays ``multiplier x sum Y`` over all games played, at most
``max_games`` of them.

Exact: the mean (renewal moments, or the capped recursion) is a Fraction.
The award law is float: uncapped, the fixed point of the win generating
function on an FFT grid (:func:`~slotmath.features.freegames.fourier_distribution`)
whose size puts the wrapped mass below :data:`ALIAS_BOUND` by Chernoff's
bound (:func:`~slotmath.features.freegames.grid_size`); capped, the forward DP over games played
(:func:`~slotmath.features.freegames.win_distribution`), or where that
would take too long the same recursion on an FFT grid
(:func:`~slotmath.features.freegames.capped_fourier_distribution`,
:func:`~slotmath.features.freegames.capped_probabilities`).
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from math import fsum

import numpy as np

from slotmath.engine.cache import game_cache
from slotmath.engine.distribution import MaxWin, WinDistribution
from slotmath.errors import InternalError
from slotmath.features.carried import carried_feature
from slotmath.features.cost import counted
from slotmath.features.expanding import nudged_game
from slotmath.features.freegames import ALIAS_BOUND, FreeGames, award_probabilities
from slotmath.features.freespin import award_distribution, award_group, awards_added, keyed_free_spins
from slotmath.features.kinds import Buy, FeatureKind
from slotmath.features.options import FreeGamesSpec
from slotmath.features.persist import persist_feature, persists
from slotmath.features.round import Feature, award_top
from slotmath.model import Game

__all__ = [
    "free_spin_counts",
    "free_games_feature_of",
    "free_games_feature",
]


def held_free_spins(game: Game, level: int, spec: FreeGamesSpec, held: Feature | None) -> tuple:
    """:func:`slotmath.features.freespin.keyed_free_spins` of the free reel
    set as played, keyed by ``held``'s trigger too when given."""
    g = nudged_game(game, spec.reels, spec.nudge)
    return keyed_free_spins(game, g, level, spec, () if held is None else (held.trigger,))


def free_spin_counts(
    game: Game, level: int, spec: FreeGamesSpec, held: Feature | None = None, spins: tuple | None = None
):
    """Per free spin, sparse exact counts of (win [1/unit_den coins], extra games).

    Returns
    -------
    wins, extra, counts : list of int
    unit_den : int
        Win units per coin (the line engine's, refined by fractional prizes).
    key_counts : dict
        Stop combinations of the free reel set by trigger count.

    With ``held`` (the feature a free game's window plays,
    :func:`slotmath.features.infree.inside_feature`) the spin is
    keyed by its trigger too, and the tables leave its award out; it is
    :func:`held_spin_table`'s.  ``spins``: :func:`held_free_spins`, when
    already computed.
    """
    lead = () if held is None else (held.trigger,)
    entries, den, kw = spins or held_free_spins(game, level, spec, held)
    acc: dict = {}
    for y, _, n, c in entries:
        at = (y, spec.retrigger_games(n))
        acc[at] = acc.get(at, 0) + c
    wins = [y for y, _ in acc]
    extra = [k for _, k in acc]
    by_count: dict = {}
    for key, c in kw.key_counts().items():
        n = spec.count_of(key[len(lead)])
        by_count[n] = by_count.get(n, 0) + c
    return wins, extra, list(acc.values()), den, by_count


def held_spin_table(
    game: Game, level: int, spec: FreeGamesSpec, held: Feature, spins: tuple | None = None
) -> tuple:
    """A free spin whose window may trigger the feature ``held`` (a
    hold-and-spin, wheel or selection: :mod:`slotmath.features.infree`):
    ``(mean, table, den, probs)``, ``mean`` the exact mean of its award per
    free spin [x total bet] (``sum_key P(key) mean(key)``), ``table`` the
    float law of (win with the award, extra games) [probability], indexed by
    win [1/``den`` coins] and extra games, ``probs`` = {triggering key:
    P(key) per free spin} (exact).  ``spins``: :func:`held_free_spins`, when
    already computed."""
    entries, den, _ = spins or held_free_spins(game, level, spec, held)
    total = sum(c for *_, c in entries)
    reps: dict = {}  # award group -> (its index, a key of it)
    at: dict = {}  # key -> index of its award group (-1: no award)
    extra: dict = {}  # trigger count -> extra games
    ys, ks, gs, cs = [], [], [], []
    starts: dict = {}  # triggering key -> count
    for y, lead, n, c in entries:
        key = lead[0]
        if key not in at:
            at[key] = award_group(held, key, reps)
        if n not in extra:
            extra[n] = spec.retrigger_games(n)
        if at[key] >= 0:
            starts[key] = starts.get(key, 0) + c
        ys.append(y)
        ks.append(extra[n])
        gs.append(at[key])
        cs.append(c)
    by_group = [0] * len(reps)
    for g, c in zip(gs, cs, strict=True):
        if g >= 0:
            by_group[g] += c
    keys = [key for _, key in reps.values()]
    mean = sum(
        (Fraction(c, total) * held.mean(key) for c, key in zip(by_group, keys, strict=True)), Fraction(0)
    )
    laws = [held.award(key) for key in keys]
    # one row per (win, extra games, group): its probability, then the group's award added
    rows, inverse = np.unique(np.array([ys, ks, gs], dtype=np.int64), axis=1, return_inverse=True)
    counts = np.zeros(rows.shape[1], dtype=object)
    np.add.at(counts, inverse.ravel(), np.array(cs, dtype=object))
    p = np.array([c / total for c in counts.tolist()])
    table, unit = awards_added(rows[0], rows[1], rows[2], p, den, laws)
    return mean, table, unit, {key: Fraction(c, total) for key, c in starts.items()}


def extra_games_mean(game: Game, spec: FreeGamesSpec) -> Fraction:
    """Mean number of games one free game adds, ``E[K]`` (exact, from the
    per-reel counts of the trigger symbol on the free reel set; reel heights
    written into the strips, as every window figure reads them)."""
    from slotmath.engine.reels import height_game
    from slotmath.features.round import trigger_key_probability

    g = height_game(nudged_game(game, spec.reels, spec.nudge))
    probs = trigger_key_probability(g, spec.trigger, spec.reels)
    return sum((p * spec.retrigger_games(spec.count_of(c)) for c, p in probs.items()), Fraction(0))


def refuse_endless(game: Game, spec: FreeGamesSpec, ek: Fraction | None = None) -> None:
    """Refuse retriggered free games without ``max_games`` whose mean number of
    added games ``ek`` (:func:`extra_games_mean` when None) is 1 or more: they
    would never end (:class:`~slotmath.io.gamefile.GameFileError`)."""
    if spec.max_games is not None or not spec.retrigger:
        return
    ek = extra_games_mean(game, spec) if ek is None else ek
    if ek >= 1:
        from slotmath.io.gamefile import GameFileError

        field = "retrigger_awards" if spec.retrigger_awards else "awards"
        raise GameFileError(
            game.source,
            f"options.free_games.{field}",
            f"free games would never end: each game adds {counted(ek, 'game')} on average "
            "(must be below 1); give max_games or award fewer games",
        )


def declared(game: Game) -> FreeGamesSpec:
    """The declared free games of ``game`` (``options.free_games``)."""
    from slotmath.features.options import load_features

    spec = load_features(game).free_games
    if spec is None:
        raise InternalError(f"{game.name}: no options.free_games")
    return spec


def played_sets(game: Game, level: int) -> tuple:
    """The reel sets the declared free games read: those they play and
    those of the feature their windows play (a hold-and-spin's respins:
    :attr:`~slotmath.features.kinds.FeatureKind.free_sets`)."""
    from slotmath.features.infree import inside_kind

    sets = set(declared(game).reel_sets())
    kind = inside_kind(game)
    if kind is not None:
        sets |= kind.free_sets(game)
    return tuple(sorted(sets))


@game_cache(played_sets, maxsize=16)
def free_games_feature(game: Game, level: int) -> Feature:
    """The declared free games as a round :class:`Feature`
    (:func:`free_games_feature_of`), cached on the rules and the strips of
    the reel sets they read (:func:`played_sets`): a tuning candidate that
    moves only base strips the free games do not play reuses them, award
    laws and moments included."""
    return free_games_feature_of(game, level, declared(game))


def free_games_feature_of(game: Game, level: int, spec: FreeGamesSpec) -> Feature:
    """The declared free games as a round :class:`Feature` (component ``free_games``).

    The base window's key is the count of ``spec.symbol``; counts with games
    in ``spec.awards`` trigger, paying ``prize(count)`` [x total bet] plus
    the free games started with ``games(count)``; with a reel set per count
    (``awards.<count>.reels``) those free games play that set
    (:func:`by_reel_set`).
    """
    if spec.reels_by_count is not None:
        return by_reel_set(
            spec, {s: free_games_feature_of(game, level, spec.playing(s)) for s in spec.reel_sets()}
        )
    if spec.sticky is not None:
        from slotmath.features.sticky import sticky_feature_of

        return sticky_feature_of(game, level, spec)
    from slotmath.features.infree import inside_feature

    declared_game, drawn = game, drawn_game(game)
    if drawn is not None:  # drawn multipliers not written as stops: the spin table without them
        game = drawn
    inside, held = inside_feature(game, level, spec.reels)  # the feature a free game's window plays
    spins = held_free_spins(game, level, spec, held)
    wins, extra, counts, den, by_count = free_spin_counts(game, level, spec, held, spins)
    scale = den * game.bet(level).total_bet
    cap = spec.max_games
    refuse_endless(game, spec, Fraction(sum(k * c for k, c in zip(extra, counts, strict=True)), sum(counts)))

    @cache
    def games_law(n: int, mult: Fraction = spec.multiplier) -> FreeGames:
        from slotmath.engine.limits import EngineTooLarge

        fg = FreeGames.from_counts(wins, extra, counts, n, mult, max_spins=cap, exact=True)
        try:
            fg.mean  # noqa: B018 (the exact moments, their cost estimated first)
        except EngineTooLarge as exc:  # one line naming the file and the field
            raise EngineTooLarge(
                exc.problem, file=game.source or game.name, field="options.free_games.max_games"
            ) from None
        return fg

    # the feature in the free games: its exact mean award per free spin, its
    # float table and its starts (with drawn multipliers the undrawn spin's
    # mean and starts: no trigger reads the draws)
    in_free_mean, held_table, held_den, held_probs = (
        (Fraction(0), None, den, {}) if held is None else held_spin_table(game, level, spec, held, spins)
    )
    shift = Fraction(0)  # the draws' exact mean shift of one free spin [x total bet]
    held_title = "" if inside is None else inside.title
    if drawn is not None:  # per free spin: the draws' mean shift, the float law with them
        from slotmath.features.drawnwayslaw import drawn_free_spin_table

        # the games' exact moments first (their cost, from max_games, is known
        # now; the draws' law takes minutes on real reels): a refusal comes first
        for n, mult in {(spec.games(c), spec.multiplier_of(c)) for c in spec.awards if spec.games(c) > 0}:
            games_law(n, mult)
        shift, held_table, held_den = drawn_free_spin_table(declared_game, level, spec, held)
        held_title = "drawn wild multipliers" + (f" and {held_title}" if held_title else "")
    held_mean = shift + in_free_mean

    def mean(count):
        fg = games_law(spec.games(count), spec.multiplier_of(count))
        # a feature in the free games: Wald's identity, E[games played] x E[award per game]
        return spec.prize(count) + fg.mean / scale + spec.multiplier_of(count) * fg.spins_mean * held_mean

    @cache
    def held_law(n: int) -> FreeGames:  # per game: (win with the feature's award, extra games)
        return FreeGames(held_table, n, 1.0, max_spins=cap)

    @cache
    def award_of(n: int, prize: Fraction, mult: Fraction) -> WinDistribution:
        from slotmath.engine.limits import EngineTooLarge

        law = games_law(n) if held_table is None else held_law(n)
        try:
            probs = award_probabilities(law)
        except EngineTooLarge as exc:  # one line naming the file and the feature
            field = "options.free_games" if cap is None else "options.free_games.max_games"
            raise EngineTooLarge(exc.problem, file=game.source or game.name, field=field) from None
        return award_distribution(probs, 1, held_den, mult, prize, game.bet(level).total_bet)

    def award(count):
        return award_of(spec.games(count), spec.prize(count), spec.multiplier_of(count))

    def second_moment(count) -> float:
        """``E[award^2]`` [(x total bet)^2] from the renewal moments of the
        games (no award law): ``prize^2 + 2 prize m1 + m2``."""
        n, prize, mult = spec.games(count), spec.prize(count), spec.multiplier_of(count)
        if held_table is None:
            fg, unit = games_law(n, mult), float(scale)
        else:
            fg, unit = held_law(n), held_den * game.bet(level).total_bet / float(mult)
        m1, m2 = float(fg.mean) / unit, float(fg.second_moment) / unit**2
        return float(prize) ** 2 + 2 * float(prize) * m1 + m2

    spin_mean = Fraction(sum(w * c for w, c in zip(wins, counts, strict=True)), sum(counts) * scale)
    spin_mean += held_mean

    def odds(keys: dict) -> dict:
        key_p: dict = {}  # by the count awards are read by
        for k, q in keys.items():
            key_p[spec.count_of(k)] = key_p.get(spec.count_of(k), 0) + q
        p = sum(key_p.values(), Fraction(0))
        if p == 0:
            return {"trigger_probability": 0.0}
        games = sum((q * games_law(spec.games(c)).spins_mean for c, q in key_p.items()), Fraction(0)) / p
        award_mean = sum((q * mean(c) for c, q in key_p.items()), Fraction(0)) / p
        fg = games_law(spec.games(min(key_p)))
        retrigger = sum(c for k, c in zip(extra, counts, strict=True) if k > 0)
        by_count = {
            str(c): {
                "probability": float(q),
                "games": spec.games(c),
                "mean_games_played": float(games_law(spec.games(c)).spins_mean),
                "mean_award": float(mean(c)),
                "games_played": games_played(extra, counts, spec.games(c), cap),
            }
            | ({"multiplier": float(spec.multiplier_of(c))} if spec.multipliers else {})
            for c, q in sorted(key_p.items())
        }
        mult = sum((q * spec.multiplier_of(c) for c, q in key_p.items()), Fraction(0)) / p
        rates = {"free_games": float(p), "free_games_played": float(p * games)}
        held_figures = {} if held is None else {f"{inside.key}_per_free_game": float(in_free_mean)}
        if drawn is not None:  # the draws' exact mean shift of one free spin [x total bet]
            held_figures["drawn_multipliers_per_free_game"] = float(shift)
        if held is not None and held.odds is not None:
            weighted = sum(
                (q * spec.multiplier_of(c) * games_law(spec.games(c)).spins_mean for c, q in key_p.items()),
                Fraction(0),
            )
            per_round = inside.free_figures(held.odds(held_probs), p * games, weighted)
            rates |= per_round.pop("event_rates")
            held_figures[f"{inside.key}_in_free_games"] = per_round
        return {
            "trigger_probability": float(p),
            "trigger_one_in": float(1 / p),
            "mean_games": float(games),
            "mean_award": float(award_mean),
            "retrigger_probability": float(retrigger / sum(counts)),
            "multiplier": float(mult),  # by count: its mean given a trigger
            "free_spin_mean": float(spin_mean),
            **held_figures,
            "by_count": by_count,
            "extra_games_per_game": float(fg.retrigger_mean),
            # expected count per round of the round sampler's free-games events
            "event_rates": rates,
        }

    def group(count):
        return (spec.games(count), spec.prize(count), spec.multiplier_of(count))

    @cache  # once per trigger count (round_max_win asks per key of the base window)
    def top(count) -> MaxWin:
        if held_table is not None:
            return held_games_top(held_title, held_table, held_den * game.bet(level).total_bet, spec, count)
        return games_top(wins, extra, counts, scale, spec, count)

    at = spec.count_of  # a key of spec.trigger -> the count awards are read by
    feature = Feature(
        "free_games",
        spec.trigger,
        lambda key: spec.games(at(key)) > 0,
        lambda key: mean(at(key)),
        lambda key: award(at(key)),
        lambda key: group(at(key)),
        odds,
        top=lambda key: top(at(key)),
        second_moment=lambda key: second_moment(at(key)),
    )
    if persists(game):
        return persist_feature(game, level, spec, feature)
    return carried_feature(game, level, spec, feature) if carries(game) else feature


def drawn_game(game: Game) -> Game | None:
    """``game`` without its drawn wild multipliers when they do not fit as
    stops (:func:`slotmath.features.wildmult.rewrite_refusal`): its free
    spins' counts are the undrawn game's, their draws added by
    :func:`slotmath.features.drawnlaw.drawn_free_table`; None otherwise."""
    if not isinstance(game.options, dict) or "wild_multipliers" not in game.options:
        return None
    from dataclasses import replace

    from slotmath.features.wildmult import rewrite_refusal

    if rewrite_refusal(game) is None:
        return None
    return replace(game, options={k: v for k, v in game.options.items() if k != "wild_multipliers"})


def carries(game: Game) -> bool:
    """True when the free games' tumble progression carries on through the
    round (``options.tumble.reset: round``, :mod:`slotmath.features.carried`)."""
    from slotmath.engine.tumble_spec import tumble_spec

    spec = tumble_spec(game)
    return spec is not None and spec.carried


#: The odds figures of one reel set's free spins, listed per set under ``by_reel_set``.
PER_SET_FIGURES = (
    "retrigger_probability",
    "free_spin_mean",
    "extra_games_per_game",
    "hold_and_spin_per_free_game",
    "drawn_multipliers_per_free_game",
)


def by_reel_set(spec: FreeGamesSpec, subs: dict) -> Feature:
    """The free games whose trigger count picks their reel set: ``subs[name]``
    the feature of the same declaration played on reel set ``name`` alone
    (:meth:`FreeGamesSpec.playing`); the key's count (:meth:`FreeGamesSpec.count_of`)
    chooses the set, the games it starts (retriggers included) play it.  Its
    odds sum the sets' over their trigger counts; each set's per-spin figures
    are listed under ``by_reel_set``."""

    def sub(key) -> Feature:
        return subs[spec.reels_of(spec.count_of(key))]

    def odds(keys: dict) -> dict:
        parts = {}
        for name, f in subs.items():
            mine = {k: q for k, q in keys.items() if spec.reels_of(spec.count_of(k)) == name}
            if mine and f.odds is not None:
                parts[name] = (sum(mine.values(), Fraction(0)), f.odds(mine))
        p = sum((q for q, _ in parts.values()), Fraction(0))
        if p == 0:
            return {"trigger_probability": 0.0}

        def mean_of(name: str) -> float:  # a figure's mean given a trigger
            return sum(float(q) * fig[name] for q, fig in parts.values()) / float(p)

        by_count: dict = {}
        for set_name, (_, fig) in parts.items():
            for c, v in fig["by_count"].items():
                by_count[c] = v | {"reels": set_name}
        rates = {
            e: sum(fig["event_rates"][e] for _, fig in parts.values())
            for e in ("free_games", "free_games_played")
        }
        return {
            "trigger_probability": float(p),
            "trigger_one_in": float(1 / p),
            "mean_games": mean_of("mean_games"),
            "mean_award": mean_of("mean_award"),
            "multiplier": mean_of("multiplier"),
            "by_count": dict(sorted(by_count.items(), key=lambda kv: int(kv[0]))),
            "by_reel_set": {
                name: {"trigger_probability": float(q)} | {k: fig[k] for k in PER_SET_FIGURES if k in fig}
                for name, (q, fig) in parts.items()
            },
            "event_rates": rates,
        }

    return Feature(
        "free_games",
        spec.trigger,
        lambda key: sub(key).triggers(key),
        lambda key: sub(key).mean(key),
        lambda key: sub(key).award(key),
        lambda key: (spec.reels_of(spec.count_of(key)), sub(key).group(key)),
        odds,
        top=lambda key: award_top(sub(key), key),
    )


#: Least probability of a number of games played that the feature's figures list.
GAMES_SHOWN = 1e-9
#: Least mass of the games-played counts not listed that the sheet's table
#: shows as a row of its own (below it, float64 rounding of ``1 - sum``).
GAMES_REST_SHOWN = 1e-13
#: Most games played the distribution of games played follows.
MAX_GAMES_SHOWN = 100_000


def games_played(extra, counts, start: int, cap: int | None = None, tol: float = 1e-12) -> list:
    """Distribution of the number of free games played from ``start`` games
    [probability], from the per-game law of the extra games (``extra``,
    ``counts``: stop combinations of each row of the free-spin table), at
    most ``cap`` games in all: forward over games played, the state the games
    left (float64), until the mass still playing is below ``tol``.  The counts
    of probability at least :data:`GAMES_SHOWN`, as JSON-ready records."""
    total = sum(counts)
    law: dict = {}
    for k, c in zip(extra, counts, strict=True):
        law[int(k)] = law.get(int(k), 0) + c / total
    left = np.zeros((min(start, cap) if cap else start) + 1)
    left[-1] = 1.0
    out, played = [], 0
    while left[1:].sum() > tol and played < MAX_GAMES_SHOWN:
        live = left[1:]  # live[i]: i + 1 games left
        new = np.zeros(len(live) + max(law))
        for k, q in law.items():
            new[k : k + len(live)] += q * live  # one game played, k added
        played += 1
        if cap is not None and len(new) > cap - played + 1:  # the games beyond the cap are not played
            new[cap - played] += new[cap - played + 1 :].sum()
            new = new[: cap - played + 1]
        if new[0] >= GAMES_SHOWN:
            out.append({"games": played, "probability": float(new[0])})
        new[0] = 0.0
        left = new
    return out


def games_top(wins, extra, counts, scale: int, spec: FreeGamesSpec, count: int) -> MaxWin:
    """The largest award of the free games that ``count`` trigger symbols
    start [x total bet] and its probability, from the per-free-spin table
    (``wins`` [1/unit coins], ``extra`` games, ``counts`` stop combinations;
    ``scale`` win units per total bet).  Without a retrigger every one of the
    ``games(count)`` games at the largest free-spin win (exact); with
    retriggers and ``max_games`` the exact largest award and its odds
    (:func:`capped_top`; a bound of ``max_games`` games each at that win when
    the walk passes :data:`MAX_TOP_STATES`); with retriggers and no limit no
    largest win."""
    top = max(wins)
    p_top = Fraction(sum(c for w, c in zip(wins, counts, strict=True) if w == top), sum(counts))
    mult, prize = Fraction(spec.multiplier_of(count)), spec.prize(count)
    if not any(k > 0 for k, c in zip(extra, counts, strict=True) if c):
        n = spec.games(count)
        return MaxWin(
            prize + mult * n * Fraction(top, scale),
            p_top**n,
            True,
            f"{n} free games, each at the largest free-spin win",
        )
    if spec.max_games is None:
        return MaxWin(
            None, None, False, "free games that retrigger without a limit on games have no largest win"
        )
    n, cap = spec.games(count), spec.max_games
    states = capped_states(cap, len({k for k, c in zip(extra, counts, strict=True) if c}))
    if states > MAX_TOP_STATES:
        return MaxWin(
            prize + mult * cap * Fraction(top, scale),
            None,
            False,
            f"a bound: at most {cap} games (the declared limit), each at most the top free-spin win; "
            f"the exact largest award needs {states:,} steps over (games played, games left), "
            f"more than {MAX_TOP_STATES:,}",
        )
    best, p = capped_top(wins, extra, counts, n, cap)
    return MaxWin(
        prize + mult * Fraction(best, scale),
        p,
        True,
        f"{n} free games retriggered up to {cap} games (the declared limit): the largest sum of "
        "free-spin wins over every sequence of free spins, exact over (games played, games left)",
    )


#: Most (games played, games left, extra games) steps of :func:`capped_top`.
MAX_TOP_STATES = 500_000


def capped_states(cap: int, extras: int) -> int:
    """Steps of :func:`capped_top` under ``max_games`` = ``cap`` with
    ``extras`` distinct numbers of extra games: every (games played t, games
    left l <= cap - t) state tries each."""
    return (cap + 1) * (cap + 2) // 2 * extras


def capped_top(wins, extra, counts, start: int, cap: int) -> tuple:
    """The largest total of free-spin wins [win units] of the free games
    started with ``start`` games, at most ``cap`` played, and its exact
    probability (a Fraction), from the per-free-spin table (``wins``,
    ``extra`` games, ``counts`` stop combinations).

    Backward over (games played t, games left l): a game played from (t, l)
    with extra games k goes to (t + 1, min(l - 1 + k, cap - t - 1)) (the
    award beyond the cap is forfeited), so the best total is
    ``V(t, l) = max_k (y_k + V(t + 1, next))`` with ``y_k`` the largest
    free-spin win among the spins adding k games (for a given k a larger win
    is always better), and its probability the sum over the k reaching the
    maximum of ``P(y_k, k) P(t + 1, next)``.  Every path that reaches the
    largest total is counted once: paths differ in their first differing spin.
    """
    total = sum(counts)
    top: dict = {}  # k -> (largest win, its stop combinations)
    for y, k, c in zip(wins, extra, counts, strict=True):
        if not c:
            continue
        y0, c0 = top.get(k, (None, 0))
        if y0 is None or y > y0:
            top[k] = (y, c)
        elif y == y0:
            top[k] = (y0, c0 + c)
    steps = [(k, y, Fraction(c, total)) for k, (y, c) in sorted(top.items())]
    left0 = min(start, cap)
    # value[l], prob[l] at games played t + 1, for l = 0 .. cap - t - 1
    value, prob = [0], [Fraction(1)]
    for t in range(cap - 1, -1, -1):
        new_v, new_p = [0], [Fraction(1)]  # l = 0: the feature is over
        for left in range(1, cap - t + 1):
            best, p = -1, Fraction(0)  # every total is >= 0
            for k, y, q in steps:
                nxt = min(left - 1 + k, cap - t - 1)
                v = y + value[nxt]
                if v > best:
                    best, p = v, q * prob[nxt]
                elif v == best:
                    p += q * prob[nxt]
            new_v.append(best)
            new_p.append(p)
        value, prob = new_v, new_p
    return value[left0], prob[left0]


def held_games_top(title: str, table: np.ndarray, scale: int, spec: FreeGamesSpec, count: int) -> MaxWin:
    """The largest award of free games whose windows may trigger a feature
    (``title`` its name, e.g. ``hold-and-spin``), from the float per-game ``table`` (win
    [1/unit coins] x extra games; ``scale`` units per total bet): without a
    retrigger every game at the table's largest win (its value exact, its
    odds float); with retriggers and ``max_games`` a bound; else none."""
    top = int(np.flatnonzero(table.sum(axis=1))[-1])
    mult, prize = Fraction(spec.multiplier_of(count)), spec.prize(count)
    if not table[:, 1:].any():
        n = spec.games(count)
        p = float(table[top].sum()) ** n
        how = f"{n} free games, each at the largest free-game win ({title} included; odds float)"
        return MaxWin(prize + mult * n * Fraction(top, scale), p, False, how)
    if spec.max_games is None:
        return MaxWin(
            None, None, False, "free games that retrigger without a limit on games have no largest win"
        )
    return MaxWin(
        prize + mult * spec.max_games * Fraction(top, scale),
        None,
        False,
        f"a bound: at most {spec.max_games} games (the declared limit), each at most the top free-game win",
    )


# ---------------------------------------------------------------------------
# PAR tables (the feature object's ``tables``)
# ---------------------------------------------------------------------------
def free_games_rules(game: Game) -> list:
    """The declared free games in words, one sentence per rule."""
    from slotmath.engine.tumble_spec import tumble_spec
    from slotmath.features.options import load_features

    spec = load_features(game).free_games
    if spec is None:
        return []
    out = []
    where = "anywhere on the base window"
    if spec.trigger_reels is not None:
        reels = [str(r + 1) for r in spec.trigger_reels]
        listed = reels[0] if len(reels) == 1 else ", ".join(reels[:-1]) + " and " + reels[-1]
        where = f"on the base window with one on each of reels {listed}"
    if spec.trigger_lines is not None:
        where = "in a row from the leftmost reel on a payline"
    tumbles = tumble_spec(game)
    if tumbles is not None and tumbles.sequence:
        where = "on the board in any drop of a spin's tumbles"
    for count, (prize, games) in sorted(spec.awards.items()):
        pays = f" and pay {float(prize):g} x total bet" if prize else ""
        at = f" at x{float(spec.multiplier_of(count)):g}" if spec.multipliers else ""
        at += f" on reel set {spec.reels_of(count)}" if spec.reels_by_count else ""
        out.append(f"{count} or more {spec.symbol} {where} award {counted(games, 'free game')}{at}{pays}.")
    out.append(
        (
            "Free games play on the reel set of the count that starts them"
            if spec.reels_by_count
            else f"Free games play on reel set {spec.reels}"
        )
        + (
            f"; every win is multiplied by {float(spec.multiplier):g}"
            if spec.multiplier != 1 and not spec.multipliers
            else ""
        )
        + "."
    )
    if tumbles is not None and tumbles.carried:
        out.append(
            "The tumble progression carries on from free game to free game (retriggered games "
            "included); it restarts with the next trigger."
        )
    if spec.retrigger:
        out.append(
            "Free games retrigger: the same counts add games"
            + (" (own retrigger awards)" if spec.retrigger_awards else "")
            + (" at the running feature's multiplier" if spec.multipliers else "")
            + (" on the running feature's reel set" if spec.reels_by_count else "")
            + (" under the same reel condition" if spec.trigger_reels is not None else "")
            + (" on a payline" if spec.trigger_lines is not None else "")
            + (
                f", at most {counted(spec.max_games, 'game')} in all."
                if spec.max_games
                else ", without a limit."
            )
        )
    else:
        out.append("Free games do not retrigger.")
    if spec.sticky:
        out.append(f"{spec.sticky} stays in place for the rest of the free games.")
    return out


def free_games_tables(game: Game, fg: dict, rtp: float) -> dict:
    """Free games: rules, by trigger count, retrigger odds, games played."""
    import pandas as pd

    from slotmath.features.sheetrows import ONE_IN, SHARE, one_in, share

    rows = []
    for c, v in fg["by_count"].items():
        p = v["probability"]
        rows.append(
            {
                "trigger count": int(c),
                "probability per round": p,
                f"odds [{ONE_IN}]": one_in(p),
                "games awarded": v["games"],
                **({"multiplier": v["multiplier"]} if "multiplier" in v else {}),
                **({"reel set": v["reels"]} if "reels" in v else {}),
                "mean games played": v["mean_games_played"],
                "mean award [x total bet]": v["mean_award"],
                SHARE: share(p * v["mean_award"], rtp),
            }
        )
    out = {
        "Free games: rules": pd.DataFrame({"rule": free_games_rules(game)}),
        "Free games by trigger count": pd.DataFrame(rows),
    }
    odds = [
        {
            "event": "free games start (per round)",
            "probability": fg["trigger_probability"],
            "odds [1 in N]": one_in(fg["trigger_probability"]),
            "per": "round",
        }
    ]
    if "retrigger_probability" in fg:  # (with a sticky wild the retrigger odds change from game to game)
        r = fg["retrigger_probability"]
        odds.append(
            {
                "event": "a free game retriggers",
                "probability": r,
                "odds [1 in N]": one_in(r),
                "per": "free game",
            }
        )
    for name, per in fg.get("by_reel_set", {}).items():  # a reel set per trigger count
        if "retrigger_probability" not in per:
            continue
        r = per["retrigger_probability"]
        odds.append(
            {
                "event": f"a free game on {name} retriggers",
                "probability": r,
                "odds [1 in N]": one_in(r),
                "per": "free game",
            }
        )
    out["Free games: trigger and retrigger odds"] = pd.DataFrame(odds)
    played, seen = [], set()
    for v in fg["by_count"].values():
        if (v["games"], v.get("reels")) in seen:  # one law per number of games awarded (and reel set)
            continue
        seen.add((v["games"], v.get("reels")))
        shown = v.get("games_played", [])
        rest = 1.0 - fsum(g["probability"] for g in shown)  # the counts not listed, summed
        if shown and rest > GAMES_REST_SHOWN:
            # the walk stops at MAX_GAMES_SHOWN games: beyond it a count may pass GAMES_SHOWN
            cut = shown[-1]["games"] >= MAX_GAMES_SHOWN
            which = f"more than {MAX_GAMES_SHOWN:,} games, or" if cut else "each"
            shown = [*shown, {"games": f"any other ({which} below {GAMES_SHOWN:g})", "probability": rest}]
        played += [
            {
                "games awarded": v["games"],
                **({"reel set": v["reels"]} if "reels" in v else {}),
                "games played": g["games"],
                "probability given the trigger": g["probability"],
            }
            for g in shown
        ]
    if played:
        out["Free games: distribution of games played"] = pd.DataFrame(played)
    return out


# ---------------------------------------------------------------------------
# the feature object (slotmath.features.registry)
# ---------------------------------------------------------------------------
def _free_spec(game: Game):
    from slotmath.features.options import load_features

    return load_features(game).free_games


def _free_starts(game: Game) -> bool:
    spec = _free_spec(game)
    return spec is not None and bool(spec.awards)  # else a selection's only


def _free_check(game: Game) -> None:
    spec = _free_spec(game)
    if spec.sticky is None:  # sticky retriggers require max_games
        refuse_endless(game, spec)
    if not spec.awards and "selection" not in game.options:  # else the selection's check reads them
        from slotmath.features.options import UNAWARDED_FREE_GAMES
        from slotmath.io.gamefile import GameFileError

        raise GameFileError(game.source, *UNAWARDED_FREE_GAMES)


def _sticky(law) -> bool:
    return "sticky" in law.figures.get("free_games", {})


def _free_rtp_method(law) -> str:
    if "free_games" not in law.figures:
        return ""
    if _sticky(law):
        return (
            " (free games with a sticky wild: backward recursion over (games left, sticky cells), "
            "each mask's (win, extra games, new cells) law exact from the pay rule's engine)"
        )
    fg = law.figures["free_games"]
    key = "drawn_multipliers_per_free_game"
    drawn = key in fg or any(key in per for per in fg.get("by_reel_set", {}).values())
    return (
        " (free games: renewal moments of the per-free-spin (win, extra games) law, "
        "itself exact from the pay rule's pass with the trigger count as one more state digit"
        + (
            "; the drawn wild multipliers add the free games' multiplier x the mean games played x "
            "their exact mean per free spin (the law of the counted wilds; Wald's identity)"
            if drawn
            else ""
        )
        + ")"
    )


def _free_law_method(law) -> str:
    if "free_games" not in law.figures:
        return ""
    if _sticky(law):
        return "Free-games award law by the forward DP over (games, sticky cells); "
    return (
        "Free-games award law by the fixed point of its generating function on an FFT grid "
        f"(wrapped mass below {ALIAS_BOUND:g} by Chernoff's bound) or, with max_games, the "
        "forward DP; "
    )


def _free_tables(game: Game, figures: dict, rtp: float, level: int) -> dict:
    fg = figures.get("free_games", {})
    return free_games_tables(game, fg, rtp) if fg.get("by_count") else {}


#: the options bought free games play beside them; a feature that plays
#: in free games (``in_free_games``) is kept too, with its jackpots (and the
#: wheel its mark spins, ``mark_award: wheel``)
BOUGHT_WITH = ("free_games", "round_cap", "wild_multipliers", "tumble")


def _bought_options(game: Game) -> dict:
    keep = BOUGHT_WITH
    for key, held in game.options.items():
        if isinstance(held, dict) and held.get("in_free_games") is True:
            keep = (*keep, key, "jackpots") + (("wheel",) if held.get("mark_award") == "wheel" else ())
    return {k: v for k, v in game.options.items() if k in keep}


def _bought_spec(game: Game, games: int) -> FreeGamesSpec:
    """The declared free games with every count starting ``games`` games and
    no prize, at the free games' multiplier and on their declared reels
    (retriggers keep the declared retrigger awards)."""
    import dataclasses

    spec = _free_spec(game)
    if spec is None:
        from slotmath.io.gamefile import GameFileError

        raise GameFileError(game.source, "buy.feature", "buys free_games, which the mode does not declare")
    return dataclasses.replace(
        spec,
        awards={0: (Fraction(0), games)},
        multipliers=None,
        reels_by_count=None,
        retrigger_awards=spec.retrigger_awards or spec.awards,
    )


def _bought_round(game: Game, level: int, spec: FreeGamesSpec, games: int) -> tuple:
    notes = [
        f"Bought round: {spec.games(0)} free games started at once (no base spin) on reel set "
        f"{spec.reels!r}; the cycle is that set's."
    ]
    key = (0,) * game.reels if spec.trigger.per_reel else 0  # no trigger symbol on any reel
    return free_games_feature_of(game, level, spec), notes, game.cycle(spec.reels), key


FREE_GAMES = FeatureKind(
    key="free_games",
    title="free games",
    parse=_free_spec,
    component="free_games",
    starts=_free_starts,
    exact=free_games_feature,
    check=_free_check,
    reel_sets=lambda game: _free_spec(game).reel_sets(),
    in_free_games=lambda game: True,
    rtp_method=_free_rtp_method,
    law_method=_free_law_method,
    notes=lambda game, law: [s] if (s := law.figures.get("free_games", {}).get("sticky_state")) else [],
    tables=_free_tables,
    example="data/games/classic_free_spins/game.yaml",
    schema={
        "type": "object",
        "description": "Free games: docs/features.md.",
        "additionalProperties": False,
        "properties": {
            "symbol": {},
            "reels": {},
            "multiplier": {},
            "awards": {},
            "retrigger": {},
            "retrigger_awards": {},
            "scatter_pays": {},
            "nudge": {},
            "max_games": {},
            "sticky": {
                "type": "string",
                "description": "A wild that stays in its cell for the rest of the feature's free games.",
            },
            "trigger": {
                "type": "object",
                "description": "Trigger condition: reels (1 = the first) that must "
                "each show the symbol, for the trigger and a retrigger, "
                "awards by the total count; or payline: true, awards by "
                "the longest run of the symbol from the leftmost reel "
                "on a payline.",
            },
        },
    },
    buy=Buy(
        start="games",
        options=_bought_options,
        spec=_bought_spec,
        feature=_bought_round,
        sampler="slotmath.montecarlo.buysim:free_games_buy_sampler",
    ),
)
