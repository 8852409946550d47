"""Piggy Bankin' Superlock: 5x3, 20 lines, lock-it feature, free games, wheel.

The numbered rules are in ``docs/games/piggy_bankin_superlock.md``; this
module implements them from the features the game file declares
(:mod:`slotmath.features`): lock-it chains (:mod:`slotmath.lockit`) with
shape packing (:mod:`slotmath.shapes`), free games with retriggers
(:mod:`slotmath.freegames`) and the Superlock wheel (:mod:`slotmath.wheel`).

Units
-----
Line pays are linear in the bet multiplier, so a line win is a whole number
of *line-bet units* ``u`` = 1/20 of the total bet, the same at every bet.
Feature awards are whole multiples of the total bet (= 20 u).  Round
distributions are built on the ``u`` grid.

Structure of a round (rule numbers refer to the rules document)
---------------------------------------------------------------
::

    base spin -> line wins + (6+ PIGGY: lock-it from the base game)
              + (3+ BONUS: selection prize + chosen feature (lock-it or free games)).

Every quantity that depends on the screen depends on it through
``(line win, PIGGY mask, WHEEL flag, BONUS count)``; the exact RTP uses the
per-reel factorisation of ``(mask, flag, count)`` (integer stop counts) and
linearity; the distribution conditions on the line win by enumerating every
stop combination that starts a feature.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from collections.abc import Mapping
from functools import cached_property, lru_cache, wraps

import numba as nb
import numpy as np
import pandas as pd
from numba import types
from numba.typed import Dict

from ..combinations import combination_table, line_rtp
from ..distribution import WinDistribution
from ..features import Features, feature_landing, load_features, lockit_chain, nudged_game, \
    shape_counts
from ..gamefile import GameFileError
from ..joint import spin_distribution
from ..lines import pay_tensor
from ..linesim import uniform_below
from ..model import Game
from ..par import ParResult, fraction_str
from .. import wheel as wheel_mod

LINES = 20
BATCH = 32            # lock-it starts played together by LockIt.run_batch
POLICIES = ("lockit", "free_games")
BASE, FREE, SELECT = "base_game", "free_games", "selection"
BASE_REELS = "base"


# ===========================================================================
# checks
# ===========================================================================
def check(game: Game) -> None:
    """Rule-specific checks of the game file (GameFileError naming the field)."""
    def fail(where, problem):
        raise GameFileError(game.source, where, problem)

    if len(game.paylines) != LINES:
        fail("paylines", f"the rules need {LINES} paylines, got {len(game.paylines)}")
    if game.rows != 3 or game.reels != 5:
        fail("grid", "the rules need 5 reels x 3 rows")
    f = load_features(game)
    for name in ("lockit", "free_games", "selection", "wheel"):
        if getattr(f, name) is None:
            fail(f"options.{name}", "is required by the piggy_bankin_superlock rules")
    for src in (BASE, FREE, f.selection.lockit_source):
        if src not in f.lockit.sources:
            fail(f"options.lockit.sources.{src}", "is required")
    if f.selection.symbol != f.free_games.symbol:
        fail("options.selection.symbol", "must be the free-games scatter symbol")
    if f.selection.min_count != f.free_games.min_count:   # one BONUS threshold (rules 4, 3.4)
        fail("options.selection", f"the selection starts at {f.selection.min_count} BONUS and "
             f"free games retrigger at {f.free_games.min_count}: the rules use one count")
    for name in ("WILD", "WILD_3"):
        if name not in game.symbol_index:
            fail("symbols", f"symbol {name} is required")
    # WILD and WILD_3 only on reels 2-5 (rules 1.3, 1.4), in every reel set with lines
    for set_name in (BASE_REELS, f.free_games.reels):
        first = game.strips(set_name)[0].symbols
        for k, s in enumerate(first):
            if s in ("WILD", "WILD_3"):
                fail(f"reels.{set_name}[0][{k}]", f"{s} may only appear on reels 2-5")


# ===========================================================================
# caches keyed by what a result depends on
# ===========================================================================
def _referenced_files(game: Game, options) -> list:
    """Files next to the game file that string options name (award tables)."""
    from pathlib import Path

    from ..gamefile import option_file

    out = []
    if isinstance(options, Mapping):
        options = list(options.values())
    if isinstance(options, list):
        for v in options:
            out += _referenced_files(game, v)
    elif game.source:
        path = option_file(Path(game.source).parent, options)
        if path is not None:
            out.append(path)
    return out


#: Game fields the analysis reads besides the reel strips.
_RULES_FIELDS = ("rules", "reels", "rows", "symbols", "paylines", "line_pays", "scatter_pays",
                 "bet_levels", "options", "source")
_RULES_KEYS: dict = {}          # ids of a game's rules fields -> (the fields, digest)


def _rules_key(game: Game) -> str:
    """Digest of everything but the reel strips that the analysis reads: grid,
    symbols, lines, pays, bets, the feature declarations and the files they
    name (the award tables).  Remembered by the identity of the fields, which
    tuning candidates share (they differ only in their strips): an award file
    edited on disk is read again when the game is loaded again."""
    fields = tuple(getattr(game, name) for name in _RULES_FIELDS)
    ids = tuple(map(id, fields))
    known = _RULES_KEYS.get(ids)
    if known is not None:             # the fields are held, so their ids are not reused
        return known[1]
    if len(_RULES_KEYS) >= 64:
        _RULES_KEYS.clear()
    digest = _rules_digest(game)
    _RULES_KEYS[ids] = (fields, digest)
    return digest


def _rules_digest(game: Game) -> str:
    import hashlib

    from ..files import file_digest

    h = hashlib.sha256(repr((game.rules, game.reels, game.rows, game.symbols, game.paylines,
                             game.line_pays, game.scatter_pays, game.bet_levels,
                             game.options)).encode())
    for path in _referenced_files(game, dict(game.options or {})):   # checked for size
        h.update(str(path.name).encode())
        file_digest(path, h)
    return h.hexdigest()


def feature_sets(game: Game, *args) -> tuple:
    """The reel sets a feature result reads: every set but the base reels."""
    return tuple(sorted(n for n in game.reel_sets if n != BASE_REELS))


class _Keyed:
    """A game compared and hashed by its rules and the strips of ``sets`` only,
    so that games differing elsewhere (new base reels) share cached results."""

    __slots__ = ("game", "key", "_hash")

    def __init__(self, game: Game, sets):
        self.game = game
        self.key = (_rules_key(game),) + tuple((n, game.strips(n)) for n in sets)
        self._hash = hash(self.key)

    def __eq__(self, other):
        return isinstance(other, _Keyed) and self.key == other.key

    def __hash__(self):
        return self._hash


_KEYED_CACHES = []


def keyed_cache(sets, maxsize: int = 32):
    """``lru_cache`` for a function of ``(game, *args)`` keyed by the game's
    rules and the strips of the reel sets ``sets(game, *args)`` names (not by
    the Game object): a tuning candidate with new base reels reuses every
    result that does not read them."""
    def decorate(fn):
        cached = lru_cache(maxsize=maxsize)(lambda k, *args: fn(k.game, *args))

        @wraps(fn)
        def wrapper(game, *args):
            return cached(_Keyed(game, sets(game, *args)), *args)

        wrapper.cache_clear = cached.cache_clear
        wrapper.cache_info = cached.cache_info
        _KEYED_CACHES.append(wrapper)
        return wrapper
    return decorate


def clear_caches() -> None:
    """Forget every cached result of this module (benchmarks of fresh games)."""
    for f in _KEYED_CACHES + [structure]:
        f.cache_clear()
    _RULES_KEYS.clear()


def _no_sets(game, *args) -> tuple:
    return ()


def _this_set(game, reel_set, *args) -> tuple:
    return (reel_set,)


# ===========================================================================
# the game's compiled structure (bet independent)
# ===========================================================================
def _symbol_set(game, names):
    idx = np.zeros(len(game.symbols), dtype=bool)
    for n in names:
        idx[game.symbol_index[n]] = True
    return idx


@dataclass(frozen=True, eq=False)
class ReelData:
    """Per reel and stop of one reel set: window symbols, PIGGY pattern, WHEEL
    flag and BONUS count, padded to (R, Nmax, ...)."""

    sym: np.ndarray        # (R, Nmax, H) symbol indices
    weight: np.ndarray     # (R, Nmax) stop weights (0 = padding)
    n_stops: np.ndarray    # (R,)
    pattern: np.ndarray    # (R, Nmax) held-symbol rows, bit k = row k
    mark: np.ndarray       # (R, Nmax) 1 if a WHEEL shows
    bonus: np.ndarray      # (R, Nmax) BONUS symbols in the window


def reel_data(game: Game, reel_set: str) -> ReelData:
    from ..joint import pack_reels

    f = features_of(game)
    win, weights, n_stops = pack_reels(game, reel_set)
    held = _symbol_set(game, f.lockit.symbols)
    mark = _symbol_set(game, [f.lockit.mark] if f.lockit.mark else [])
    bits = 1 << np.arange(game.rows)
    pattern = (held[win] * bits).sum(axis=2)
    marks = mark[win].any(axis=2).astype(np.int64)
    bonus = (win == game.symbol_index[f.free_games.symbol]).sum(axis=2)
    pattern[weights == 0] = 0
    return ReelData(win, weights, n_stops, pattern.astype(np.int64), marks, bonus.astype(np.int64))


def screen_counts(game: Game, reel_set: str) -> np.ndarray:
    """Exact joint stop counts of (WHEEL flag, PIGGY mask, BONUS count) of one spin.

    Returns
    -------
    ndarray of int64, shape (2, 2**15, 16)
        ``[flag, mask, bonus]`` = stop combinations (weighted) showing it.
    """
    return _screen_counts(game, reel_set)


@nb.njit(cache=True)
def _joint_screen_counts(pattern, mark, bonus, weight, n_stops, H):
    """Joint weighted counts [flag, mask, BONUS] of independent reels; reel r's
    pattern fills mask bits ``H r .. H r + H - 1``."""
    R = pattern.shape[0]
    B = R * H + 1
    acc = np.zeros((2, 1, B), dtype=np.int64)
    acc[0, 0, 0] = 1
    for r in range(R):
        size = acc.shape[1]
        new = np.zeros((2, size << H, B), dtype=np.int64)
        for p, mk, bb, w in _reel_classes(pattern, mark, bonus, weight, n_stops[r], r, H):
            hi = p * size
            for f in range(2):
                for m in range(size):
                    for b in range(B - bb):
                        v = acc[f, m, b]
                        if v != 0:
                            new[f | mk, hi + m, b + bb] += v * w
        acc = new
    return acc


@nb.njit(cache=True)
def _reel_classes(pattern, mark, bonus, weight, n_stops, r, H):
    """Reel ``r``'s stops by (PIGGY pattern, WHEEL flag, BONUS count): rows
    ``(pattern, flag, bonus, weight)`` of the classes it shows."""
    c = np.zeros((1 << H, 2, H + 1), dtype=np.int64)
    for s in range(n_stops):
        c[pattern[r, s], mark[r, s], bonus[r, s]] += weight[r, s]
    out = []
    for p in range(1 << H):
        for mk in range(2):
            for bb in range(H + 1):
                if c[p, mk, bb]:
                    out.append((p, mk, bb, c[p, mk, bb]))
    return out


@keyed_cache(_this_set, maxsize=16)
def _screen_counts(game, reel_set):
    d = reel_data(game, reel_set)
    return _joint_screen_counts(d.pattern, d.mark, d.bonus, d.weight, d.n_stops, game.rows)


def popcount15(n_cells: int = 15) -> np.ndarray:
    pc = np.zeros(1 << n_cells, dtype=np.int64)
    for b in range(n_cells):
        pc[1 << b:2 << b] = pc[:1 << b] + 1
    return pc


@dataclass(frozen=True, eq=False)
class ScreenTotals:
    """Sums of the screen counts [flag, mask, BONUS] of one spin: ``by_bonus``
    over flag and mask, ``by_state`` [flag, mask] over BONUS, ``starts`` the
    stop combinations that start a feature (lock-it trigger or selection)."""

    by_bonus: np.ndarray
    by_state: np.ndarray
    starts: int


@nb.njit(cache=True)
def _screen_totals(screens, pigs, min_bonus):
    """(by BONUS, by (flag, mask), feature starts) of screen counts [flag, mask,
    BONUS]; ``pigs[mask]`` True where the mask triggers the lock-it."""
    F, M, B = screens.shape
    by_b = np.zeros(B, dtype=np.int64)
    by_state = np.zeros((F, M), dtype=np.int64)
    starts = 0
    for fl in range(F):
        for m in range(M):
            total = 0
            for b in range(B):
                c = screens[fl, m, b]
                total += c
                by_b[b] += c
                if pigs[m] or b >= min_bonus:
                    starts += c
            by_state[fl, m] = total
    return by_b, by_state, starts


@nb.njit(cache=True)
def _weighted_total(counts, values):
    """sum(counts * values) of two arrays of one shape, without a temporary."""
    c, v = counts.ravel(), values.ravel()
    total = 0.0
    for i in range(c.shape[0]):
        if c[i]:
            total += c[i] * v[i]
    return total


@dataclass(frozen=True, eq=False)
class Structure:
    """Bet-independent parts of the exact analysis (cached per game)."""

    game: Game
    features: Features

    # -- base and free-game screens -------------------------------------------
    @cached_property
    def fg_game(self) -> Game:
        """The game with the free-game reels replaced by their WILD_3-expanded windows."""
        fg = self.features.free_games
        return nudged_game(self.game, fg.reels, fg.nudge)

    @cached_property
    def base_screens(self) -> np.ndarray:
        return screen_counts(self.game, BASE_REELS)

    @cached_property
    def base_totals(self) -> "ScreenTotals":
        """Sums of :attr:`base_screens` (one pass)."""
        f = self.features
        by_b, by_state, starts = _screen_totals(self.base_screens, self.pc >= f.lockit.trigger,
                                                f.selection.min_count)
        return ScreenTotals(by_b, by_state, int(starts))

    @cached_property
    def fg_screens(self) -> np.ndarray:
        return screen_counts(self.fg_game, self.features.free_games.reels)

    @cached_property
    def pc(self) -> np.ndarray:
        return popcount15(self.game.reels * self.game.rows)

    @cached_property
    def shape_counts(self) -> np.ndarray:
        return _shape_counts(self.game)

    # -- lock-it chains --------------------------------------------------------
    def chain(self, source: str, spins: int | None = None):
        return _chain(self.game, source, spins)

    def start(self, screens: np.ndarray, bonus: int | None = None, pigs: bool = False):
        """Stop counts of start states (flag, mask): screens with ``bonus`` BONUS
        (None: any) restricted to the lock-it trigger when ``pigs``."""
        s = screens[:, :, bonus] if bonus is not None else screens.sum(axis=2)
        if pigs:
            s = s * (self.pc >= self.features.lockit.trigger)[None, :]
        return s

    @cached_property
    def cycles(self) -> dict:
        return {BASE: self.game.cycle(BASE_REELS), FREE: self.fg_game.cycle(self.features.free_games.reels)}

    def final(self, key: tuple) -> tuple:
        """Final (flag, mask) distribution and spins of a lock-it start (cached):
        ``key = (source, screens, bonus, spins)``, conditional on the start."""
        return _final(self.game, key)


@lru_cache(maxsize=8)
def structure(game: Game) -> Structure:
    return Structure(game, features_of(game))


@keyed_cache(_no_sets, maxsize=16)
def features_of(game: Game) -> Features:
    """:func:`slotmath.features.load_features`, shared by games with the same rules."""
    return load_features(game)


@keyed_cache(_no_sets)
def _shape_counts(game):
    return shape_counts(game, features_of(game).lockit)


@keyed_cache(feature_sets)
def _chain(game, source, spins):
    return lockit_chain(game, features_of(game).lockit, source, spins)


def _final_sets(game, key) -> tuple:
    """A lock-it start read from base-game screens reads the base reels too."""
    return feature_sets(game) + ((BASE_REELS,) if key[1] == BASE else ())


@keyed_cache(_final_sets, maxsize=64)
def _final(game, key):
    st = structure(game)
    source, screens, bonus, spins = key
    scr = st.base_screens if screens == BASE else st.fg_screens
    start = st.start(scr, bonus, pigs=bonus is None).astype(float)
    p = start.sum()
    if p == 0:
        return None, 0.0, 0.0
    res = st.chain(source, spins).run(start / p)
    mark_paid = features_of(game).lockit.sources[source].mark_award
    final = res.final if mark_paid else np.stack([res.final.sum(axis=0), 0 * res.final[0]])
    return final, p, res.spins_mean


# ===========================================================================
# award tables per bet
# ===========================================================================
@dataclass(frozen=True, eq=False)
class Prizes:
    """Per-state mean prize [x total bet] of one award table at one bet."""

    mean: np.ndarray            # per shape
    second: np.ndarray
    wheel_mean: float
    wheel_second: float
    labels: dict                # jackpot label -> per-shape probability array

    def f(self, counts) -> np.ndarray:
        """E[prize | final (flag, mask)], shape (2, masks)."""
        shapes = counts @ self.mean
        return np.stack([shapes, shapes + self.wheel_mean])


def prizes(game: Game, table: str, level: int) -> Prizes:
    return _prizes(game, table, level)


@keyed_cache(_no_sets, maxsize=256)
def _prizes(game, table, level):
    f = features_of(game)
    m1, m2 = f.lockit.awards.moments(table, level)
    wm, w2 = wheel_mod.moments(f.wheel)
    labels = {}
    for s, awards in enumerate(f.lockit.awards.table(table, level)):
        total = sum(a.weight for a in awards)
        for a in awards:
            if a.label in f.jackpots:
                labels.setdefault(a.label, np.zeros(len(f.lockit.shapes)))
                labels[a.label][s] += a.weight / total
    return Prizes(np.array([float(x) for x in m1]), np.array([float(x) for x in m2]),
                  float(wm), float(w2), labels)


# ===========================================================================
# exact RTP
# ===========================================================================
@dataclass
class Breakdown:
    """RTP by channel under each selection policy, plus feature odds."""

    components: dict            # policy -> {name: value [x total bet]}
    rtp: dict                   # policy -> RTP
    odds: dict                  # name -> probability or expected count per round
    values: dict                # name -> expected value of a feature [x total bet]
    shapes: pd.DataFrame        # per source and shape: count per feature and per round, RTP


def lines_rtp(game: Game, level: int, reel_set: str = BASE_REELS, lines_game: Game | None = None):
    """Exact line RTP [x total bet] of ``reel_set`` of ``lines_game`` (default
    ``game``) with ``game``'s pay table: ``sum over lines and symbol tuples of
    win x stop combinations / (cycle x total bet)``.  Line pays are linear in
    the bet, so the figure is computed once per reel set (cached)."""
    lv0 = game.levels[0]
    for lp in game.line_pays:
        if any(p * lv0 != lp.pays[0] * lv for p, lv in zip(lp.pays, game.levels)):
            return line_rtp(lines_game or game, level, reel_set)[0]
    return _lines_rtp(lines_game or game, reel_set)


@keyed_cache(_this_set, maxsize=16)
def _lines_rtp(lines_game, reel_set):
    """(``lines_game`` has the pay table of the game: the nudged free-game
    form of it only differs in its strips.)"""
    from ..multilinear import cycle_line_win

    game = lines_game
    total = int(cycle_line_win(game, pay_tensor(game, game.levels[0]).reshaped(), reel_set))
    bet = game.bet(game.levels[0])
    return Fraction(total, lines_game.cycle(reel_set) * bet.total_bet)


def _fg_per_spin(st: Structure, level: int) -> dict:
    """Per free spin (before the x multiplier): mean line win, prize and lock-it,
    and the retrigger statistics."""
    g, fgs = st.game, st.features.free_games
    lines = lines_rtp(g, level, fgs.reels, st.fg_game)
    cyc = st.cycles[FREE]
    by_bonus = st.fg_screens.sum(axis=(0, 1))
    p_b = [Fraction(int(c), cyc) for c in by_bonus]
    prize = sum((p * fgs.prize(b) for b, p in enumerate(p_b)), Fraction(0))
    games = np.array([fgs.games(b) if fgs.retrigger else 0 for b in range(len(p_b))])
    ek = sum(p * int(k) for p, k in zip(p_b, games))
    final, p_trig, _ = st.final((FREE, FREE, None, None))
    pz = prizes(g, st.features.lockit.sources[FREE].awards, level)
    lock = p_trig / cyc * float((final * pz.f(st.shape_counts)).sum()) if final is not None else 0.0
    shape_n = (final.sum(axis=0) @ st.shape_counts) * p_trig / cyc if final is not None \
        else np.zeros(len(pz.mean))
    return {"lines": lines, "prize": prize, "lockit": lock, "ek": ek, "p_b": p_b,
            "p_lockit": p_trig / cyc, "shape_n": shape_n, "final": final,
            "full": (final.sum(axis=0)[-1] * p_trig / cyc) if final is not None else 0.0}


def breakdown(game: Game, level: int) -> Breakdown:
    """Exact RTP components at bet ``level`` under both selection policies.

    Line and selection-prize parts are Fractions; lock-it, wheel and free-game
    parts are float64 (relative error below 1e-12: sums of products of
    non-negative terms, see :mod:`slotmath.lockit`)."""
    st = structure(game)
    f = st.features
    lk, sel, fgs = f.lockit, f.selection, f.free_games
    cyc = st.cycles[BASE]
    comps = {p: {} for p in POLICIES}
    base_lines = lines_rtp(game, level, BASE_REELS)
    by_bonus = st.base_screens.sum(axis=(0, 1))
    p_b = [Fraction(int(c), cyc) for c in by_bonus]
    sel_prize = sum((p * sel.option(b).prize for b, p in enumerate(p_b) if sel.option(b)),
                    Fraction(0))
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
            rows.append({"source": source_label, "shape": name, "per_feature": n[s] / weight,
                         "count": n[s], "mean_award": pz.mean[s], "rtp": n[s] * pz.mean[s],
                         "policies": ",".join(policy_list)})
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
    n_base, flag_base, jack_base = lockit_part(final, w_base, lk.sources[BASE].awards,
                                               "base game", list(POLICIES))
    odds["lockit base game"] = w_base
    full = {"base game": final.sum(axis=0)[-1] * w_base}
    flags = {pol: flag_base for pol in POLICIES}
    jackpots = {pol: dict(jack_base) for pol in POLICIES}

    # selection (rule 4): policy lock-it
    p_sel = 0.0
    fg_stats = _fg_per_spin(st, level)
    mult = float(fgs.multiplier)
    one_fg = _per_awarded_game(fg_stats)
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
        c["free games prizes"] = c.get("free games prizes", 0.0) + pb * mult * games * float(fg_stats["prize"])
        fg_count += pb * games
    # lock-it in free games: shapes by type, x multiplier
    pz_fg = prizes(game, lk.sources[FREE].awards, level)
    for s, name in enumerate(lk.shape_names):
        v = fg_count * mult * fg_stats["shape_n"][s] * pz_fg.mean[s]
        comps["free_games"][f"lock-it free games: {name}"] = v
        p_lk = float(fg_stats["p_lockit"])
        rows.append({"source": "free games", "shape": name,
                     "per_feature": fg_stats["shape_n"][s] / p_lk if p_lk else 0.0,
                     "count": fg_count * fg_stats["shape_n"][s], "mean_award": pz_fg.mean[s] * mult,
                     "rtp": v, "policies": "free_games"})
    for label, per_shape in pz_fg.labels.items():
        jackpots["free_games"][label] = jackpots["free_games"].get(label, 0.0) + \
            fg_count * float(fg_stats["shape_n"] @ per_shape)
    full["free games"] = fg_count * fg_stats["full"]
    odds["selection"] = p_sel
    odds["free games (policy free_games)"] = p_sel
    odds["lockit in free games (policy free_games)"] = fg_count * fg_stats["p_lockit"]
    odds["lockit selection (policy lockit)"] = p_sel
    for pol in POLICIES:
        fs = full["base game"] + (full["free games"] if pol == "free_games" else
                                  sum(v for k, v in full.items() if k.startswith("selection")))
        odds[f"full screen (policy {pol})"] = fs
        odds[f"wheel (policy {pol})"] = flags[pol]
        odds[f"Superlock jackpot (policy {pol})"] = flags[pol] * float(f.wheel.pre_probability)
        wheel_j = {lab: float(p) for lab, _, p in wm if lab in f.jackpots}
        for lab in f.jackpots:
            odds[f"{lab} (policy {pol})"] = jackpots[pol].get(lab, 0.0) + \
                flags[pol] * wheel_j.get(lab, 0.0)
    values["lockit base game"] = float((final * prizes(game, lk.sources[BASE].awards, level)
                                        .f(counts)).sum())
    values["free game (one, incl. retriggers)"] = mult * one_fg
    rtp = {pol: sum(float(v) for v in comps[pol].values()) for pol in POLICIES}
    return Breakdown(comps, rtp, odds, values, pd.DataFrame(rows))


# ===========================================================================
# tuning figures: exact RTP fast after a base-reel change
# ===========================================================================
@keyed_cache(feature_sets, maxsize=64)
def _lockit_values(game, source, spins, table, level):
    """Expected prize [x total bet] of a lock-it from every start (flag, mask),
    wheel included where it is paid: the chain's value function (linearity:
    the RTP of any start distribution is its dot product with these values)."""
    st = structure(game)
    f = prizes(game, table, level).f(st.shape_counts)
    if not st.features.lockit.sources[source].mark_award:
        f = np.stack([f[0], f[0]])
    return _chain(game, source, spins).values(f)


def _per_free_spin(d: dict) -> float:
    """Expected win of one free spin before the multiplier [x total bet]
    (lines, BONUS prizes, lock-it; ``d`` from :func:`_fg_per_spin`)."""
    return float(d["lines"]) + float(d["prize"]) + float(d["lockit"])


def _per_awarded_game(d: dict) -> float:
    """Expected win of one awarded free game with the games its retriggers
    add, ``E[spin] / (1 - E[K])``, before the multiplier [x total bet]."""
    return _per_free_spin(d) / (1 - float(d["ek"]))


@keyed_cache(feature_sets)
def _free_games_value(game, level) -> float:
    """Value of one awarded free game, retriggers and multiplier included [x total bet]."""
    d = _fg_per_spin(structure(game), level)
    one = _per_awarded_game(d)
    return float(structure(game).features.free_games.multiplier) * one


@keyed_cache(feature_sets, maxsize=64)
def _lockit_second_values(game, source, spins, table, level):
    """Second moment [(x total bet)^2] of a lock-it's prize from every start
    (flag, mask): the chain's value function of ``E[prize^2 | final]``.

    Given the final mask the shape awards are independent draws and the
    wheel (where paid) one more, so with ``n`` the shape counts, ``m`` /
    ``m2`` the shapes' award moments and ``w`` / ``w2`` the wheel's:
    ``E[P^2 | final] = sum_s n_s (m2_s - m_s^2) + (n.m)^2 + flag (2 (n.m) w + w2)``."""
    st = structure(game)
    pz = prizes(game, table, level)
    counts = st.shape_counts
    a = counts @ pz.mean
    a2 = counts @ (pz.second - pz.mean ** 2) + a ** 2
    g = np.stack([a2, a2 + 2 * a * pz.wheel_mean + pz.wheel_second])
    if not st.features.lockit.sources[source].mark_award:
        g = np.stack([a2, a2])
    return _chain(game, source, spins).values(g)


@keyed_cache(_no_sets, maxsize=16)
def _prefix_tables(game, level):
    """:func:`slotmath.lines.prefix_determined` of the pay table at ``level``,
    concatenated: ``(tables, offsets)``."""
    from ..lines import prefix_determined

    prefix = prefix_determined(pay_tensor(game, level))
    return (np.concatenate(prefix),
            np.cumsum([0] + [len(t) for t in prefix[:-1]]).astype(np.int64))


def _walk_feature_screens(game, reel_set, level):
    """The feature-starting stop combinations of ``reel_set`` of a window game
    (:func:`window_game`) aggregated by (line win [coins at ``level``],
    BONUS, flag, mask): arrays ``(win, bonus, flag, mask, count)`` in key order."""
    keys, vals, _, _ = _run_feature_walk(game, reel_set, level, None)
    order = np.argsort(keys)
    keys, vals = keys[order], vals[order]
    cells = game.reels * game.rows
    rest = keys >> cells
    return (rest // (2 * (cells + 1)), (rest // 2) % (cells + 1), rest % 2,
            keys % (1 << cells), vals)


def _feature_screen_sums(game, reel_set, level, f, q):
    """``(sum count x win x f, sum count x [win = 0] x q)`` over the
    feature-starting stop combinations of ``reel_set`` of a window game
    [coins at ``level`` x f, stop combinations x q], ``f`` (float) and ``q``
    (integer) arrays [flag, BONUS, mask] of shape (2, n_b, 2**(R H)) that are
    0 off the feature starts; the walk does not visit each combination
    (:func:`_suffix_tables`)."""
    _, _, win_f, quiet_q = _run_feature_walk(game, reel_set, level, (f, q))
    return win_f, int(quiet_q)


def _run_feature_walk(game, reel_set, level, suffix):
    """:func:`_feature_screens` on ``reel_set`` of a window game; with
    ``suffix = (f, q)`` through their suffix tables."""
    f = features_of(game)
    d = reel_data(game, reel_set)
    tables, offsets = _prefix_tables(game, level)
    pigs_of = popcount15(game.rows)
    cls_start, cls_order = _stop_classes(d, pigs_of)
    if suffix is None:
        lf, lq, n_b = np.zeros(0), np.zeros(0, dtype=np.int8), 0
        sf, sq, at = lf, np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    else:
        lf, lq, n_b = suffix[0].ravel(), suffix[1].ravel(), suffix[0].shape[1]
        sf, sq, at = _suffix_tables(lf, lq, d.pattern, d.mark, d.bonus, d.weight, d.n_stops,
                                    game.rows, n_b)
    return _feature_screens(
        d.sym, d.weight, d.n_stops, d.pattern, d.mark, d.bonus,
        np.array(game.paylines, dtype=np.int64), tables, offsets, len(game.symbols),
        f.lockit.trigger, f.free_games.min_count, pigs_of, cls_start, cls_order, sf, sq, at,
        lf, lq, n_b)


@nb.njit(cache=True)
def _suffix_tables(f_last, q_last, pattern, mark, bonus, weight, n_stops, H, n_b):
    """Suffix sums of a function of the whole screen's (flag, BONUS, mask).

    ``f_last``, ``q_last``: flattened [flag, BONUS, mask] arrays of the
    screen (shape (2, n_b, 2**(R H))).  For every prefix length r = 0..R-1
    the table of r reels holds, at ``at[r] + (flag n_b + BONUS) 2**(r H) +
    mask`` (the prefix's flag, BONUS count and mask), the weighted sum of
    ``f`` (``q``) over every completion by reels r..R-1 (for r = R the
    arrays themselves, not copied).  Returns (f, q, at)."""
    R = pattern.shape[0]
    at = np.zeros(R + 1, dtype=np.int64)
    for r in range(1, R + 1):
        at[r] = at[r - 1] + (2 * n_b << ((r - 1) * H))
    tf = np.zeros(at[R])
    tq = np.zeros(at[R], dtype=np.int64)
    reach = np.zeros(R + 1, dtype=np.int64)   # most BONUS reels < r show
    for r in range(R):
        most = 0
        for s in range(n_stops[r]):
            if weight[r, s] > 0:
                most = max(most, bonus[r, s])
        reach[r + 1] = reach[r] + most
    for r in range(R - 1, -1, -1):
        classes = _reel_classes(pattern, mark, bonus, weight, n_stops[r], r, H)
        if r == R - 1:
            _suffix_step(tf, tq, at[r], f_last, q_last, 0, classes, r * H, H, n_b, reach[r])
        else:
            _suffix_step(tf, tq, at[r], tf, tq, at[r + 1], classes, r * H, H, n_b, reach[r])
    return tf, tq, at


@nb.njit(cache=True)
def _suffix_step(tf, tq, here, nf, nq, there, classes, shift, H, n_b, reach):
    """One reel of :func:`_suffix_tables`: the table of the prefix of reels
    before it (at ``here`` in ``tf``/``tq``) from the table one reel longer
    (at ``there`` in ``nf``/``nq``) and the reel's stop classes."""
    size = 1 << shift
    for p, mk, bb, w in classes:
        for fl in range(2):
            for b in range(min(n_b - bb, reach + 1)):
                src = here + (fl * n_b + b) * size
                dst = there + (((fl | mk) * n_b + b + bb) << (shift + H)) + (p << shift)
                for m in range(size):
                    tf[src + m] += w * nf[dst + m]
                    tq[src + m] += w * nq[dst + m]


@keyed_cache(_no_sets, maxsize=16)
def _features_always_pay(game: Game, level: int) -> bool:
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
    return all(sel.option(b).prize > 0 for b in range(sel.min_count, game.reels * game.rows + 1)
               if sel.option(b))


def round_moments(game: Game, level: int, rtp: float) -> dict:
    """Whole-round hit frequency, second moment, SD and VI under the headline
    policy (selection: always lock-it, as :func:`analyse`), without the round
    distribution: ``{"hit_frequency": Fraction [probability], "second_moment"
    [(x total bet)^2], "sd", "vi" [x total bet]}`` (no hit frequency when a
    feature start may pay nothing).

    With ``L`` the base line win and ``F`` everything the screen's (PIGGY
    mask, WHEEL flag, BONUS count) leads to, ``X = L + F`` and
    ``E[X^2] = E[L^2] + 2 E[L F] + E[F^2]``: ``E[L^2]`` from
    :func:`slotmath.moments.line_moments` (exact), ``E[F | screen]`` and
    ``E[F^2 | screen]`` from the value functions of the lock-it chains of the
    prize and of its square (:func:`_lockit_values`,
    :func:`_lockit_second_values`) plus the selection prize, and ``E[L F]``
    and the hit frequency from the feature-starting screens with their line
    win (:func:`_feature_screen_sums`: prefixes whose lines are all fixed
    are not expanded).  Every feature start pays (checked:
    :func:`_features_always_pay`), so ``P(X = 0) = P(no line win) - P(no line
    win, a feature starts)``: the hit frequency is an exact Fraction.  A
    screen with both 6+ PIGGY and 3+ BONUS plays both features independently.

    Error: ``E[X^2]`` is float64 sums of non-negative products of the
    chains' values (relative error below 1e-12 as :func:`breakdown`); the SD's
    relative error is below ``1e-12 E[X^2] / Var X`` (< 1e-11 for the seed
    game, whose Var X is most of E[X^2]).  ``rtp`` is the headline RTP.
    """
    from ..distribution import z_value
    from ..figures import VI_CONFIDENCE
    from ..moments import line_moments

    st = structure(game)
    cyc = game.cycle(BASE_REELS)
    scr = st.base_screens
    present = tuple(int(b) for b in np.flatnonzero(st.base_totals.by_bonus))
    sv = _screen_values(game, level, present)
    f2 = _weighted_total(scr, sv.ef2_fmb) / cyc
    win_f, quiet_starts = _feature_screen_sums(window_game(game, BASE_REELS), BASE_REELS,
                                               level, sv.ef_fbm, sv.starts_fbm)
    lf = win_f / game.bet(level).total_bet / cyc
    lm = line_moments(game, level, BASE_REELS)
    second = float(lm.second_moment) + 2 * lf + f2
    sd = max(second - rtp * rtp, 0.0) ** 0.5
    out = {"second_moment": second, "sd": sd, "vi": z_value(VI_CONFIDENCE) * sd}
    if _features_always_pay(game, level):
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


@keyed_cache(feature_sets, maxsize=8)
def _screen_values(game, level, present):
    """:class:`ScreenValues` at ``level`` for the BONUS counts ``present`` on
    the base screens (the others are left 0); no base reel is read."""
    st = structure(game)
    f = st.features
    lk, sel = f.lockit, f.selection
    n_b = game.reels * game.rows + 1
    src = lk.sources[BASE]
    v_base = _lockit_values(game, BASE, None, src.awards, level)
    v2_base = _lockit_second_values(game, BASE, None, src.awards, level)
    pigs = st.pc >= lk.trigger
    ef = np.zeros((2, len(st.pc), n_b))
    ef2 = np.zeros_like(ef)
    for b in present:
        o = sel.option(b)
        if o is None:
            continue
        v = _lockit_values(game, sel.lockit_source, o.lockit_spins, o.lockit_awards, level)
        v2 = _lockit_second_values(game, sel.lockit_source, o.lockit_spins, o.lockit_awards,
                                   level)
        p = float(o.prize)
        ef[:, :, b] = p + v
        ef2[:, :, b] = p * p + 2 * p * v + v2
    both = ef * pigs[None, :, None]                  # lock-it and selection on one screen
    ef2 += 2 * both * v_base[:, :, None] + (v2_base * pigs[None, :])[:, :, None]
    ef += (v_base * pigs[None, :])[:, :, None]
    starts = pigs[:, None] | (np.arange(n_b) >= f.free_games.min_count)[None, :]
    return ScreenValues(np.ascontiguousarray(ef.transpose(0, 2, 1)), ef2,
                        np.ascontiguousarray(np.broadcast_to(starts.T, (2, n_b, len(st.pc))),
                                             dtype=np.int8))


#: Figures of the whole round that :func:`round_moments` gives.
ROUND_FIGURES = frozenset({"hit_frequency", "sd", "vi", "second_moment"})


def tuning_figures(game: Game, level: int, needed=None) -> dict:
    """Exact figures of the base game for tuning (see :mod:`slotmath.figures`).

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
    f = st.features
    lk, sel = f.lockit, f.selection
    cyc = game.cycle(BASE_REELS)
    scr = st.base_screens
    totals = st.base_totals
    by_b = totals.by_bonus
    lines = lines_rtp(game, level, BASE_REELS)
    options = [(b, sel.option(b)) for b in range(len(by_b)) if sel.option(b) and by_b[b]]
    sel_prize = sum((Fraction(int(by_b[b]), cyc) * o.prize for b, o in options), Fraction(0))
    trig = totals.by_state * (st.pc >= lk.trigger)[None, :]
    src = lk.sources[BASE]
    lock = float((trig * _lockit_values(game, BASE, None, src.awards, level)).sum()) / cyc
    by_choice = {"lockit": 0.0, "free_games": 0.0}
    fg_one = _free_games_value(game, level)
    for b, o in options:
        v = _lockit_values(game, sel.lockit_source, o.lockit_spins, o.lockit_awards, level)
        by_choice["lockit"] += float((scr[:, :, b] * v).sum()) / cyc
        by_choice["free_games"] += int(by_b[b]) / cyc * o.free_games * fg_one
    common = float(lines) + float(sel_prize) + lock
    n_trig = int(trig.sum())
    n_sel = sum(int(by_b[b]) for b, _ in options)
    n_feat = totals.starts
    out = {"rtp": common + by_choice["lockit"],
           "feature:by_choice.lockit": common + by_choice["lockit"],
           "feature:by_choice.free_games": common + by_choice["free_games"],
           "rtp:base lines": lines, "rtp:selection prizes": sel_prize,
           "feature_frequency": Fraction(n_feat, cyc),
           "lockit_one_in": Fraction(cyc, n_trig) if n_trig else None,
           "selection_one_in": Fraction(cyc, n_sel) if n_sel else None}
    if needed is None or ROUND_FIGURES & set(needed):
        out.update(round_moments(game, level, out["rtp"]))
    return out


# ===========================================================================
# feature screens: joint (line win, mask, flag, BONUS) by enumeration
# ===========================================================================
@nb.njit(cache=True)
def _candidate_table(cls_start, cls_order, max_p, max_b, min_pigs, min_bonus):
    """Stops of each reel r after which a feature can still start, for every
    (PIGGY, BONUS) count ``(p, b)`` of the reels before it: ``flat[start[r, p,
    b]:start[r, p, b] + size[r, p, b]]``.  ``max_*[r]``: the most reels r..
    can add; stops are grouped by class ``(H + 1) pigs + BONUS``."""
    R = cls_start.shape[0]
    k = cls_start.shape[1] - 1            # classes (H + 1)**2
    h1 = int(np.sqrt(k) + 0.5)
    top = (h1 - 1) * R + 1
    start = np.zeros((R, top, top), dtype=np.int64)
    size = np.zeros((R, top, top), dtype=np.int64)
    flat = np.zeros(R * top * top * cls_order.shape[1], dtype=np.int64)
    n = 0
    for r in range(R):
        need_p, need_b = min_pigs - max_p[r + 1], min_bonus - max_b[r + 1]
        for p in range(top):
            for b in range(top):
                start[r, p, b] = n
                for c in range(k):
                    if p + c // h1 >= need_p or b + c % h1 >= need_b:
                        for j in range(cls_start[r, c], cls_start[r, c + 1]):
                            flat[n] = cls_order[r, j]
                            n += 1
                size[r, p, b] = n - start[r, p, b]
    return flat[:n], start, size


@nb.njit(cache=True)
def _feature_screens(sym, weight, n_stops, pattern, mark, bonus, lines, tables, offsets, S,
                     min_pigs, min_bonus, pigs_of, cls_start, cls_order,
                     suffix_f, suffix_q, suffix_at, last_f, last_q, n_b):
    """Every stop combination that starts a feature (pigs >= ``min_pigs`` or
    BONUS >= ``min_bonus``), aggregated by (line win, BONUS, flag, mask), or
    -- given suffix tables -- the sums ``sum count win f(flag, mask, BONUS)``
    and ``sum count [win = 0] q(flag, mask, BONUS)`` over them.

    Depth-first walk over the reels with an explicit stack (any reel count).
    Stops are visited by class (pigs, BONUS) so that only prefixes that can
    still start a feature are expanded; a payline whose win its prefix
    already fixes (``tables``, :func:`slotmath.lines.prefix_determined`
    concatenated at ``offsets``) is not looked up again below that prefix.
    With suffix tables (``suffix_at`` not empty, :func:`_suffix_tables`; the
    screen's own table ``last_*``), a prefix whose every line is fixed is not
    expanded: its line win times the table entry of its (flag, BONUS, mask)
    is the sum over all its completions.

    Returns (keys, counts, win_f, quiet_q); without tables key = ((win *
    (R H + 1) + bonus) * 2 + flag) * 2**(R H) + mask, win in the units of
    ``tables``; with tables keys and counts are empty.
    """
    R, H, L = sym.shape[0], sym.shape[2], lines.shape[0]
    B = R * H + 1
    M = 1 << (R * H)
    max_p = np.zeros(R + 1, dtype=np.int64)     # most PIGGY / BONUS reels r.. can add
    max_b = np.zeros(R + 1, dtype=np.int64)
    for r in range(R - 1, -1, -1):
        mp, mb = 0, 0
        for s in range(n_stops[r]):
            if weight[r, s] > 0:
                mp = max(mp, pigs_of[pattern[r, s]])
                mb = max(mb, bonus[r, s])
        max_p[r] = max_p[r + 1] + mp
        max_b[r] = max_b[r + 1] + mb
    out = Dict.empty(key_type=types.int64, value_type=types.int64)
    sums = suffix_at.shape[0] > 0
    win_f = 0.0
    quiet_q = 0
    cand, c_start, c_size = _candidate_table(cls_start, cls_order, max_p, max_b, min_pigs,
                                             min_bonus)
    pos = np.zeros(R, dtype=np.int64)
    end = np.zeros(R, dtype=np.int64)
    pidx = np.zeros((R + 1, L), dtype=np.int64)  # tensor index of each live line's prefix
    live = np.zeros((R + 1, L), dtype=np.int64)  # live lines after reels < level
    n_live = np.zeros(R + 1, dtype=np.int64)
    fixed = np.zeros(R + 1, dtype=np.int64)      # win of the lines already fixed
    pigs = np.zeros(R + 1, dtype=np.int64)
    bon = np.zeros(R + 1, dtype=np.int64)
    msk = np.zeros(R + 1, dtype=np.int64)
    flg = np.zeros(R + 1, dtype=np.int64)
    wt = np.ones(R + 1, dtype=np.int64)
    for l in range(L):
        live[0, l] = l
    n_live[0] = L
    pos[0], end[0] = c_start[0, 0, 0] - 1, c_start[0, 0, 0] + c_size[0, 0, 0]
    level = 0
    while level >= 0:
        pos[level] += 1
        if pos[level] >= end[level]:
            level -= 1
            continue
        s = cand[pos[level]]
        nxt = level + 1
        pigs[nxt] = pigs[level] + pigs_of[pattern[level, s]]
        bon[nxt] = bon[level] + bonus[level, s]
        msk[nxt] = msk[level] | (pattern[level, s] << (level * H))
        flg[nxt] = flg[level] | mark[level, s]
        wt[nxt] = wt[level] * weight[level, s]
        off = offsets[level]
        acc = fixed[level]
        n = 0
        for i in range(n_live[level]):
            l = live[level, i]
            q = pidx[level, l] * S + sym[level, s, lines[l, level]]
            v = tables[off + q]
            if v < 0:
                pidx[nxt, l] = q
                live[nxt, n] = l
                n += 1
            else:
                acc += v
        if sums and (n == 0 or nxt == R):        # every completion has line win acc
            at = ((flg[nxt] * n_b + bon[nxt]) << (nxt * H)) + msk[nxt]
            if nxt == R:
                qv, fv = last_q[at], last_f[at]
            else:
                qv, fv = suffix_q[suffix_at[nxt] + at], suffix_f[suffix_at[nxt] + at]
            if acc == 0:
                quiet_q += wt[nxt] * qv
            else:
                win_f += float(wt[nxt]) * acc * fv
            continue
        if nxt == R:                             # every line is fixed at full length
            key = ((acc * B + bon[nxt]) * 2 + flg[nxt]) * M + msk[nxt]
            out[key] = out.get(key, 0) + wt[nxt]
            continue
        fixed[nxt] = acc
        n_live[nxt] = n
        pos[nxt] = c_start[nxt, pigs[nxt], bon[nxt]] - 1
        end[nxt] = pos[nxt] + 1 + c_size[nxt, pigs[nxt], bon[nxt]]
        level = nxt
    keys = np.empty(len(out), dtype=np.int64)
    vals = np.empty(len(out), dtype=np.int64)
    i = 0
    for k, v in out.items():
        keys[i] = k
        vals[i] = v
        i += 1
    return keys, vals, win_f, quiet_q


def _stop_classes(d: ReelData, pigs_of: np.ndarray):
    """Stops of every reel ordered by class ``(H + 1) pigs + BONUS`` (weight > 0 only):
    ``cls_order[r, cls_start[r, c]:cls_start[r, c + 1]]`` are the stops of class c."""
    R, nmax, H = d.sym.shape
    k = (H + 1) ** 2
    cls_start = np.zeros((R, k + 1), dtype=np.int64)
    cls_order = np.zeros((R, nmax), dtype=np.int64)
    for r in range(R):
        stops = np.flatnonzero(d.weight[r] > 0)
        cls = (H + 1) * pigs_of[d.pattern[r, stops]] + d.bonus[r, stops]
        order = np.argsort(cls, kind="stable")
        cls_order[r, :len(stops)] = stops[order]
        cls_start[r, 1:] = np.cumsum(np.bincount(cls, minlength=k))
    return cls_start, cls_order


@dataclass(frozen=True, eq=False)
class Screens:
    """Outcomes of one spin of a reel set by what the round does next.

    ``plain[w]``: stop combinations with line win ``w`` [u] and no feature;
    ``win, bonus, flag, mask, count``: the feature-starting combinations,
    aggregated.  Exact integer counts; ``cycle`` their total."""

    plain: np.ndarray
    win: np.ndarray
    bonus: np.ndarray
    flag: np.ndarray
    mask: np.ndarray
    count: np.ndarray
    cycle: int


def screens(game: Game, reel_set: str) -> Screens:
    """Enumerate the feature-starting screens of ``reel_set`` (bet independent)."""
    return _screens(game, reel_set)


def window_game(game: Game, reel_set: str) -> Game:
    """``game`` with each strip of ``reel_set`` replaced by its distinct windows.

    A reel's stops that show the same window (the expanded WILD_3 windows of
    the free-game reels, repeated runs) are merged into one stop whose weight
    is their total, laid out like :func:`slotmath.features.nudged_strip`
    (window ``i`` at positions ``H i .. H i + H - 1``, its weight on the first,
    0 on the others).  Every window-based figure is unchanged (same windows,
    same weights, same cycle); enumerations visit fewer stops."""
    from dataclasses import replace

    from ..model import Strip

    H = game.rows
    strips = []
    for strip in game.strips(reel_set):
        n, syms, w = len(strip), strip.symbols, strip.stop_weights()
        merged = {}
        for stop in range(n):
            if w[stop]:
                window = tuple(syms[(stop + k) % n] for k in range(H))
                merged[window] = merged.get(window, 0) + int(w[stop])
        strips.append(Strip(tuple(x for window in merged for x in window),
                            tuple(v for c in merged.values() for v in [c] + [0] * (H - 1))))
    sets = dict(game.reel_sets)
    sets[reel_set] = tuple(strips)
    return replace(game, reel_sets=sets)


@keyed_cache(_this_set, maxsize=8)
def _screens(game, reel_set):
    game = window_game(game, reel_set)
    unit = game.levels[0]
    win, bonus, flag, mask, vals = _walk_feature_screens(game, reel_set, unit)
    if (win % unit).any():
        raise ValueError("a line win is not a whole number of bet-multiplier units")
    win = win // unit
    all_lines = spin_distribution(game, game.levels[0], reel_set)
    assert all_lines.unit_den == 1
    plain = np.zeros(int(max(all_lines.wins.max() // unit, win.max(initial=0))) + 1, dtype=np.int64)
    plain[all_lines.wins // unit] = np.array(all_lines.weights, dtype=np.int64)
    np.subtract.at(plain, win, vals)
    assert plain.min() >= 0
    return Screens(plain, win, bonus, flag, mask, vals, game.cycle(reel_set))


# ===========================================================================
# prize distributions
# ===========================================================================
@keyed_cache(_no_sets, maxsize=8)
def _shape_classes(game):
    counts = structure(game).shape_counts
    vectors, cv = np.unique(counts, axis=0, return_inverse=True)
    return vectors, cv.ravel()


class PrizeDistributions:
    """Distributions of the final lock-it prize [x total bet] for one award
    table at one bet, by shape-count vector (memoised convolutions)."""

    def __init__(self, game: Game, table: str, level: int):
        f = features_of(game)
        self.shape = f.lockit.awards.distributions(table, level)
        self.wheel = wheel_mod.distribution(f.wheel)
        self.vectors, self.cv = _shape_classes(game)
        self.memo = {(0,) * len(self.shape): np.ones(1)}

    def of_vector(self, vec: tuple) -> np.ndarray:
        if vec not in self.memo:
            s = next(i for i, n in enumerate(vec) if n)
            rest = list(vec)
            rest[s] -= 1
            self.memo[vec] = np.convolve(self.of_vector(tuple(rest)), self.shape[s])
        return self.memo[vec]

    @cached_property
    def matrix(self) -> np.ndarray:
        """Prize distribution of every shape-count vector, shape (vectors, points)."""
        rows = [self.of_vector(tuple(int(x) for x in v)) for v in self.vectors]
        out = np.zeros((len(rows), max(len(r) for r in rows)))
        for i, r in enumerate(rows):
            out[i, :len(r)] = r
        return out

    def of_final(self, final: np.ndarray) -> np.ndarray:
        """Prize distribution of a final (flag, mask) distribution: the mixture
        over shape-count vectors, the wheel's award added where a WHEEL shows."""
        n = len(self.vectors)
        pv = np.stack([np.bincount(self.cv, weights=final[flag], minlength=n) for flag in (0, 1)])
        mix = pv @ self.matrix
        width = mix.shape[1]
        out = np.zeros(width + len(self.wheel) - 1)
        out[:width] = mix[0]
        if pv[1].any():
            for j in np.flatnonzero(self.wheel):
                out[j:j + width] += self.wheel[j] * mix[1]
        return np.trim_zeros(out, "b")


def _add(a: np.ndarray, b: np.ndarray, shift: int = 0) -> np.ndarray:
    """``a + b`` shifted by ``shift`` points, padding the shorter."""
    n = max(len(a), len(b) + shift)
    out = np.zeros(n)
    out[:len(a)] += a
    out[shift:shift + len(b)] += b
    return out


def _upsample(p: np.ndarray, factor: int) -> np.ndarray:
    out = np.zeros((len(p) - 1) * factor + 1)
    out[::factor] = p
    return out


@keyed_cache(lambda game, reel_set, *args: tuple(sorted({reel_set, *feature_sets(game)})),
             maxsize=64)
def _group_finals(game, reel_set, source, bonus, spins):
    """Final (flag, mask) per distinct line win among screens starting the
    lock-it ``source`` (pigs trigger when ``bonus`` is None, else with that
    BONUS count): list of (win [u], weight [stop combinations], final)."""
    sc = screens(game, reel_set)
    f = features_of(game)
    pigs = popcount15()[sc.mask] >= f.lockit.trigger
    if bonus is None:
        sel = pigs & (sc.bonus < f.free_games.min_count)
    else:
        sel = sc.bonus == bonus
        if (sel & pigs).any():
            raise NotImplementedError("screens with both a lock-it trigger and a selection "
                                      "need per-screen convolution (absent from this game's strips)")
    chain = _chain(game, source, spins)
    mark_paid = f.lockit.sources[source].mark_award
    n_masks = 1 << (game.reels * game.rows)
    wins, inverse = np.unique(sc.win[sel], return_inverse=True)
    flag, mask, count = sc.flag[sel], sc.mask[sel], sc.count[sel].astype(float)
    totals = np.bincount(inverse, weights=count, minlength=len(wins))
    starts, s_inv = np.unique(flag * n_masks + mask, return_inverse=True)
    if len(starts) < len(wins):
        # fewer distinct starts than wins: play each start once and mix the
        # finals per win (the chain is linear in its start distribution)
        fin_s = _run_groups(chain, starts // n_masks, np.arange(len(starts)), starts % n_masks,
                            np.ones(len(starts)), len(starts), n_masks)
        mix = np.zeros((len(wins), len(starts)))
        np.add.at(mix, (inverse, s_inv), count)
        fin = np.einsum("ws,fsm->fwm", mix / totals[:, None], fin_s)
    else:
        fin = _run_groups(chain, flag, inverse, mask, count, len(wins), n_masks)
    out = []
    for j in range(len(wins)):
        fj = fin[:, j]
        if not mark_paid:
            fj = np.stack([fj.sum(axis=0), np.zeros_like(fj[0])])
        out.append((int(wins[j]), int(round(totals[j])), fj))
    return out


def _run_groups(chain, flag, group, mask, weight, n_groups, n_masks) -> np.ndarray:
    """Final (flag, mask) distribution of each group's start distribution
    (``weight`` at ``(flag, mask)`` for group ``group``, normalised per group),
    ``BATCH`` groups per chain run; shape (2, n_groups, n_masks)."""
    out = np.empty((2, n_groups, n_masks))
    for lo in range(0, n_groups, BATCH):
        hi = min(lo + BATCH, n_groups)
        rows = (group >= lo) & (group < hi)
        start = np.zeros((2, hi - lo, n_masks))
        np.add.at(start, (flag[rows], group[rows] - lo, mask[rows]), weight[rows])
        out[:, lo:hi] = chain.run_batch(start / start.sum(axis=(0, 2))[None, :, None])
    return out


def _lines_given_bonus(sc: Screens, b: int) -> np.ndarray:
    rows = sc.bonus == b
    h = np.zeros(int(sc.win.max(initial=0)) + 1)
    np.add.at(h, sc.win[rows], sc.count[rows].astype(float))
    return h


def free_spin_table(game: Game, level: int) -> np.ndarray:
    """Per free spin, P(win = y [u, before the x2], extra games = k), shape (Y, K)."""
    st = structure(game)
    f = st.features
    fgs = f.free_games
    reel_set = fgs.reels
    sc = screens(st.fg_game, reel_set)
    U = LINES
    cols = {0: sc.plain.astype(float)}
    pd_ = PrizeDistributions(game, f.lockit.sources[FREE].awards, level)
    for w, cnt, fin in _group_finals(st.fg_game, reel_set, FREE, None, None):
        cols[0] = _add(cols[0], cnt * _upsample(pd_.of_final(fin), U), w)
    for b in range(fgs.min_count, 16):
        if not (sc.bonus == b).any():
            continue
        k = fgs.games(b) if fgs.retrigger else 0
        h = _lines_given_bonus(sc, b)
        cols[k] = _add(cols.get(k, np.zeros(1)), h, int(fgs.prize(b) * U))
    n = max(len(c) for c in cols.values())
    table = np.zeros((n, max(cols) + 1))
    for k, c in cols.items():
        table[:len(c), k] = c
    return table / sc.cycle


@dataclass
class RoundDistribution:
    """Distribution of the total win of a round [u = 1/20 total bet grid]."""

    probs: np.ndarray
    policy: str
    dropped: float = 0.0       # mass below the FFT noise floor set to 0


def round_distribution(game: Game, level: int, policy: str = "lockit",
                       fg_size: int = 1 << 20) -> RoundDistribution:
    """Distribution of the total win of a round (base spin and every feature
    it leads to) at bet ``level`` under a pure selection ``policy``.

    Float64.  Lock-it parts are forward chain runs per distinct line win
    (relative error ~1e-13); the free-games part is solved on a cyclic FFT
    grid of ``fg_size`` points (see :func:`slotmath.freegames.fourier_distribution`),
    and values below 1e-16 (its noise floor) are set to 0 and reported as
    ``dropped``."""
    from scipy.signal import fftconvolve

    from ..freegames import FreeGames, fourier_distribution

    if policy not in POLICIES:
        raise ValueError(f"policy must be one of {POLICIES}")
    st = structure(game)
    f = st.features
    U = LINES
    sc = screens(game, BASE_REELS)
    out = sc.plain.astype(float)
    pz = PrizeDistributions(game, f.lockit.sources[BASE].awards, level)
    for w, cnt, fin in _group_finals(game, BASE_REELS, BASE, None, None):
        out = _add(out, cnt * _upsample(pz.of_final(fin), U), w)
    dropped = 0.0
    fg_table = None
    for b in range(f.selection.min_count, 16):
        opt = f.selection.option(b)
        if opt is None or not (sc.bonus == b).any():
            continue
        shift = int(opt.prize * U)
        if policy == "lockit":
            pzs = PrizeDistributions(game, opt.lockit_awards, level)
            for w, cnt, fin in _group_finals(game, BASE_REELS, f.selection.lockit_source, b,
                                              opt.lockit_spins):
                out = _add(out, cnt * _upsample(pzs.of_final(fin), U), w + shift)
        else:
            if fg_table is None:
                fg_table = free_spin_table(game, level)
            fg = fourier_distribution(fg_table, opt.free_games, fg_size // 2)
            m = int(f.free_games.multiplier)
            fg = _upsample(fg, m)
            small = fg < 1e-16
            dropped += float(fg[small].sum()) * float((sc.count[sc.bonus == b]).sum()) / sc.cycle
            fg[small] = 0.0
            conv = np.maximum(fftconvolve(_lines_given_bonus(sc, b), fg), 0.0)
            conv[conv < 1e-16 * conv.max()] = 0.0
            out = _add(out, conv, shift)
    out = out / sc.cycle
    nz = np.flatnonzero(out)
    return RoundDistribution(out[:nz[-1] + 1], policy, dropped)


def win_distribution(game: Game, level: int, policy: str = "lockit") -> WinDistribution:
    """:class:`~slotmath.distribution.WinDistribution` of a round [coins at ``level``]."""
    rd = round_distribution(game, level, policy)
    nz = np.flatnonzero(rd.probs)
    bet = game.bet(level)
    unit = bet.total_bet // LINES        # coins per u at this level
    return WinDistribution(nz.astype(np.int64) * unit, rd.probs[nz], 1, bet.total_bet)


# ===========================================================================
# Monte Carlo: the rules played literally (independent of the exact engine)
# ===========================================================================
EVENTS = ("lockit_base_game", "lockit_free_games", "lockit_selection", "selection",
          "free_games", "full_screen", "wheel", "superlock", "MINI", "MINOR", "MAJOR", "GRAND")
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
    for l in range(lines.shape[0]):
        first = window[0, lines[l, 0]]
        if not regular[first]:
            continue
        n = 1
        while n < window.shape[0]:
            s = window[n, lines[l, n]]
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
        return wh_val[-1]                       # the before-jackpot value is stored last
    i = _pick(rng, wh_cum, wh_cum.shape[0])
    if wh_jp[i] >= 0:
        events[8 + wh_jp[i]] += 1
    return wh_val[i]


@nb.njit(cache=True)
def _lockit(rng, held, flag, spins, wheel_reels, plain_reels, feat_lens, pig, pig_mark,
            shapes, table, aw_val, aw_cum, aw_n, aw_jp, wh_val, wh_cum, wh_jp, pre_num,
            pre_den, wheel_paid, events):
    """Play one lock-it feature from ``held`` (H, R bools) and WHEEL ``flag``;
    returns its prize [x total bet]."""
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
def piggy_kernel(rng, n, ints, strips, lens, lines, pays, regular, wild, pig, pig_mark, shapes,
                 aw_val, aw_cum, aw_n, aw_jp, wh_val, wh_cum, wh_jp, sel_prize, sel_spins,
                 sel_games, fg_prize, fg_games):
    """Play ``n`` rounds; wins [x total bet] and event counts (see ``EVENTS``).

    ``ints`` = (policy 0 lock-it / 1 free games, BONUS symbol, WILD_3 symbol,
    lock-it trigger, minimum BONUS, base spins, free-game lock-it spins,
    free-game multiplier, before-jackpot numerator, denominator, rows)."""
    policy, bonus_sym, wild3, trigger, min_bonus = ints[0], ints[1], ints[2], ints[3], ints[4]
    base_spins, fg_spins, mult, pre_num, pre_den, H = ints[5], ints[6], ints[7], ints[8], \
        ints[9], ints[10]
    R = strips.shape[1]
    base, fgr, wreels, preels = strips[0], strips[1], strips[2], strips[3]
    feat_lens = lens[2:4]
    wins = np.zeros(n, dtype=np.float64)
    events = np.zeros(12, dtype=np.int64)
    window = np.zeros((R, H), dtype=np.int64)
    held = np.zeros((H, R), dtype=np.bool_)
    for i in range(n):
        _draw(rng, base, lens[0], window, H)
        win = _line_units(window, lines, pays, regular, wild) / 20.0
        n_pig, n_bonus, flag = _scan_window(window, held, pig, pig_mark, bonus_sym)
        if n_pig >= trigger:                       # rule 5.1: lock-it from the base game
            events[0] += 1
            win += _lockit(rng, held.copy(), flag, base_spins, wreels, preels, feat_lens, pig,
                           pig_mark, shapes, 0, aw_val, aw_cum, aw_n, aw_jp, wh_val, wh_cum,
                           wh_jp, pre_num, pre_den, True, events)
        if n_bonus >= min_bonus:                   # rule 4: feature selection
            b = min(n_bonus, sel_prize.shape[0] - 1)
            events[3] += 1
            win += sel_prize[b]
            if policy == 0:
                events[2] += 1
                win += _lockit(rng, held.copy(), flag, sel_spins[b], wreels, preels,
                               feat_lens, pig, pig_mark, shapes, b - min_bonus + 1, aw_val,
                               aw_cum, aw_n, aw_jp, wh_val, wh_cum, wh_jp, pre_num, pre_den,
                               True, events)
            else:
                events[4] += 1
                left = sel_games[b]
                fg_win = 0.0
                while left > 0:
                    left -= 1
                    _draw(rng, fgr, lens[1], window, H)
                    for r in range(R):                 # rule 3.3: WILD_3 covers the reel
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
                        fg_win += _lockit(rng, held.copy(), 0, fg_spins, preels, preels,
                                          feat_lens, pig, pig_mark, shapes, 0, aw_val, aw_cum,
                                          aw_n, aw_jp, wh_val, wh_cum, wh_jp, pre_num, pre_den,
                                          False, events)
                win += mult * fg_win
        wins[i] = win
    return wins, events


@dataclass(frozen=True)
class Sampler:
    """Compiled round sampler (see :mod:`slotmath.montecarlo`)."""

    kernel: object
    args: tuple
    event_names: tuple


def _strip_array(game, reel_set, width):
    """Symbol indices per reel, each strip followed by its first ``rows``
    symbols (a window never wraps); ``width`` >= longest strip + rows."""
    out = np.zeros((game.reels, width), dtype=np.int64)
    for r, strip in enumerate(game.strips(reel_set)):
        if strip.weights is not None and len(set(strip.weights)) > 1:
            raise ValueError("the simulator draws uniform stops; weighted strips are not supported")
        idx = [game.symbol_index[s] for s in strip.symbols]
        idx = (idx * (game.rows // len(idx) + 2))[:len(idx) + game.rows]
        out[r, :len(idx)] = idx
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
            aw_cum[t, s, :len(awards)] = np.cumsum([a.weight for a in awards])
            for j, a in enumerate(awards):
                aw_val[t, s, j] = float(a.value)
                if a.label in JACKPOT_ORDER:
                    aw_jp[t, s, j] = JACKPOT_ORDER.index(a.label)
    w = f.wheel
    wh_val = np.array([float(v) for _, v, _ in w.segments] + [float(w.pre_prize)])
    wh_cum = np.cumsum([wt for _, _, wt in w.segments]).astype(np.int64)
    wh_jp = np.array([JACKPOT_ORDER.index(lab) if lab in JACKPOT_ORDER else -1
                      for lab, _, _ in w.segments], dtype=np.int64)
    top = game.reels * game.rows + 1
    sel_prize = np.zeros(top)
    sel_spins = np.zeros(top, dtype=np.int64)
    sel_games = np.zeros(top, dtype=np.int64)
    fg_prize = np.zeros(top)
    fg_games = np.zeros(top, dtype=np.int64)
    for b in range(top):
        opt = sel.option(b)
        if opt is not None:
            sel_prize[b], sel_spins[b], sel_games[b] = float(opt.prize), opt.lockit_spins, \
                opt.free_games
        fg_prize[b] = float(fgs.prize(b))
        fg_games[b] = fgs.games(b) if fgs.retrigger else 0
    ints = np.array([POLICIES.index(policy), game.symbol_index[fgs.symbol],
                     game.symbol_index[fgs.nudge] if fgs.nudge else -1, lk.trigger,
                     sel.min_count, lk.sources[BASE].spins, lk.sources[FREE].spins,
                     int(fgs.multiplier), w.pre_probability.numerator,
                     w.pre_probability.denominator, game.rows], dtype=np.int64)
    args = (ints, strips, lens, lines, pays, regular, wild, pig, pig_mark, shapes, aw_val,
            aw_cum, aw_n, aw_jp, wh_val, wh_cum, wh_jp, sel_prize, sel_spins, sel_games,
            fg_prize, fg_games)
    return Sampler(piggy_kernel, args, EVENTS)


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

    Returns a :class:`~slotmath.simulate.SimulationResult` (simulated figures)."""
    from ..simulate import Moments, SimulationResult

    sampler = round_sampler(game, level, policy)
    rng = np.random.default_rng(seed)
    moments = Moments()
    done = 0
    while done < spins:
        n = min(1_000_000, spins - done)
        wins, _ = sampler.kernel(rng, n, *sampler.args)
        moments.add(wins)
        done += n
    return SimulationResult(game.name, level, spins, seed, moments,
                            {"rtp": breakdown(game, level).rtp[policy]})


# ===========================================================================
# PAR
# ===========================================================================
class PiggyParResult(ParResult):
    """:class:`~slotmath.par.ParResult` with the figures of both selection choices."""

    def to_dict(self) -> dict:
        d = super().to_dict()
        d["by_choice"] = self.features["by_choice"]
        d["components_by_choice"] = self.features["components_by_choice"]
        d["odds"] = self.features["odds"]
        d["policy"] = self.features["policy"]
        return d


def _one_in(p: float):
    return float(1 / p) if p > 0 else None


def analyse(game: Game, level: int, policy: str = "lockit",
            distribution: bool = True) -> PiggyParResult:
    """Exact PAR at bet ``level``: RTP by channel for both selection choices,
    the round distribution (under ``policy``) and the feature odds."""
    bet = game.bet(level)
    b = breakdown(game, level)
    table = combination_table(game, level, BASE_REELS)
    _, per_line = line_rtp(game, level, BASE_REELS)
    comps = b.components[policy]
    rtp = sum(float(v) for v in comps.values())
    if distribution:
        dist = win_distribution(game, level, policy)
        if abs(float(dist.mean) - rtp) > 1e-9:
            raise AssertionError(f"round distribution mean {float(dist.mean)} != RTP {rtp}")
    else:
        dist = WinDistribution(np.zeros(1, dtype=np.int64), np.ones(1), 1, bet.total_bet)
    odds = {k: {"per_round": float(v), "one_in": _one_in(float(v))} for k, v in b.odds.items()}
    feats = {
        "policy": policy,
        "by_choice": {p: b.rtp[p] for p in POLICIES},
        "components_by_choice": {p: {k: float(v) for k, v in c.items()}
                                 for p, c in b.components.items()},
        "odds": odds,
        "feature_values": {k: float(v) for k, v in b.values.items()},
        "lockit_shapes": b.shapes.to_dict(orient="records"),
    }
    sel_source = features_of(game).selection.lockit_source
    cov = {name: coverage(game, src) for name, src in
           (("base game", BASE), ("free games", FREE), ("selection", sel_source))}
    feats["lockit_coverage"] = {k.replace(" ", "_"): v.tolist() for k, v in cov.items()}
    wheel_t = wheel_table(game)
    fg_t = free_games_table(game, level)
    feats["wheel"] = wheel_t.to_dict(orient="records")
    feats["free_games"] = fg_t.to_dict(orient="records")
    shapes = shapes_table(b)
    values = pd.DataFrame([{"feature": k, "value [x total bet]": float(v)}
                           for k, v in b.values.items()])
    odds_t = pd.DataFrame([{"event": k, "per round": v["per_round"], "1 in": v["one_in"]}
                           for k, v in odds.items()])
    choice = pd.DataFrame([{"policy": p, "rtp": r} for p, r in b.rtp.items()])
    notes = [
        f"RTP and distribution under the selection policy '{policy}'; by_choice gives the "
        "RTP of each pure policy (always lock-it, always free games).",
        "Line and selection-prize parts are exact fractions; lock-it, wheel and free-game "
        "parts are float64 (relative error below 1e-12).",
        "'1 in' figures are expected occurrences per round (base spin and every feature it "
        "leads to); jackpots count shape awards and wheel segments.",
    ]
    return PiggyParResult(game=game, bet=bet, cycle=game.cycle(BASE_REELS), rtp=rtp,
                          components=comps, distribution=dist, combinations=table,
                          per_line_rtp=per_line, features=feats,
                          tables={"RTP by choice": choice, "Feature values": values,
                                  "Odds": odds_t, "Lock-it shapes": shapes,
                                  **{f"Lock-it coverage: {k} [P(cell covered at the end)]":
                                     coverage_frame(v) for k, v in cov.items()},
                                  "Superlock wheel": wheel_t, "Free games": fg_t},
                          notes=notes)


# ===========================================================================
# exploration: a lock-it feature step by step
# ===========================================================================
@dataclass
class LockItStep:
    """One picture of a lock-it feature: held cells (H, R) [bool], the cells
    that landed this spin, the WHEEL cell (or None) and a caption."""

    held: np.ndarray
    new: np.ndarray
    wheel: tuple | None
    caption: str
    shapes: list = field(default_factory=list)   # (name, top, left, award label) at the end


def play_lockit(game: Game, level: int, source: str = BASE, start=None, seed: int = 0):
    """Play one lock-it feature literally with ``numpy``'s generator.

    Parameters
    ----------
    start : str or None
        Start picture (``shapes.mask_from_picture`` syntax, ``W`` marks the
        PIGGY with WHEEL); None draws base-game spins until 6+ PIGGY land.

    Returns
    -------
    list of LockItStep
        The start, every spin, and the final shapes with their awards.
    """
    from .. import shapes as shp

    f = features_of(game)
    lk = f.lockit
    src = lk.sources[source]
    H, R = game.rows, game.reels
    rng = np.random.default_rng(seed)
    pig = set(lk.symbols)
    wheel = None
    if start is None:
        while True:
            held = np.zeros((H, R), dtype=bool)
            for r, strip in enumerate(game.strips(BASE_REELS)):
                s = rng.integers(len(strip))
                for k in range(H):
                    sym = strip.symbols[(s + k) % len(strip)]
                    held[k, r] = sym in pig
                    if sym == lk.mark:
                        wheel = (k, r)
            if held.sum() >= lk.trigger:
                break
            wheel = None
    else:
        rows = [line for line in start.split() if line]
        held = np.array([[c in "XxW#" for c in line] for line in rows])
        for k, line in enumerate(rows):
            if "W" in line:
                wheel = (k, line.index("W"))
    steps = [LockItStep(held.copy(), np.zeros_like(held), wheel, "start")]
    for spin in range(1, src.spins + 1):
        if held.all():
            break
        reel_set = src.reels if wheel is None or src.after_mark is None else src.after_mark
        new = np.zeros_like(held)
        for r, strip in enumerate(game.strips(reel_set)):
            s = rng.integers(len(strip))
            for k in range(H):
                sym = strip.symbols[(s + k) % len(strip)]
                if sym in pig and not held[k, r]:
                    held[k, r] = new[k, r] = True
                    if sym == lk.mark and wheel is None:
                        wheel = (k, r)
        steps.append(LockItStep(held.copy(), new, wheel,
                                f"spin {spin}: +{int(new.sum())} ({reel_set})"))
    mask = sum(1 << (r * H + k) for r in range(R) for k in range(H) if held[k, r])
    placed = []
    total = Fraction(0)
    awards = lk.awards.table(src.awards, level)
    for s, top, left in shp.pack(mask, H, R, lk.shapes, lk.order):
        options = awards[s]
        a = options[_draw_index(rng, [o.weight for o in options])]
        total += a.value
        placed.append((lk.shape_names[s], top, left, a.label if a.label in f.jackpots
                       else f"{a.label}x"))
    caption = f"end: {len(placed)} shapes, {float(total):g}x"
    if wheel is not None and src.mark_award:
        o = wheel_mod.outcomes(f.wheel)
        label, value, _ = o[_draw_index(rng, [float(p) for _, _, p in o])]
        caption += f" + wheel {label} ({float(value):g}x)"
    steps.append(LockItStep(held.copy(), np.zeros_like(held), wheel, caption, placed))
    return steps


def _draw_index(rng, weights) -> int:
    w = np.asarray(weights, dtype=float)
    return int(np.searchsorted(np.cumsum(w), rng.random() * w.sum(), side="right"))


def draw_lockit(game: Game, steps, ncols: int = 4):
    """Draw :func:`play_lockit` steps as panels (new landings outlined; the last
    panel marks each cell with its shape and award)."""
    from ..draw import Frame, draw_frames

    frames = []
    for st in steps:
        window = np.full((game.reels, game.rows), "BLANK", dtype=object)
        window[st.held.T] = "PIGGY"
        if st.wheel is not None:
            window[st.wheel[1], st.wheel[0]] = "PIGGY_WHEEL"
        marks = None
        if st.shapes:
            marks = np.full((game.reels, game.rows), "", dtype=object)
            for i, (name, top, left, label) in enumerate(st.shapes):
                a, b = (int(x) for x in name.split("x"))
                for r in range(left, left + b):
                    for k in range(top, top + a):
                        marks[r, k] = f"{chr(65 + i)}"
                marks[left, top] = f"{chr(65 + i)}:{label}"
        frames.append(Frame(window, st.caption, st.new.T if st.new.any() else None, marks))
    return draw_frames(game, frames, ncols=ncols, title="Piggy Bank Lock It")


def coverage(game: Game, source: str = BASE) -> np.ndarray:
    """P(cell held at the end) of a lock-it from ``source``, shape (rows, reels).

    ``source`` is ``"base_game"``, ``"free_games"`` or the selection source
    (``"selection"``: a selection lock-it of any BONUS count, each count
    weighted by its probability in a base spin)."""
    from ..lockit import LockItResult

    st = structure(game)
    sel = st.features.selection
    if source != sel.lockit_source:
        final, _, _ = st.final((source, FREE if source == FREE else BASE, None, None))
        return LockItResult(final, 0.0, game.rows, game.reels).coverage
    by_bonus = st.base_screens.sum(axis=(0, 1))
    out, total = np.zeros((game.rows, game.reels)), 0
    for b, n in enumerate(by_bonus):
        opt = sel.option(b)
        if opt is None or n == 0:
            continue
        final, _, _ = st.final((source, BASE, b, opt.lockit_spins))
        out += int(n) * LockItResult(final, 0.0, game.rows, game.reels).coverage
        total += int(n)
    return out / total


def coverage_frame(grid: np.ndarray) -> pd.DataFrame:
    """A (rows, reels) grid as a numeric table: one row per window row (top
    first), columns ``reel 1`` to ``reel R`` (a heat map in the PAR sheet)."""
    frame = pd.DataFrame(np.asarray(grid, dtype=float),
                         columns=[f"reel {j + 1}" for j in range(grid.shape[1])])
    frame.attrs["heatmap"] = True
    return frame


def wheel_table(game: Game) -> pd.DataFrame:
    """The Superlock wheel, the before-wheel jackpot first: segment, prize
    [x total bet or jackpot name], weight, probability and expected value
    contribution [x total bet] (the last column sums to the wheel's mean)."""
    w = features_of(game).wheel
    frame = wheel_mod.table(w)
    jackpots = features_of(game).jackpots
    prize = [o if o in jackpots or o == w.pre_name else f"{v:g}x"
             for o, v in zip(frame["outcome"], frame["value"])]
    weight = [None if pd.isna(x) else int(x) for x in frame["weight"]]
    return pd.DataFrame({"segment": frame["outcome"], "prize": prize,
                         "value [x total bet]": frame["value"],
                         "weight": pd.Series(weight, dtype=object),
                         "probability": frame["probability"],
                         "expected value [x total bet]": frame["rtp_share"]})


def free_games_table(game: Game, level: int) -> pd.DataFrame:
    """Free games by selection BONUS count: prize, games awarded, multiplier,
    expected games played, expected win per free game and per feature [x total
    bet, multiplier included] and the retrigger chances.

    A free game wins ``m (lines + BONUS prizes + lock-it)`` and retriggers
    with probability ``q`` = P(3+ BONUS); a feature of ``n`` games has at
    least one retrigger with probability ``1 - (1 - q)^n`` (the first
    retrigger must come in the first ``n`` games) and plays ``n / (1 - E[K])``
    games on average, ``K`` the games a free game adds."""
    st = structure(game)
    d = _fg_per_spin(st, level)
    fgs, sel = st.features.free_games, st.features.selection
    mult = float(fgs.multiplier)
    per_game = mult * _per_free_spin(d)
    ek = float(d["ek"])
    q = float(sum(p for b, p in enumerate(d["p_b"]) if fgs.retrigger and fgs.games(b) > 0))
    rows = []
    for b in sorted(sel.options):
        n = sel.options[b].free_games
        rows.append({"BONUS": b, "prize [x total bet]": float(sel.options[b].prize),
                     "games awarded": n, "multiplier": mult, "games played (mean)": n / (1 - ek),
                     "win per free game [x total bet]": per_game,
                     "win per feature [x total bet]": n / (1 - ek) * per_game,
                     "retrigger probability per game": q,
                     "P(at least one retrigger)": 1 - (1 - q) ** n})
    return pd.DataFrame(rows)


def shapes_table(b: Breakdown) -> pd.DataFrame:
    """Lock-it shape frequencies by source: mean count per feature, per round
    and 1 in N rounds, mean award and RTP contribution [x total bet]."""
    t = b.shapes
    return pd.DataFrame({"source": t["source"], "shape": t["shape"],
                         "per feature": t["per_feature"], "per round": t["count"],
                         "1 in [rounds]": [float(1 / c) if c > 0 else None for c in t["count"]],
                         "mean award [x total bet]": t["mean_award"], "rtp": t["rtp"],
                         "policies": t["policies"]})


def award_table(game: Game, table: str = "trigger") -> pd.DataFrame:
    """Mean award and jackpot chance per shape and bet [x total bet]."""
    f = features_of(game)
    rows = []
    for lv in game.levels:
        m1, _ = f.lockit.awards.moments(table, lv)
        for s, (name, awards) in enumerate(zip(f.lockit.shape_names,
                                                f.lockit.awards.table(table, lv))):
            total = sum(a.weight for a in awards)
            row = {"bet": lv, "shape": name, "mean": float(m1[s])}
            for j in JACKPOT_ORDER:
                row[j] = sum(a.weight for a in awards if a.label == j) / total
            rows.append(row)
    return pd.DataFrame(rows)


def free_game_summary(game: Game, level: int) -> pd.DataFrame:
    """One free spin's expected win by channel [x total bet, before the x2],
    the lock-it and retrigger chances, and the value of each award."""
    st = structure(game)
    d = _fg_per_spin(st, level)
    fgs = st.features.free_games
    rows = [("lines per spin", float(d["lines"])), ("BONUS prizes per spin", float(d["prize"])),
            ("lock-it per spin", float(d["lockit"])), ("P(lock-it) per spin", float(d["p_lockit"])),
            ("E[extra games] per spin", float(d["ek"]))]
    one = _per_awarded_game(d)
    for n in sorted(fgs.awards):
        g = fgs.games(n)
        rows.append((f"{g} games (x{fgs.multiplier}) incl. retriggers",
                     float(fgs.multiplier) * g * one))
    return pd.DataFrame(rows, columns=["figure", "value"])


# ===========================================================================
# reel tuning hooks (slotmath.tune)
# ===========================================================================
# (tuning_figures: see "tuning figures" above, next to breakdown)
def tuning_constraints(game: Game) -> dict:
    """Both choices of the feature selection must pay the target RTP."""
    return {"rtp_figures": [f"feature:by_choice.{pol}" for pol in POLICIES]}
