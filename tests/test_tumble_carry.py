"""Tumble triggers over the whole sequence (``options.tumble.triggers:
sequence``) and the free games' progression carried through the round
(``options.tumble.reset: round``) against a plain-Python brute force: every
stop vector of the base game and of every free spin, every tumble; the
worked examples of docs/features.md; the sampler's z-scores; the refusals."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction as F
from functools import cache
from itertools import product

import pytest
import yaml
from test_tumble import GAMES, _engine_law, _raw, check_sampler, line_drop, renewal_rtp, total_bet_of

from slotmath.engine.payrule import pay_rule
from slotmath.io.gamefile import GameFileError, load_game
from slotmath.rules.linegame import analyse

from conftest import TEST_DATA

CARRY = TEST_DATA / "tumble_carry" / "game.yaml"
DOCS = TEST_DATA.parent.parent / "docs"


# ------------------------------------------------------------ brute force
def seq_spin(raw, reel_set, stops, prog, start=0, drop=line_drop, trace=None):
    """(win [coins], SCATTER on the first drop, SCATTER on the board in any
    drop, paying drops) of one tumble spin in plain Python, the progression
    started at its ``start``-th value (the last repeating); each drop's
    columns are appended to ``trace`` when given."""
    strips = raw["reels"][reel_set]
    rows = raw["grid"]["rows"]
    cols = [
        [strip[(s + k) % len(strip)] for k in range(rows)] for strip, s in zip(strips, stops, strict=True)
    ]
    nxt = [(s - 1) % len(strip) for strip, s in zip(strips, stops, strict=True)]
    first = sum(c.count("SCATTER") for c in cols)
    landed = first  # every SCATTER that lands on the board, in the window or in a refill
    total, k = 0, 0
    while True:
        if trace is not None:
            trace.append([list(c) for c in cols])
        coins, gone = drop(raw, cols)
        if not coins:
            return total, first, landed, k
        total += coins * prog[min(start + k, len(prog) - 1)]
        k += 1
        for r, strip in enumerate(strips):
            kept = [cols[r][i] for i in range(rows) if (r, i) not in gone]
            new = []
            while len(new) + len(kept) < rows:
                new.insert(0, strip[nxt[r]])
                landed += strip[nxt[r]] == "SCATTER"
                nxt[r] = (nxt[r] - 1) % len(strip)
            cols[r] = new + kept


def seq_law(raw, reel_set, prog, drop=line_drop):
    """{(win [coins] with the scatter pay on the sequence's count, that
    count capped at the 9 cells): stop vectors} (3+ SCATTER pay 2 x total bet)."""
    bet = total_bet_of(raw)
    out: Counter = Counter()
    for stops in product(*(range(len(s)) for s in raw["reels"][reel_set])):
        coins, _, n, _ = seq_spin(raw, reel_set, stops, prog, drop=drop)
        n = min(n, 9)
        out[(coins + (2 * bet if n >= 3 else 0), n)] += 1
    return dict(out)


def _sequence(path, tmp_path, **tumble):
    raw = _raw(path)
    raw["options"]["tumble"].update({"triggers": "sequence", **tumble})
    out = tmp_path / "game.yaml"
    out.write_text(yaml.safe_dump(raw))
    return raw, load_game(out)


# ------------------------------------------------------------ triggers: sequence
@pytest.mark.parametrize(("path", "drop"), GAMES)
def test_sequence_law_matches_brute_force(tmp_path, path, drop):
    """(win, SCATTER count over the sequence) of both reel sets, entry by
    entry, on every pay rule; the scatter component counts the sequence."""
    raw, game = _sequence(path, tmp_path)
    for reel_set, prog in (("base", [1, 2, 3]), ("free", [2, 4])):
        brute = {(F(w), n): c for (w, n), c in seq_law(raw, reel_set, prog, drop).items()}
        assert _engine_law(game, reel_set, True) == brute
    base = seq_law(raw, "base", [1, 2, 3], drop)
    cycle, bet = sum(base.values()), total_bet_of(raw)
    scatters = F(sum(2 * bet * c for (_, n), c in base.items() if n >= 3), cycle * bet)
    table = pay_rule(game).combination_table(game, 1)
    assert sum(table.loc[table["kind"] == "scatter", "rtp_exact"], F(0)) == scatters
    assert pay_rule(game).scatter_rtp(game, 1) == scatters


@pytest.mark.parametrize(("path", "drop"), GAMES)
def test_sequence_round_rtp_matches_brute_force(tmp_path, path, drop):
    """The round (free spins independent: reset spin) read on the sequence's
    counts: P(3+) x 3 / (1 - E[K]) x E[Y] plus the base spin, exact; where
    the retriggers would never end on the sequence's counts (E[K] >= 1) the
    engine refuses them and the free games are played without (E[K] = 0)."""
    raw, game = _sequence(path, tmp_path)
    base = seq_law(raw, "base", [1, 2, 3], drop)
    free = seq_law(raw, "free", [2, 4], drop)
    if F(sum(3 * c for (_, n), c in free.items() if n >= 3), sum(free.values())) >= 1:
        with pytest.raises(GameFileError, match="would never end"):
            analyse(game, 1)
        raw["options"]["free_games"]["retrigger"] = False
        (tmp_path / "game.yaml").write_text(yaml.safe_dump(raw))
        game = load_game(tmp_path / "game.yaml")
        flat: Counter = Counter()
        for (w, _), c in free.items():  # no retrigger: no K
            flat[(w, 0)] += c
        free = dict(flat)
    feature, rtp = renewal_rtp(base, free, total_bet_of(raw))
    result = analyse(game, 1)
    assert result.components["free_games"] == feature
    assert result.rtp == rtp


def test_sequence_worked_example():
    """docs/features.md "Worked example: triggers over the sequence": base
    stops (4, 5, 1) of tumble_carry (total bet 3 coins).

    Drop 1 (reels top to bottom): A C A / B C B / C B SCATTER.  Top A B C:
    none; middle C C B: 2 x C pays 1 coin; bottom A B SCATTER: none.  The
    middle cells of reels 1 and 2 go; reel 1 keeps A A under its stop 3
    (SCATTER), reel 2 keeps B B under its stop 4 (SCATTER).  Drop 2:
    SCATTER A A / SCATTER B B / C B SCATTER: top SCATTER SCATTER C, middle
    A B B, bottom A B SCATTER: none.  One SCATTER on the first drop, three
    over the sequence: 3 SCATTER pay 2 x 3 = 6 coins and award the free
    games (on the first drop alone: nothing).  Spin win 1 + 6 = 7 coins."""
    raw = _raw(CARRY)
    trace: list = []
    win, first, landed, drops = seq_spin(raw, "base", EXAMPLE_STOPS, [1, 2, 3], trace=trace)
    section = _section("### Worked example: triggers over the sequence")
    for k, cols in enumerate(trace):
        assert f"| {k + 1} | " + " | ".join(" ".join(c) for c in cols) + " |" in section
    assert (win, first, landed, drops) == EXAMPLE
    assert f"{first} SCATTER on the first drop, {landed} over the sequence" in section
    assert "1 + 6 = 7 coins" in section
    from slotmath.features.freeround import free_games_rules

    assert "in any drop" in free_games_rules(load_game(CARRY))[0]  # the PAR's rules say so
    from test_tumble import kernel_spin

    assert kernel_spin(load_game(CARRY), EXAMPLE_STOPS) == (win, drops)


#: the worked example's base stops and (win [coins], first-drop SCATTER,
#: sequence SCATTER, paying drops), worked by hand on the page
EXAMPLE_STOPS = (4, 5, 1)
EXAMPLE = (1, 1, 3, 1)


def _points(law):
    """{win [coins]: probability} of a WinDistribution."""
    return {
        F(int(w), law.unit_den): float(p)
        for w, p in zip(law.wins.tolist(), law.weights.tolist(), strict=True)
    }


def _section(title):
    text = (DOCS / "features.md").read_text(encoding="utf-8")
    return text[text.index(title) :]


# ------------------------------------------------------------ reset: round
@cache
def _carry_spin(stops, start):
    return seq_spin(_raw(CARRY), "free", stops, [1, 2, 4], start)


def carried_award(n, cap=3):
    """{sum of the free spins' wins [coins]: probability} of ``n`` free games
    of tumble_carry, literally: every stop vector of every free spin, the
    progression's position carried from spin to spin (a spin's sequence of
    3+ SCATTER pays 2 x total bet and adds 2 games, at most ``cap`` played)."""
    raw = _raw(CARRY)
    bet = total_bet_of(raw)
    vectors = list(product(*(range(len(s)) for s in raw["reels"]["free"])))
    out: Counter = Counter()

    def walk(left, played, at, won, p):
        if left == 0 or played == cap:
            out[won] += p
            return
        q = p / len(vectors)
        for stops in vectors:
            coins, _, n, d = _carry_spin(stops, at)
            n = min(n, 9)
            y = coins + (2 * bet if n >= 3 else 0)
            walk(left - 1 + (2 if n >= 3 else 0), played + 1, min(at + d, 2), won + y, q)

    walk(n, 0, 0, 0, F(1))
    return dict(out)


def test_carried_round_matches_brute_force():
    """tumble_carry: the exact RTP (Fraction) and the free games' award law
    against the literal walk over every free spin's stop vectors."""
    raw = _raw(CARRY)
    bet = total_bet_of(raw)
    game = load_game(CARRY)
    award = carried_award(2)
    base = seq_law(raw, "base", [1, 2, 3])
    cycle = sum(base.values())
    p3 = F(sum(c for (_, n), c in base.items() if n >= 3), cycle)
    mean_award = sum((F(w, bet) * p for w, p in award.items()), F(0))
    spin = F(sum(w * c for (w, _), c in base.items()), cycle * bet)
    result = analyse(game, 1)
    assert result.components["free_games"] == p3 * mean_award
    assert result.rtp == spin + p3 * mean_award
    from slotmath.features.freeround import free_games_feature

    feature = free_games_feature(game, 1)
    law = feature.award(3)
    got = _points(law)
    want = {F(w): float(p) for w, p in award.items()}  # [coins], the law's unit
    assert set(got) == set(want)
    assert all(abs(got[w] - want[w]) < 1e-12 for w in want)
    assert feature.mean(3) == mean_award
    m2 = sum((F(w, bet) ** 2 * p for w, p in award.items()), F(0))
    assert feature.second_moment(3) == pytest.approx(float(m2), rel=1e-12)
    top = max(award)
    assert feature.top(3).value == F(top, bet) and feature.top(3).probability == award[top]


def test_carried_differs_from_independent_spins(tmp_path):
    """The carry matters: with reset spin the same game's free games are
    the renewal of independent spins (brute force), a smaller award here."""
    raw = _raw(CARRY)
    raw["options"]["tumble"]["reset"] = "spin"
    path = tmp_path / "game.yaml"
    path.write_text(yaml.safe_dump(raw))
    spin = analyse(load_game(path), 1).components["free_games"]
    carried = analyse(load_game(CARRY), 1).components["free_games"]
    assert carried > spin


def test_carried_without_retriggers_matches_brute_force(tmp_path):
    """retrigger: false, triggers on the first drop: 2 games, no cap."""
    raw = _raw(CARRY)
    raw["options"]["tumble"]["triggers"] = "first_drop"
    raw["options"]["free_games"]["retrigger"] = False
    del raw["options"]["free_games"]["max_games"]
    path = tmp_path / "game.yaml"
    path.write_text(yaml.safe_dump(raw))
    game = load_game(path)
    bet = total_bet_of(raw)
    vectors = list(product(*(range(len(s)) for s in raw["reels"]["free"])))
    award: Counter = Counter()
    for a, b in product(vectors, vectors):  # two free spins, the second from where the first left
        c1, n1, _, d1 = _carry_spin(a, 0)  # scatters read on the first drop
        c2, n2, _, _ = _carry_spin(b, min(d1, 2))
        award[c1 + c2 + 2 * bet * ((n1 >= 3) + (n2 >= 3))] += 1
    total = len(vectors) ** 2
    from slotmath.features.freeround import free_games_feature

    feature = free_games_feature(game, 1)
    assert feature.mean(3) == F(sum(w * c for w, c in award.items()), total * bet)
    law = feature.award(3)
    got = _points(law)
    assert got == pytest.approx({F(w): c / total for w, c in award.items()}, abs=1e-12)


def test_carried_worked_example():
    """docs/features.md "Worked example: a progression carried through the
    free games": free stops (1, 2, 0) then (0, 1, 0) of tumble_carry
    (progression x1, x2, x4).

    Free spin 1: three paying drops of 1 coin each (2 x C, then 2 x C
    twice) at x1, x2, x4: 1 + 2 + 4 = 7 coins; the position is now past
    the last value.  Free spin 2: two paying drops of 1 coin each at x4,
    x4 (the last value repeats): 8 coins; restarting at x1 they would pay
    1 + 2 = 3 coins."""
    raw = _raw(CARRY)
    first = seq_spin(raw, "free", (1, 2, 0), [1, 2, 4], 0)
    second = seq_spin(raw, "free", (0, 1, 0), [1, 2, 4], min(first[3], 2))
    fresh = seq_spin(raw, "free", (0, 1, 0), [1, 2, 4], 0)
    assert (first[0], first[3], second[0], fresh[0]) == (7, 3, 8, 3)
    section = _section("### Worked example: a progression carried through the free games")
    assert f"free spin 1 pays {first[0]} coins" in section
    assert f"free spin 2 pays {second[0]} coins" in section
    assert f"restarting at x1 it would pay {fresh[0]} coins" in section


def test_sampler_agrees_with_the_exact_carried_round():
    """The compiled sampler (sequence counts, the carried position) against
    the exact components of tumble_carry: |z| < 4 each."""
    check_sampler(CARRY, "lines")


# ------------------------------------------------------------ refusals
def _refused(tmp_path, change):
    raw = _raw(CARRY)
    change(raw)
    path = tmp_path / "game.yaml"
    path.write_text(yaml.safe_dump(raw))
    with pytest.raises(GameFileError) as err:
        load_game(path)
    return str(err.value)


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda r: r["options"]["free_games"].pop("max_games"), "round with retriggers needs"),
        (
            lambda r: [r["options"].pop("free_games"), r["options"]["tumble"].pop("free_multipliers")],
            "round needs options.free_games",
        ),
        (lambda r: r["options"]["tumble"].update(reset="feature"), "must be one of spin, round"),
        (lambda r: r["options"]["tumble"].update(triggers="all"), "must be one of first_drop, sequence"),
        (
            lambda r: r["options"]["free_games"].update(trigger={"reels": [1, 2, 3]}),
            "sequence is not computed with options.free_games.trigger.reels",
        ),
        (
            lambda r: r["options"]["free_games"]["awards"].update({10: {"games": 5}}),
            "up to the 9 cells (options.free_games.awards.10)",
        ),
    ],
    ids=["no-max-games", "no-free-games", "reset", "triggers", "trigger-reels", "count-above-cells"],
)
def test_bad_declarations_are_refused(tmp_path, change, words):
    text = _refused(tmp_path, change)
    assert "options.tumble" in text and words in text and "\n" not in text


def test_fast_figures_and_components_follow_the_sequence_and_the_chain():
    """The figures without the distribution (tuning, the rules contract) are
    the full analysis's: the sequence's scatters and trigger law, the chain's award."""
    from slotmath.rules.linegame import components, fast_round

    game = load_game(CARRY)
    exact = analyse(game, 1)
    rtp, parts, _, moments, _ = fast_round(game, 1)
    assert rtp == exact.rtp and parts == exact.components
    assert components(game, 1) == exact.components
    assert moments.hit_frequency == pytest.approx(exact.hit_frequency, rel=1e-12)
    # the chain's exact second moment against the award law's (float64)
    assert moments.second_moment == pytest.approx(exact.sd**2 + float(exact.rtp) ** 2, rel=1e-9)


def test_carried_cost_counts_every_start_position():
    """The enumeration's cost bound counts the carried progression's runs:
    a bound twice one run's estimate passes one run and refuses four."""
    from slotmath.engine.tumble import check_tumble_cost, tumble_cost
    from slotmath.errors import EngineTooLarge

    game = load_game(CARRY)
    steps = tumble_cost(game, 1, "free")[2]
    check_tumble_cost(game, 1, "free", limit=int(2 * steps))
    with pytest.raises(EngineTooLarge) as err:
        check_tumble_cost(game, 1, "free", limit=int(2 * steps), runs=4)
    assert "x 4 enumerations" in str(err.value) and "slotmath simulate" in str(err.value)


def test_carried_award_law_beyond_its_bound_is_refused(tmp_path, monkeypatch):
    """Above its step bound the chain's award law is refused in one line
    naming the field (the exact figures need no law: the fast figures still work)."""
    import slotmath.features.carried as carried
    from slotmath.errors import EngineTooLarge
    from slotmath.rules.linegame import components

    raw = _raw(CARRY)
    raw["title"] = "Tumble carry (bound test)"  # a game of its own: no cached law
    path = tmp_path / "game.yaml"
    path.write_text(yaml.safe_dump(raw))
    monkeypatch.setattr(carried, "MAX_CHAIN_STEPS", 10)
    game = load_game(path)
    with pytest.raises(EngineTooLarge) as err:
        analyse(game, 1)
    text = str(err.value)
    assert "options.tumble.reset" in text and "slotmath simulate" in text and "\n" not in text
    from slotmath.rules.linegame import fast_round

    rtp, parts, *_ = fast_round(game, 1)  # the exact figures need no award law
    assert rtp == sum(parts.values()) and parts["free_games"] > 0
    assert components(game, 1) == parts


@pytest.mark.parametrize("reel_set", ["base", "free"])
def test_sequence_with_board_multipliers_matches_brute_force(tmp_path, reel_set):
    """tumble_bomb with triggers: sequence: (win, sequence SCATTER count),
    every stop vector x every draw of one value per BOMB on a paying final
    board (the declared weights), the scatter pay unmultiplied."""
    from math import prod

    from test_tumble import anywhere_drop
    from test_tumble_board import BOMB, PROGRESSION
    from test_tumble_board import _engine_law as board_engine_law

    raw, game = _sequence(BOMB, tmp_path)
    table = [(v["value"], v["weight"]) for v in raw["options"]["tumble"]["multiplier_symbols"]["values"]]
    total = sum(w for _, w in table)
    strips = raw["reels"][reel_set]
    cycle, bet = prod(len(s) for s in strips), total_bet_of(raw)
    want: Counter = Counter()
    for stops in product(*(range(len(s)) for s in strips)):
        trace: list = []
        coins, _, n, _ = seq_spin(
            raw, reel_set, stops, PROGRESSION[reel_set], drop=anywhere_drop, trace=trace
        )
        n = min(n, 9)
        m = sum(col.count("BOMB") for col in trace[-1])
        draws = product(table, repeat=m) if coins and m else [((1, 1),)]
        for draw in draws:
            p = F(prod(w for _, w in draw), cycle * (total**m if coins and m else 1))
            want[(F(coins * sum(v for v, _ in draw) + (2 * bet if n >= 3 else 0)), n)] += p
    assert board_engine_law(game, reel_set) == dict(want)
