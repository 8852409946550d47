"""Property tests: on random small games the exact engine equals brute-force
enumeration of every window, figure by figure.

The games mix every feature of the format: 2-5 reels, 1-3 rows, random
strips with zero and non-zero stop weights, random paylines, regular
symbols, a blank, a special symbol, a scatter, up to two wilds (substitution lists, ``all``
with ``except``, wilds substituting for wilds, x-per-wild or by-count
multipliers, multiplied own pays), groups, and pay tables of every form (n
of a kind, group pays, positional patterns, "exactly k anywhere") at several
bet levels, linear and non-linear.

References:

* :func:`slotmath.engine.evaluate.brute_force_distribution` evaluates the window of
  every stop combination (independent numpy evaluator);
* :func:`rule_line_win` below restates the line rule once more, in plain
  Python, and is checked against the engine's pay tensor tuple by tuple.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from itertools import product
from math import prod
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from slotmath.engine.combinations import combination_table
from slotmath.engine.evaluate import brute_force_distribution, line_wins, window_at
from slotmath.engine.lines import pay_tensor
from slotmath.engine.scatters import scatter_pay
from slotmath.io.gamefile import build_game, check_rules
from slotmath.rules.par import par

from conftest import distribution_dict

REGULAR = ["A", "B", "C"]
MAX_STOP_COMBINATIONS = 1500  # windows enumerated per example
LEVEL_CHOICES = [1, 2, 3, 5, 10]

SETTINGS = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)


# ----------------------------------------------------------------- strategies
@st.composite
def wild_spec(draw, name, others):
    """A wild symbol: substitution list, multiplier rule, own-pay flag."""
    spec = {"name": name, "kind": "wild"}
    how = draw(st.sampled_from(["all", "except", "list"]))
    if how == "except":
        spec["except"] = draw(st.lists(st.sampled_from(others), min_size=1, max_size=2, unique=True))
    elif how == "list":
        spec["substitutes"] = draw(st.lists(st.sampled_from(others), min_size=1, max_size=3, unique=True))
    rule = draw(st.sampled_from(["none", "per_wild", "by_count"]))
    if rule == "per_wild":
        spec["multiplier"] = {"per_wild": draw(st.integers(2, 3))}
    elif rule == "by_count":
        spec["multiplier"] = {"by_count": [1] + draw(st.lists(st.integers(1, 7), min_size=1, max_size=4))}
    if draw(st.booleans()):
        spec["multiply_own_pays"] = True
    return spec


@st.composite
def games(draw):
    """A random small game as a game-file dict."""
    reels = draw(st.integers(2, 5))
    rows = draw(st.integers(1, 3))
    n_regular = draw(st.integers(2, 3))
    regular = REGULAR[:n_regular]
    symbols = [{"name": s} for s in regular] + [{"name": "X", "kind": "blank"}]
    special = ["J"] if draw(st.booleans()) else []  # pays on lines; 'all' wilds skip it
    symbols += [{"name": s, "kind": "special"} for s in special]
    wilds = []
    if draw(st.booleans()):
        wilds.append("W")
        symbols.append(draw(wild_spec("W", regular + special)))
        if draw(st.booleans()):
            wilds.append("V")
            symbols.append(draw(wild_spec("V", regular + special + ["W"])))
    has_scatter = draw(st.booleans())
    if has_scatter:
        symbols.append({"name": "S", "kind": "scatter"})
    names = [s["name"] for s in symbols]
    groups = {}
    if draw(st.booleans()):
        groups["G"] = draw(st.lists(st.sampled_from(regular + wilds), min_size=2, max_size=3, unique=True))

    # strips: product of lengths bounded so brute force stays fast
    max_len = max(rows, min(8, int(MAX_STOP_COMBINATIONS ** (1 / reels))))
    strips = []
    for _ in range(reels):
        n = draw(st.integers(rows, max_len))
        syms = draw(st.lists(st.sampled_from(names), min_size=n, max_size=n))
        if draw(st.booleans()):
            weights = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
            if not any(weights):
                weights[0] = 1
            strips.append({"symbols": syms, "weights": weights})
        else:
            strips.append(syms)

    n_lines = draw(st.integers(1, 4))
    paylines = [
        draw(st.lists(st.integers(0, rows - 1), min_size=reels, max_size=reels)) for _ in range(n_lines)
    ]
    levels = sorted(draw(st.lists(st.sampled_from(LEVEL_CHOICES), min_size=1, max_size=3, unique=True)))

    # pay table: every form, deduplicated on what the entry matches
    line_symbols = regular + special + wilds + list(groups)
    members = {g: frozenset(m) for g, m in groups.items()}
    resolve = lambda s: members.get(s, frozenset([s]))  # noqa: E731
    pays, seen = [], set()
    for _ in range(draw(st.integers(1, 8))):
        form = draw(st.sampled_from(["kind", "kind", "pattern", "anywhere"]))
        if form == "kind":
            sym, count = draw(st.sampled_from(line_symbols)), draw(st.integers(1, reels))
            entry, key = {"symbol": sym, "count": count}, ((resolve(sym),) * count, None, 0)
        elif form == "pattern":
            pat = draw(st.lists(st.sampled_from(line_symbols), min_size=1, max_size=reels))
            entry, key = {"pattern": pat}, (tuple(resolve(p) for p in pat), None, 0)
        else:
            sym, k = draw(st.sampled_from(names)), draw(st.integers(1, reels))
            entry, key = {"anywhere": sym, "exactly": k}, ((), sym, k)
        if key in seen:
            continue
        seen.add(key)
        if draw(st.booleans()):
            entry["pay"] = draw(st.integers(0, 50))
        else:  # non-linear: any coin win per level
            entry["pay_by_level"] = draw(
                st.lists(st.integers(0, 500), min_size=len(levels), max_size=len(levels))
            )
        pays.append(entry)

    data = {
        "name": "random",
        "grid": {"reels": reels, "rows": rows},
        "bet": {"levels": levels},
        "symbols": symbols,
        "reels": {"base": strips},
        "paylines": paylines,
        "pays": pays,
    }
    if groups:
        data["groups"] = groups
    if has_scatter:
        counts = draw(st.lists(st.integers(1, min(reels * rows, 5)), min_size=1, max_size=3, unique=True))
        data["scatters"] = [
            {"symbol": "S", "count": c, "pay": draw(st.sampled_from([0, 1, 2, 5, "1/2", "3/4", "7/3"]))}
            for c in counts
        ]
    return data


def load(data):
    game = build_game(data, Path("random.yaml"), "random")
    check_rules(game)
    return game


# ----------------------------------------------------------------- references
def rule_line_win(game, level_index, x) -> int:
    """Coin win of one line showing symbol names ``x``, straight from the rules:
    every entry whose positions match (naturally or by a substituting wild) is
    a candidate, its pay times the product over wild kinds of the kind's
    multiplier for its count, times the sum of the summed kinds' multipliers
    (natural wilds count only in a wild's own pay with multiply_own_pays);
    "exactly k anywhere" counts the symbol itself; the line pays the highest
    candidate."""
    best = 0
    for lp in game.line_pays:
        pay = lp.pays[level_index]
        if lp.anywhere is not None:
            if sum(s == lp.anywhere for s in x) == lp.exactly:
                best = max(best, pay)
            continue
        wilds = Counter()
        # a pay for k symbols reads the first k reels of the line: fewer positions than reels
        for allowed, s in zip(lp.positions, x, strict=False):
            rule = game.symbol(s).wild
            if s in allowed:
                if lp.wild_own and rule is not None and rule.multiply_own_pays:
                    wilds[s] += 1
            elif rule is not None and allowed & rule.substitutes:
                wilds[s] += 1
            else:
                break
        else:
            kinds = [(game.symbol(w).wild, c) for w, c in wilds.items()]
            factor = prod(k.multiplier(c) for k, c in kinds if not k.summed)
            added = sum(k.per_wild * c for k, c in kinds if k.summed)  # summed kinds add up, x1 without one
            best = max(best, pay * factor * (added or 1))
    return best


def all_windows(game):
    """Every stop combination: weights (C-order over the stops) and windows (n, R, H)."""
    strips = game.strips("base")
    combos = list(product(*[range(len(s)) for s in strips]))
    weights = np.array(
        [prod(int(s.stop_weights()[k]) for s, k in zip(strips, stops, strict=True)) for stops in combos],
        dtype=np.int64,
    )
    return weights, np.array([window_at(game, stops) for stops in combos])


# ----------------------------------------------------------------- properties
@SETTINGS
@given(data=games(), pick=st.integers(0, 2))
def test_exact_engine_equals_brute_force(data, pick):
    game = load(data)
    level = game.levels[pick % len(game.levels)]
    result = par(game, level)
    cycle = prod(s.total_weight for s in game.strips("base"))
    assert result.cycle == cycle

    brute = {w: c for w, c in brute_force_distribution(game, level).items() if c}
    assert distribution_dict(result.distribution) == brute

    mean = sum(w * c for w, c in brute.items()) / Fraction(cycle)
    second = sum(w * w * c for w, c in brute.items()) / Fraction(cycle)
    hits = sum(c for w, c in brute.items() if w > 0)
    assert result.rtp == mean == result.distribution.mean
    assert result.distribution.hit_frequency == Fraction(hits, cycle)
    assert result.distribution.variance == second - mean**2
    assert result.distribution.max_win == max(brute)
    assert result.distribution.max_win_probability == Fraction(brute[max(brute)], cycle)
    assert sum(result.components.values()) == result.rtp


@SETTINGS
@given(data=games(), pick=st.integers(0, 2))
def test_combination_table_equals_brute_force(data, pick):
    game = load(data)
    level = game.levels[pick % len(game.levels)]
    bet = game.bet(level)
    cycle = game.cycle()

    # brute force: (line win -> weight summed over lines), per-line total win,
    # scatter entry -> weight
    weights, windows = all_windows(game)
    wins = line_wins(game, level, windows)  # (n, L) [coins]
    per_line = [int(v) for v in (wins * weights[:, None]).sum(axis=0)]
    line_by_win = Counter()
    for w, weight in zip(wins.ravel().tolist(), np.repeat(weights, wins.shape[1]).tolist(), strict=True):
        if w and weight:
            line_by_win[w] += weight
    scatter_by_entry = Counter()
    for sym in {sp.symbol for sp in game.scatter_pays}:
        shown = (windows == game.symbol_index[sym]).sum(axis=(1, 2))
        for n, weight in zip(shown.tolist(), weights.tolist(), strict=True):
            if weight and scatter_pay(game, sym, n):
                entry = max(sp.count for sp in game.scatter_pays if sp.symbol == sym and sp.count <= n)
                top = max(sp.count for sp in game.scatter_pays if sp.symbol == sym)
                plus = "+" if entry == top else ""  # a row below the top count is exact
                scatter_by_entry[f"{entry}{plus} x {sym}"] += weight

    table = combination_table(game, level)
    lines = table[(table["kind"] == "line") & (table["hits"] > 0)]
    got = Counter()
    for win, h in zip(lines["win"].tolist(), lines["hits"].tolist(), strict=True):
        got[int(win)] += int(h)
    assert got == line_by_win
    # each row: win = entry pay x multiplier, rtp = win x hits / (cycle x total bet)
    for row in lines.itertuples():
        assert row.rtp_exact == Fraction(int(row.win) * int(row.hits), cycle * bet.total_bet)
    scatters = table[(table["kind"] == "scatter") & (table["hits"] > 0)]
    assert dict(zip(scatters["combination"], scatters["hits"].astype(int), strict=True)) == {
        k: v for k, v in scatter_by_entry.items() if v
    }

    result = par(game, level)
    assert result.per_line_rtp == [Fraction(w, cycle * bet.line_bet) for w in per_line]
    assert result.components["lines"] == Fraction(sum(per_line), cycle * bet.total_bet)
    assert sum(table["rtp_exact"]) == result.rtp


@SETTINGS
@given(data=games(), pick=st.integers(0, 2))
def test_pay_tensor_follows_the_line_rule(data, pick):
    game = load(data)
    level = game.levels[pick % len(game.levels)]
    li = game.level_index(level)
    tensor = pay_tensor(game, level)
    S, R = len(game.symbols), game.reels
    names = game.symbol_names
    step = max(1, S**R // 1500)  # every tuple when few, else an even sample
    for t in range(0, S**R, step):
        x = np.unravel_index(t, (S,) * R)
        assert tensor.wins[t] == rule_line_win(game, li, [names[i] for i in x]), [names[i] for i in x]
