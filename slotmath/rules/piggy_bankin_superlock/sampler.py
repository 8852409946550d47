"""Piggy Bankin' Superlock: Monte Carlo, the rules played literally
(independent of the exact engine)."""

from __future__ import annotations

from dataclasses import dataclass

import numba as nb
import numpy as np

from slotmath.model import Game
from slotmath.montecarlo.linesim import uniform_below
from slotmath.rules.piggy_bankin_superlock.check import BASE, BASE_REELS, FREE, PARTS, POLICIES
from slotmath.rules.piggy_bankin_superlock.rtp import breakdown
from slotmath.rules.piggy_bankin_superlock.structure import _symbol_set, features_of

# ===========================================================================
# Monte Carlo: the rules played literally (independent of the exact engine)
# ===========================================================================
EVENTS = (
    "lockit_base_game",
    "lockit_free_games",
    "lockit_selection",
    "selection",
    "free_games",
    "full_screen",
    "wheel",
    "superlock",
    "MINI",
    "MINOR",
    "MAJOR",
    "GRAND",
)
JACKPOT_ORDER = ("MINI", "MINOR", "MAJOR", "GRAND")


@nb.njit(cache=True)
def _draw(rng, strips, lens, window, H):
    """Spin every reel: ``window[r, k]`` = strip[(stop + k) % N] (uniform stops;
    each strip row is followed by its first ``H`` symbols, see :func:`_strip_array`)."""
    for r in range(strips.shape[0]):
        s = uniform_below(rng, lens[r])
        for k in range(H):
            window[r, k] = strips[r, s + k]


@nb.njit(cache=True)
def _line_units(window, lines, pays, regular, wild):
    """Sum of line wins [u]: each line pays its leftmost symbol's run, WILD and
    WILD_3 standing in for regular symbols; the reel-1 symbol never is wild."""
    total = 0
    for line in range(lines.shape[0]):
        first = window[0, lines[line, 0]]
        if not regular[first]:
            continue
        n = 1
        while n < window.shape[0]:
            s = window[n, lines[line, n]]
            if s == first or wild[s]:
                n += 1
            else:
                break
        total += pays[first, n]
    return total


@nb.njit(cache=True)
def _scan_window(window, held, pig, pig_mark, bonus_sym):
    """Fill ``held[k, r]`` with the PIGGY cells of ``window[r, k]``; returns
    (PIGGY count, BONUS count, 1 if a PIGGY carries a WHEEL else 0)."""
    n_pig, n_bonus, flag = 0, 0, 0
    for r in range(window.shape[0]):
        for k in range(window.shape[1]):
            s = window[r, k]
            held[k, r] = pig[s]
            if pig[s]:
                n_pig += 1
                if pig_mark[s]:
                    flag = 1
            if s == bonus_sym:
                n_bonus += 1
    return n_pig, n_bonus, flag


@nb.njit(cache=True)
def _pick(rng, cum, n):
    """Index drawn with cumulative integer weights ``cum[:n]``."""
    u = uniform_below(rng, cum[n - 1])
    i = 0
    while cum[i] <= u:
        i += 1
    return i


@nb.njit(cache=True)
def _wheel(rng, wh_val, wh_cum, wh_jp, pre_num, pre_den, events):
    events[6] += 1
    if uniform_below(rng, pre_den) < pre_num:
        events[7] += 1
        return wh_val[-1]  # the before-jackpot value is stored last
    i = _pick(rng, wh_cum, wh_cum.shape[0])
    if wh_jp[i] >= 0:
        events[8 + wh_jp[i]] += 1
    return wh_val[i]


@nb.njit(cache=True)
def _lockit(rng, held, flag, spins, wheel_reels, table, wheel_paid, events, kit):
    """Play one lock-it feature from ``held`` (H, R bools) and WHEEL ``flag``
    with award ``table``, its spins drawn from ``wheel_reels`` until a WHEEL
    lands; returns its prize [x total bet].  ``kit``: the arrays every lock-it
    shares (see :func:`piggy_kernel`)."""
    plain_reels, feat_lens, pig, pig_mark, shapes, aw_val, aw_cum, aw_n, aw_jp = kit[:9]
    wh_val, wh_cum, wh_jp, pre_num, pre_den = kit[9:]
    R, H = held.shape[1], held.shape[0]
    window = np.zeros((R, H), dtype=np.int64)
    for _ in range(spins):
        full = True
        for r in range(R):
            for k in range(H):
                if not held[k, r]:
                    full = False
        if full:
            break
        if flag == 0:
            _draw(rng, wheel_reels, feat_lens[0], window, H)
        else:
            _draw(rng, plain_reels, feat_lens[1], window, H)
        for r in range(R):
            for k in range(H):
                s = window[r, k]
                if pig[s] and not held[k, r]:
                    held[k, r] = True
                    if pig_mark[s]:
                        flag = 1
    # shapes: priority order, anchors reel by reel then row by row
    free = held.copy()
    prize = 0.0
    n_full = 0
    for sh in range(shapes.shape[0]):
        rows, reels = shapes[sh, 0], shapes[sh, 1]
        for left in range(R - reels + 1):
            for top in range(H - rows + 1):
                fits = True
                for c in range(left, left + reels):
                    for k in range(top, top + rows):
                        if not free[k, c]:
                            fits = False
                if fits:
                    for c in range(left, left + reels):
                        for k in range(top, top + rows):
                            free[k, c] = False
                    if rows == H and reels == R:
                        n_full += 1
                    i = _pick(rng, aw_cum[table, sh], aw_n[table, sh])
                    if aw_jp[table, sh, i] >= 0:
                        events[8 + aw_jp[table, sh, i]] += 1
                    prize += aw_val[table, sh, i]
    events[5] += n_full
    if flag and wheel_paid:
        prize += _wheel(rng, wh_val, wh_cum, wh_jp, pre_num, pre_den, events)
    return prize


@nb.njit(cache=True)
def piggy_kernel(
    rng,
    n,
    ints,
    strips,
    lens,
    lines,
    pays,
    regular,
    wild,
    pig,
    pig_mark,
    shapes,
    aw_val,
    aw_cum,
    aw_n,
    aw_jp,
    wh_val,
    wh_cum,
    wh_jp,
    sel_prize,
    sel_spins,
    sel_games,
    fg_prize,
    fg_games,
):
    """Play ``n`` rounds; wins [x total bet], event counts (see ``EVENTS``)
    and wins by part (see ``PARTS``).

    ``ints`` = (policy 0 lock-it / 1 free games, BONUS symbol, WILD_3 symbol,
    lock-it trigger, minimum BONUS, base spins, free-game lock-it spins,
    free-game multiplier, before-jackpot numerator, denominator, rows)."""
    policy, bonus_sym, wild3, trigger, min_bonus = ints[0], ints[1], ints[2], ints[3], ints[4]
    base_spins, fg_spins, mult, pre_num, pre_den, H = ints[5], ints[6], ints[7], ints[8], ints[9], ints[10]
    R = strips.shape[1]
    base, fgr, wreels, preels = strips[0], strips[1], strips[2], strips[3]
    feat_lens = lens[2:4]
    awards = (shapes, aw_val, aw_cum, aw_n, aw_jp)  # the shapes and their award tables
    wheel = (wh_val, wh_cum, wh_jp, pre_num, pre_den)  # the wheel and its before-jackpot draw
    kit = (preels, feat_lens, pig, pig_mark) + awards + wheel  # what every lock-it reads
    wins = np.zeros(n, dtype=np.float64)
    parts = np.zeros((n, 4), dtype=np.float64)
    events = np.zeros(12, dtype=np.int64)
    window = np.zeros((R, H), dtype=np.int64)
    held = np.zeros((H, R), dtype=np.bool_)
    for i in range(n):
        _draw(rng, base, lens[0], window, H)
        win = _line_units(window, lines, pays, regular, wild) / 20.0
        parts[i, 0] = win
        n_pig, n_bonus, flag = _scan_window(window, held, pig, pig_mark, bonus_sym)
        if n_pig >= trigger:  # rule 5.1: lock-it from the base game
            events[0] += 1
            part = _lockit(rng, held.copy(), flag, base_spins, wreels, 0, True, events, kit)
            parts[i, 2] = part
            win += part
        if n_bonus >= min_bonus:  # rule 4: feature selection
            b = min(n_bonus, sel_prize.shape[0] - 1)
            events[3] += 1
            parts[i, 1] = sel_prize[b]
            win += sel_prize[b]
            if policy == 0:
                events[2] += 1
                part = _lockit(
                    rng, held.copy(), flag, sel_spins[b], wreels, b - min_bonus + 1, True, events, kit
                )
                parts[i, 3] = part
                win += part
            else:
                events[4] += 1
                left = sel_games[b]
                fg_win = 0.0
                while left > 0:
                    left -= 1
                    _draw(rng, fgr, lens[1], window, H)
                    for r in range(R):  # rule 3.3: WILD_3 covers the reel
                        has = False
                        for k in range(H):
                            if window[r, k] == wild3:
                                has = True
                        if has:
                            for k in range(H):
                                window[r, k] = wild3
                    fg_win += _line_units(window, lines, pays, regular, wild) / 20.0
                    np_, nb_, _ = _scan_window(window, held, pig, pig_mark, bonus_sym)
                    if nb_ >= min_bonus:
                        bb = min(nb_, fg_prize.shape[0] - 1)
                        fg_win += fg_prize[bb]
                        left += fg_games[bb]
                    if np_ >= trigger:
                        events[1] += 1
                        fg_win += _lockit(rng, held.copy(), 0, fg_spins, preels, 0, False, events, kit)
                parts[i, 3] = mult * fg_win
                win += mult * fg_win
        wins[i] = win
    return wins, events, parts


@dataclass(frozen=True)
class Sampler:
    """Compiled round sampler (see :mod:`slotmath.montecarlo.run`)."""

    kernel: object
    args: tuple
    event_names: tuple
    part_names: tuple = ()


def _strip_array(game, reel_set, width):
    """Symbol indices per reel, each strip followed by its first ``rows``
    symbols (a window never wraps); ``width`` >= longest strip + rows."""
    out = np.zeros((game.reels, width), dtype=np.int64)
    for r, strip in enumerate(game.strips(reel_set)):
        if strip.weights is not None and len(set(strip.weights)) > 1:
            raise ValueError("the simulator draws uniform stops; weighted strips are not supported")
        idx = [game.symbol_index[s] for s in strip.symbols]
        idx = (idx * (game.rows // len(idx) + 2))[: len(idx) + game.rows]
        out[r, : len(idx)] = idx
    return out


def round_sampler(game: Game, level: int, policy: str = "lockit") -> Sampler:
    """Round sampler at bet ``level`` under a pure selection ``policy``."""
    f = features_of(game)
    lk, fgs, sel = f.lockit, f.free_games, f.selection
    S = len(game.symbols)
    sets = [BASE_REELS, fgs.reels, lk.sources[BASE].reels, lk.sources[BASE].after_mark]
    width = max(len(s) for name in sets for s in game.strips(name)) + game.rows
    strips = np.stack([_strip_array(game, name, width) for name in sets])
    lens = np.array([[len(s) for s in game.strips(name)] for name in sets], dtype=np.int64)
    lines = np.array(game.paylines, dtype=np.int64)
    pays = np.zeros((S, game.reels + 1), dtype=np.int64)
    for lp in game.line_pays:
        (sym,) = lp.positions[0]
        pays[game.symbol_index[sym], len(lp.positions)] = lp.pays[0] // game.levels[0]
    regular = np.array([s.kind == "regular" for s in game.symbols])
    wild = np.array([s.kind == "wild" for s in game.symbols])
    pig = _symbol_set(game, lk.symbols)
    pig_mark = _symbol_set(game, [lk.mark])
    shapes = np.array(lk.shapes, dtype=np.int64)
    tables = [lk.sources[BASE].awards] + [sel.option(b).lockit_awards for b in sorted(sel.options)]
    if lk.sources[FREE].awards != tables[0]:
        raise ValueError("the simulator expects the base-game and free-game lock-it tables to agree")
    K = max(len(a) for t in tables for a in lk.awards.table(t, level))
    aw_val = np.zeros((len(tables), len(shapes), K))
    aw_cum = np.zeros((len(tables), len(shapes), K), dtype=np.int64)
    aw_n = np.zeros((len(tables), len(shapes)), dtype=np.int64)
    aw_jp = np.full((len(tables), len(shapes), K), -1, dtype=np.int64)
    for t, name in enumerate(tables):
        for s, awards in enumerate(lk.awards.table(name, level)):
            aw_n[t, s] = len(awards)
            aw_cum[t, s, : len(awards)] = np.cumsum([a.weight for a in awards])
            for j, a in enumerate(awards):
                aw_val[t, s, j] = float(a.value)
                if a.label in JACKPOT_ORDER:
                    aw_jp[t, s, j] = JACKPOT_ORDER.index(a.label)
    w = f.wheel
    wh_val = np.array([float(v) for _, v, _ in w.segments] + [float(w.pre_prize)])
    wh_cum = np.cumsum([wt for _, _, wt in w.segments]).astype(np.int64)
    wh_jp = np.array(
        [JACKPOT_ORDER.index(lab) if lab in JACKPOT_ORDER else -1 for lab, _, _ in w.segments], dtype=np.int64
    )
    top = game.reels * game.rows + 1
    sel_prize = np.zeros(top)
    sel_spins = np.zeros(top, dtype=np.int64)
    sel_games = np.zeros(top, dtype=np.int64)
    fg_prize = np.zeros(top)
    fg_games = np.zeros(top, dtype=np.int64)
    for b in range(top):
        opt = sel.option(b)
        if opt is not None:
            sel_prize[b], sel_spins[b], sel_games[b] = float(opt.prize), opt.lockit_spins, opt.free_games
        fg_prize[b] = float(fgs.prize(b))
        fg_games[b] = fgs.games(b) if fgs.retrigger else 0
    ints = np.array(
        [
            POLICIES.index(policy),
            game.symbol_index[fgs.symbol],
            game.symbol_index[fgs.nudge] if fgs.nudge else -1,
            lk.trigger,
            sel.min_count,
            lk.sources[BASE].spins,
            lk.sources[FREE].spins,
            int(fgs.multiplier),
            w.pre_probability.numerator,
            w.pre_probability.denominator,
            game.rows,
        ],
        dtype=np.int64,
    )
    args = (
        ints,
        strips,
        lens,
        lines,
        pays,
        regular,
        wild,
        pig,
        pig_mark,
        shapes,
        aw_val,
        aw_cum,
        aw_n,
        aw_jp,
        wh_val,
        wh_cum,
        wh_jp,
        sel_prize,
        sel_spins,
        sel_games,
        fg_prize,
        fg_games,
    )
    return Sampler(piggy_kernel, args, EVENTS, PARTS[policy])


def exact_events(game: Game, level: int, policy: str = "lockit") -> dict:
    """Expected count per round of every simulator event (see ``EVENTS``)."""
    b = breakdown(game, level)
    o = b.odds
    fg = policy == "free_games"
    out = {
        "lockit_base_game": o["lockit base game"],
        "lockit_free_games": o["lockit in free games (policy free_games)"] if fg else 0.0,
        "lockit_selection": 0.0 if fg else o["selection"],
        "selection": o["selection"],
        "free_games": o["selection"] if fg else 0.0,
        "full_screen": o[f"full screen (policy {policy})"],
        "wheel": o[f"wheel (policy {policy})"],
        "superlock": o[f"Superlock jackpot (policy {policy})"],
    }
    for j in JACKPOT_ORDER:
        out[j] = o[f"{j} (policy {policy})"]
    return out


def simulate(game: Game, level: int, spins: int, seed: int = 0, policy: str = "lockit"):
    """Monte Carlo rounds with the compiled sampler; z-scores against the exact RTP.

    Returns a :class:`~slotmath.montecarlo.results.SimulationResult` (simulated figures)."""
    from slotmath.montecarlo.results import Moments, SimulationResult

    sampler = round_sampler(game, level, policy)
    rng = np.random.default_rng(seed)
    moments = Moments()
    done = 0
    while done < spins:
        n = min(1_000_000, spins - done)
        wins = sampler.kernel(rng, n, *sampler.args)[0]
        moments.add(wins)
        done += n
    return SimulationResult(
        game.name, level, spins, seed, moments, {"rtp": breakdown(game, level).rtp[policy]}
    )
