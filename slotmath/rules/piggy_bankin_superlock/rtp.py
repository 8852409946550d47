"""Piggy Bankin' Superlock: the exact RTP, and the tuning figures (exact RTP
fast after a base-reel change)."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import pandas as pd

from slotmath.engine.cache import game_cache, no_sets
from slotmath.engine.combinations import line_rtp
from slotmath.engine.lines import pay_tensor
from slotmath.features import wheel as wheel_mod
from slotmath.model import Game
from slotmath.rules.piggy_bankin_superlock.cache import feature_sets, this_set
from slotmath.rules.piggy_bankin_superlock.check import BASE, BASE_REELS, FREE, PARTS, POLICIES
from slotmath.rules.piggy_bankin_superlock.screens import feature_screen_sums
from slotmath.rules.piggy_bankin_superlock.structure import (
    Structure,
    game_lockit_chain,
    prizes,
    structure,
    weighted_total,
)


# ===========================================================================
# exact RTP
# ===========================================================================
@dataclass
class Breakdown:
    """RTP by channel under each selection policy, plus feature odds."""

    components: dict  # policy -> {name: value [x total bet]}
    rtp: dict  # policy -> RTP
    odds: dict  # name -> probability or expected count per round
    values: dict  # name -> expected value of a feature [x total bet]
    shapes: pd.DataFrame  # per source and shape: count per feature and per round, RTP


def lines_rtp(game: Game, level: int, reel_set: str = BASE_REELS, lines_game: Game | None = None):
    """Exact line RTP [x total bet] of ``reel_set`` of ``lines_game`` (default
    ``game``) with ``game``'s pay table: ``sum over lines and symbol tuples of
    win x stop combinations / (cycle x total bet)``.  Line pays are linear in
    the bet, so the figure is computed once per reel set (cached)."""
    lv0 = game.levels[0]
    for lp in game.line_pays:
        if any(p * lv0 != lp.pays[0] * lv for p, lv in zip(lp.pays, game.levels, strict=True)):
            return line_rtp(lines_game or game, level, reel_set)[0]
    return line_game_rtp(lines_game or game, reel_set)


@game_cache(this_set, maxsize=16)
def line_game_rtp(lines_game, reel_set):
    """(``lines_game`` has the pay table of the game: the nudged free-game
    form of it only differs in its strips.)"""
    from slotmath.engine.multilinear import cycle_line_win

    game = lines_game
    total = int(cycle_line_win(game, pay_tensor(game, game.levels[0]).reshaped(), reel_set))
    bet = game.bet(game.levels[0])
    return Fraction(total, lines_game.cycle(reel_set) * bet.total_bet)


def fg_per_spin(st: Structure, level: int) -> dict:
    """Per free spin (before the x multiplier): mean line win, prize and lock-it,
    and the retrigger statistics."""
    g, fgs = st.game, st.features.free_games
    lines = lines_rtp(g, level, fgs.reels, st.fg_game)
    cyc = st.cycles[FREE]
    by_bonus = st.fg_screens.sum(axis=(0, 1))
    p_b = [Fraction(int(c), cyc) for c in by_bonus]
    prize = sum((p * fgs.retrigger_prize(b) for b, p in enumerate(p_b)), Fraction(0))
    games = np.array([fgs.retrigger_games(b) for b in range(len(p_b))])
    ek = sum(p * int(k) for p, k in zip(p_b, games, strict=True))
    final, p_trig, _ = st.final((FREE, FREE, None, None))
    pz = prizes(g, st.features.lockit.sources[FREE].awards, level)
    lock = p_trig / cyc * float((final * pz.f(st.shape_counts)).sum()) if final is not None else 0.0
    shape_n = (
        (final.sum(axis=0) @ st.shape_counts) * p_trig / cyc if final is not None else np.zeros(len(pz.mean))
    )
    return {
        "lines": lines,
        "prize": prize,
        "lockit": lock,
        "ek": ek,
        "p_b": p_b,
        "p_lockit": p_trig / cyc,
        "shape_n": shape_n,
        "final": final,
        "full": (final.sum(axis=0)[-1] * p_trig / cyc) if final is not None else 0.0,
    }


def breakdown(game: Game, level: int) -> Breakdown:
    """Exact RTP components at bet ``level`` under both selection policies.

    Line and selection-prize parts are Fractions; lock-it, wheel and free-game
    parts are float64 (relative error below 1e-12: sums of products of
    non-negative terms, see :mod:`slotmath.features.lockit`)."""
    st = structure(game)
    f = st.features
    lk, sel, fgs = f.lockit, f.selection, f.free_games
    cyc = st.cycles[BASE]
    comps = {p: {} for p in POLICIES}
    base_lines = lines_rtp(game, level, BASE_REELS)
    by_bonus = st.base_screens.sum(axis=(0, 1))
    p_b = [Fraction(int(c), cyc) for c in by_bonus]
    sel_prize = sum((p * sel.option(b).prize for b, p in enumerate(p_b) if sel.option(b)), Fraction(0))
    wm = wheel_mod.outcomes(f.wheel)
    pre = float(f.wheel.pre_prize * f.wheel.pre_probability)
    wheel_mean = float(wheel_mod.moments(f.wheel)[0])
    rows, odds, values = [], {}, {}
    counts = st.shape_counts

    def lockit_part(final, weight, table, source_label, policy_list):
        """Add shape and wheel components of a lock-it with conditional final
        distribution ``final`` occurring ``weight`` times per round."""
        pz = prizes(game, table, level)
        n = final.sum(axis=0) @ counts * weight
        flag = final[1].sum() * weight
        for pol in policy_list:
            c = comps[pol]
            for s, name in enumerate(lk.shape_names):
                key = f"lock-it {source_label}: {name}"
                c[key] = c.get(key, 0.0) + n[s] * pz.mean[s]
            c["wheel"] = c.get("wheel", 0.0) + flag * (wheel_mean - pre)
            c["Superlock jackpot"] = c.get("Superlock jackpot", 0.0) + flag * pre
        for s, name in enumerate(lk.shape_names):
            rows.append(
                {
                    "source": source_label,
                    "shape": name,
                    "per_feature": n[s] / weight,
                    "count": n[s],
                    "mean_award": pz.mean[s],
                    "rtp": n[s] * pz.mean[s],
                    "policies": ",".join(policy_list),
                }
            )
        jack = {}
        for label, per_shape in pz.labels.items():
            jack[label] = float(n @ per_shape)
        return n, flag, jack

    for pol in POLICIES:
        comps[pol]["base lines"] = base_lines
        comps[pol]["selection prizes"] = sel_prize

    # lock-it from the base game (rule 5.1)
    final, p_trig, spins = st.final((BASE, BASE, None, None))
    w_base = p_trig / cyc
    n_base, flag_base, jack_base = lockit_part(
        final, w_base, lk.sources[BASE].awards, "base game", list(POLICIES)
    )
    odds["lockit base game"] = w_base
    full = {"base game": final.sum(axis=0)[-1] * w_base}
    flags = {pol: flag_base for pol in POLICIES}
    jackpots = {pol: dict(jack_base) for pol in POLICIES}

    # selection (rule 4): policy lock-it
    p_sel = 0.0
    fg_stats = fg_per_spin(st, level)
    mult = float(fgs.multiplier)
    one_fg = per_awarded_game(fg_stats)
    fg_count = 0.0
    for b in range(len(p_b)):
        opt = sel.option(b)
        if opt is None or p_b[b] == 0:
            continue
        pb = float(p_b[b])
        p_sel += pb
        final_s, p_s, _ = st.final((sel.lockit_source, BASE, b, opt.lockit_spins))
        n, flag, jack = lockit_part(final_s, pb, opt.lockit_awards, f"selection {b}", ["lockit"])
        flags["lockit"] += flag
        for k, v in jack.items():
            jackpots["lockit"][k] = jackpots["lockit"].get(k, 0.0) + v
        full[f"selection {b}"] = final_s.sum(axis=0)[-1] * pb
        pz = prizes(game, opt.lockit_awards, level)
        values[f"lockit selection {b}"] = float((final_s * pz.f(counts)).sum())
        # free games: mean played games and value
        games = opt.free_games / (1 - float(fg_stats["ek"]))
        values[f"free games selection {b}"] = mult * opt.free_games * one_fg
        c = comps["free_games"]
        c["free games lines"] = c.get("free games lines", 0.0) + pb * mult * games * float(fg_stats["lines"])
        c["free games prizes"] = c.get("free games prizes", 0.0) + pb * mult * games * float(
            fg_stats["prize"]
        )
        fg_count += pb * games
    # lock-it in free games: shapes by type, x multiplier
    pz_fg = prizes(game, lk.sources[FREE].awards, level)
    for s, name in enumerate(lk.shape_names):
        v = fg_count * mult * fg_stats["shape_n"][s] * pz_fg.mean[s]
        comps["free_games"][f"lock-it free games: {name}"] = v
        p_lk = float(fg_stats["p_lockit"])
        rows.append(
            {
                "source": "free games",
                "shape": name,
                "per_feature": fg_stats["shape_n"][s] / p_lk if p_lk else 0.0,
                "count": fg_count * fg_stats["shape_n"][s],
                "mean_award": pz_fg.mean[s] * mult,
                "rtp": v,
                "policies": "free_games",
            }
        )
    for label, per_shape in pz_fg.labels.items():
        jackpots["free_games"][label] = jackpots["free_games"].get(label, 0.0) + fg_count * float(
            fg_stats["shape_n"] @ per_shape
        )
    full["free games"] = fg_count * fg_stats["full"]
    odds["selection"] = p_sel
    odds["free games (policy free_games)"] = p_sel
    odds["lockit in free games (policy free_games)"] = fg_count * fg_stats["p_lockit"]
    odds["lockit selection (policy lockit)"] = p_sel
    for pol in POLICIES:
        fs = full["base game"] + (
            full["free games"]
            if pol == "free_games"
            else sum(v for k, v in full.items() if k.startswith("selection"))
        )
        odds[f"full screen (policy {pol})"] = fs
        odds[f"wheel (policy {pol})"] = flags[pol]
        odds[f"Superlock jackpot (policy {pol})"] = flags[pol] * float(f.wheel.pre_probability)
        wheel_j = {lab: float(p) for lab, _, p in wm if lab in f.jackpots}
        for lab in f.jackpots:
            odds[f"{lab} (policy {pol})"] = jackpots[pol].get(lab, 0.0) + flags[pol] * wheel_j.get(lab, 0.0)
    values["lockit base game"] = float((final * prizes(game, lk.sources[BASE].awards, level).f(counts)).sum())
    values["free game (one, incl. retriggers)"] = mult * one_fg
    rtp = {pol: sum(float(v) for v in comps[pol].values()) for pol in POLICIES}
    return Breakdown(comps, rtp, odds, values, pd.DataFrame(rows))


# ===========================================================================
# tuning figures: exact RTP fast after a base-reel change
# ===========================================================================
@game_cache(feature_sets, maxsize=64)
def lockit_values(game, source, spins, table, level):
    """Expected prize [x total bet] of a lock-it from every start (flag, mask),
    wheel included where it is paid: the chain's value function (linearity:
    the RTP of any start distribution is its dot product with these values)."""
    st = structure(game)
    f = prizes(game, table, level).f(st.shape_counts)
    if not st.features.lockit.sources[source].mark_award:
        f = np.stack([f[0], f[0]])
    return game_lockit_chain(game, source, spins).values(f)


def per_free_spin(d: dict) -> float:
    """Expected win of one free spin before the multiplier [x total bet]
    (lines, BONUS prizes, lock-it; ``d`` from :func:`fg_per_spin`)."""
    return float(d["lines"]) + float(d["prize"]) + float(d["lockit"])


def per_awarded_game(d: dict) -> float:
    """Expected win of one awarded free game with the games its retriggers
    add, ``E[spin] / (1 - E[K])``, before the multiplier [x total bet]."""
    return per_free_spin(d) / (1 - float(d["ek"]))


@game_cache(feature_sets)
def free_games_value(game, level) -> float:
    """Value of one awarded free game, retriggers and multiplier included [x total bet]."""
    d = fg_per_spin(structure(game), level)
    one = per_awarded_game(d)
    return float(structure(game).features.free_games.multiplier) * one


@game_cache(feature_sets, maxsize=64)
def lockit_second_values(game, source, spins, table, level):
    """Second moment [(x total bet)^2] of a lock-it's prize from every start
    (flag, mask): the chain's value function of ``E[prize^2 | final]``.

    Given the final mask the shape awards are independent draws and the
    wheel (where paid) one more, so with ``n`` the shape counts, ``m`` /
    ``m2`` the shapes' award moments and ``w`` / ``w2`` the wheel's:
    ``E[P^2 | final] = sum_s n_s (m2_s - m_s^2) + (n.m)^2 + flag (2 (n.m) w + w2)``."""
    from slotmath.features.shapes import shape_prize_moments

    st = structure(game)
    pz = prizes(game, table, level)
    a, a2 = shape_prize_moments(st.shape_counts, pz.mean, pz.second)
    g = np.stack([a2, a2 + 2 * a * pz.wheel_mean + pz.wheel_second])
    if not st.features.lockit.sources[source].mark_award:
        g = np.stack([a2, a2])
    return game_lockit_chain(game, source, spins).values(g)


@game_cache(no_sets, maxsize=16)
def features_always_pay(game: Game, level: int) -> bool:
    """True when every feature start pays something under policy lock-it: a
    selection prize > 0, or every lock-it final mask (6+ held cells) packs at
    least one shape and every shape award is > 0."""
    st = structure(game)
    f = st.features
    lk, sel = f.lockit, f.selection
    full = st.pc >= lk.trigger
    if not (st.shape_counts[full].sum(axis=1) > 0).all():
        return False
    tables = [lk.sources[BASE].awards]
    if not all(a.value > 0 for t in tables for aw in lk.awards.table(t, level) for a in aw):
        return False
    return all(
        sel.option(b).prize > 0 for b in range(sel.min_count, game.reels * game.rows + 1) if sel.option(b)
    )


def round_moments(game: Game, level: int, rtp: float) -> dict:
    """Whole-round hit frequency, second moment, SD and VI under the headline
    policy (selection: always lock-it, as :func:`analyse`), without the round
    distribution: ``{"hit_frequency": Fraction [probability], "second_moment"
    [(x total bet)^2], "sd", "vi" [x total bet]}`` (no hit frequency when a
    feature start may pay nothing).

    With ``L`` the base line win and ``F`` everything the screen's (PIGGY
    mask, WHEEL flag, BONUS count) leads to, ``X = L + F`` and
    ``E[X^2] = E[L^2] + 2 E[L F] + E[F^2]``: ``E[L^2]`` from
    :func:`slotmath.engine.moments.line_moments` (exact), ``E[F | screen]`` and
    ``E[F^2 | screen]`` from the value functions of the lock-it chains of the
    prize and of its square (:func:`lockit_values`,
    :func:`lockit_second_values`) plus the selection prize, and ``E[L F]``
    and the hit frequency from the feature-starting screens with their line
    win (:func:`feature_screen_sums`: prefixes whose lines are all fixed
    are not expanded).  Every feature start pays (checked:
    :func:`features_always_pay`), so ``P(X = 0) = P(no line win) - P(no line
    win, a feature starts)``: the hit frequency is an exact Fraction.  A
    screen with both 6+ PIGGY and 3+ BONUS plays both features independently.

    Error: ``E[X^2]`` is float64 sums of non-negative products of the
    chains' values (relative error below 1e-12 as :func:`breakdown`); the SD's
    relative error is below ``1e-12 E[X^2] / Var X`` (< 1e-11 for the seed
    game, whose Var X is most of E[X^2]).  ``rtp`` is the headline RTP.
    """
    from slotmath.engine.distribution import VI_CONFIDENCE, z_value
    from slotmath.engine.moments import line_moments
    from slotmath.engine.reels import window_game

    st = structure(game)
    cyc = game.cycle(BASE_REELS)
    scr = st.base_screens
    present = tuple(int(b) for b in np.flatnonzero(st.base_totals.by_bonus))
    sv = screen_values(game, level, present)
    f2 = weighted_total(scr, sv.ef2_fmb) / cyc
    win_f, quiet_starts = feature_screen_sums(
        window_game(game, BASE_REELS), BASE_REELS, level, sv.ef_fbm, sv.starts_fbm
    )
    lf = win_f / game.bet(level).total_bet / cyc
    lm = line_moments(game, level, BASE_REELS)
    second = float(lm.second_moment) + 2 * lf + f2
    sd = max(second - rtp * rtp, 0.0) ** 0.5
    out = {"second_moment": second, "sd": sd, "vi": z_value(VI_CONFIDENCE) * sd}
    if features_always_pay(game, level):
        quiet = lm.no_win - quiet_starts
        out["hit_frequency"] = Fraction(cyc - quiet, cyc)
    return out


@dataclass(frozen=True, eq=False)
class ScreenValues:
    """What a base screen's (WHEEL flag, PIGGY mask, BONUS count) leads to,
    under policy always lock-it; the suffix gives the axes' order (f flag, b
    BONUS, m mask): ``ef_fbm`` = E[F | screen] [x total bet],
    ``ef2_fmb`` = E[F^2 | screen] [(x total bet)^2] (the layout of
    :func:`screen_counts`), ``starts_fbm`` = 1 where a feature starts (int8)."""

    ef_fbm: np.ndarray
    ef2_fmb: np.ndarray
    starts_fbm: np.ndarray


@game_cache(feature_sets, maxsize=8)
def screen_values(game, level, present):
    """:class:`ScreenValues` at ``level`` for the BONUS counts ``present`` on
    the base screens (the others are left 0); no base reel is read."""
    st = structure(game)
    f = st.features
    lk, sel = f.lockit, f.selection
    n_b = game.reels * game.rows + 1
    src = lk.sources[BASE]
    v_base = lockit_values(game, BASE, None, src.awards, level)
    v2_base = lockit_second_values(game, BASE, None, src.awards, level)
    pigs = st.pc >= lk.trigger
    ef = np.zeros((2, len(st.pc), n_b))
    ef2 = np.zeros_like(ef)
    for b in present:
        o = sel.option(b)
        if o is None:
            continue
        v = lockit_values(game, sel.lockit_source, o.lockit_spins, o.lockit_awards, level)
        v2 = lockit_second_values(game, sel.lockit_source, o.lockit_spins, o.lockit_awards, level)
        p = float(o.prize)
        ef[:, :, b] = p + v
        ef2[:, :, b] = p * p + 2 * p * v + v2
    both = ef * pigs[None, :, None]  # lock-it and selection on one screen
    ef2 += 2 * both * v_base[:, :, None] + (v2_base * pigs[None, :])[:, :, None]
    ef += (v_base * pigs[None, :])[:, :, None]
    starts = pigs[:, None] | (np.arange(n_b) >= f.free_games.min_count)[None, :]
    return ScreenValues(
        np.ascontiguousarray(ef.transpose(0, 2, 1)),
        ef2,
        np.ascontiguousarray(np.broadcast_to(starts.T, (2, n_b, len(st.pc))), dtype=np.int8),
    )


#: Figures of the whole round that :func:`round_moments` gives.
ROUND_FIGURES = frozenset({"hit_frequency", "sd", "vi", "second_moment"})


def tuning_figures(game: Game, level: int, needed=None) -> dict:
    """Exact figures of the base game for tuning (see :mod:`slotmath.analysis.metrics`).

    Returns ``rtp`` (policy always lock-it, as the PAR headline),
    ``feature:by_choice.lockit`` / ``.free_games`` (RTP of each pure
    selection policy), ``rtp:base lines`` and ``rtp:selection prizes``
    (Fractions), ``feature_frequency`` (P(a base spin starts a lock-it or
    the selection), Fraction), ``lockit_one_in`` and ``selection_one_in``
    (base spins per trigger, Fractions).  Lock-it and free-game parts are
    float64 as in :func:`breakdown` (equal to it to rounding): the start
    distribution of the new base reels times the cached value functions of
    the feature chains, which do not read the base reels.  When ``needed``
    is None or names one of :data:`ROUND_FIGURES`, also the whole round's
    ``hit_frequency`` (exact Fraction), ``sd``, ``vi`` [x total bet] and
    ``second_moment`` [(x total bet)^2] under the headline policy (:func:`round_moments`, tens of
    milliseconds)."""
    st = structure(game)
    cyc = game.cycle(BASE_REELS)
    parts, by_choice, n_trig, n_sel = base_parts(game, level)
    common = float(parts["base lines"]) + float(parts["selection prizes"]) + parts["lock-it base game"]
    out = {
        "rtp": common + by_choice["lockit"],
        "feature:by_choice.lockit": common + by_choice["lockit"],
        "feature:by_choice.free_games": common + by_choice["free_games"],
        "rtp:base lines": parts["base lines"],
        "rtp:selection prizes": parts["selection prizes"],
        "feature_frequency": Fraction(st.base_totals.starts, cyc),
        "lockit_one_in": Fraction(cyc, n_trig) if n_trig else None,
        "selection_one_in": Fraction(cyc, n_sel) if n_sel else None,
    }
    if needed is None or ROUND_FIGURES & set(needed):
        out.update(round_moments(game, level, out["rtp"]))
    return out


def base_parts(game: Game, level: int) -> tuple:
    """The RTP of the base spin's parts from the base-reel start distribution
    and the cached feature values (see :func:`tuning_figures`): ``({"base
    lines": Fraction, "selection prizes": Fraction, "lock-it base game":
    float}, {policy: RTP of the chosen feature}, lock-it starts, selection
    starts)`` [x total bet; starts in base-cycle outcomes]."""
    st = structure(game)
    f = st.features
    lk, sel = f.lockit, f.selection
    cyc = game.cycle(BASE_REELS)
    scr = st.base_screens
    by_b = st.base_totals.by_bonus
    options = [(b, sel.option(b)) for b in range(len(by_b)) if sel.option(b) and by_b[b]]
    trig = st.base_totals.by_state * (st.pc >= lk.trigger)[None, :]
    src = lk.sources[BASE]
    parts = {
        "base lines": lines_rtp(game, level, BASE_REELS),
        "selection prizes": sum((Fraction(int(by_b[b]), cyc) * o.prize for b, o in options), Fraction(0)),
        "lock-it base game": float((trig * lockit_values(game, BASE, None, src.awards, level)).sum()) / cyc,
    }
    by_choice = {"lockit": 0.0, "free_games": 0.0}
    fg_one = free_games_value(game, level)
    for b, o in options:
        v = lockit_values(game, sel.lockit_source, o.lockit_spins, o.lockit_awards, level)
        by_choice["lockit"] += float((scr[:, :, b] * v).sum()) / cyc
        by_choice["free_games"] += int(by_b[b]) / cyc * o.free_games * fg_one
    return parts, by_choice, int(trig.sum()), sum(int(by_b[b]) for b, _ in options)


def components(game: Game, level: int, policy: str = "lockit") -> dict:
    """RTP of each part of the round [x total bet] under a pure selection
    ``policy`` (default: always lock-it, the PAR headline), by the fast path
    of :func:`tuning_figures`: "base lines", "selection prizes" (Fractions),
    "lock-it base game" (shapes and wheel) and "lock-it selection" or "free
    games" (float64, relative error below 1e-12); they sum to the RTP.  The
    parts of the simulator's round win have these names."""
    parts, by_choice, _, _ = base_parts(game, level)
    parts[PARTS[policy][3]] = by_choice[policy]
    return parts
