"""A bought hold-and-spin (``buy: {feature: hold_and_spin, coins: K}``): the
mode's exact figures against a literal enumeration, with Fractions, of every
start (K cells drawn uniformly), every respin outcome and every prize draw on
small grids, one per state of the chain (total count, per-reel counts,
masks: per-cell probabilities and whole reels); the compiled sampler against
the exact figures (z-scores); bad coins refused in one line."""

from __future__ import annotations

import functools
import itertools
from fractions import Fraction as Fr

import pytest
import yaml

from slotmath.cli import main
from slotmath.io.gamefile import load_game
from slotmath.rules.modepar import mode_par

VALUES = [{"prize": 1, "weight": 2}, {"prize": 3, "weight": 1}, {"prize": "MINI", "weight": 1}]
START = [{"prize": 2, "weight": 1}, {"prize": 4, "weight": 1}]
JACKPOTS = {"MINI": 5, "GRAND": 20}
COST = 5
FEATURE_STRIPS = [["COIN", "B", "B"], ["COIN", "COIN", "B", "A", "B"]]


def game_data(rows, reels, feature, coins=None):
    cells = rows * reels
    coins = range(cells + 1) if coins is None else coins
    strips = [["COIN", "A", "B", "COIN"][: 3 + r % 2] for r in range(reels)]
    return {
        "name": "bought",
        "grid": {"reels": reels, "rows": rows},
        "bet": {"levels": [1, 2]},
        "symbols": [{"name": "A"}, {"name": "B"}, {"name": "COIN", "kind": "special"}],
        "paylines": [[k] * reels for k in range(rows)],
        "pays": [{"symbol": "A", "count": reels, "pay": 3}],
        "reels": {"base": strips, **({"feature": FEATURE_STRIPS} if "reels" in feature else {})},
        "options": {
            "jackpots": JACKPOTS,
            "hold_and_spin": {
                "symbol": "COIN",
                "trigger": 2,
                "respins": 2,
                "values": VALUES,
                "start_values": START,
                "full_screen": "GRAND",
                **feature,
            },
        },
        "modes": {
            **{f"k{k}": {"cost": COST, "buy": {"feature": "hold_and_spin", "coins": k}} for k in coins},
            "capped": {"cost": COST, "buy": {"feature": "hold_and_spin", "coins": 1}, "round_cap": 12},
        },
    }


def write(tmp_path, data, name="game"):
    folder = tmp_path / name
    folder.mkdir()
    (folder / "game.yaml").write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return folder


# the chain's three states: one probability (total count), one per reel
# (per-reel counts), rows that differ (masks), whole reels (masks)
TOTAL = (2, 3, {"rule": "reset", "respin": "cells", "probabilities": [["1/3"] * 3] * 2})
REELS = (2, 3, {"rule": "countdown", "respin": "cells", "probabilities": [["1/3", "1/2", "1/4"]] * 2})
ROWS = (2, 2, {"rule": "reset", "respin": "cells", "probabilities": [["1/2", "1/3"], ["1/4", "2/5"]]})
WHOLE = (2, 2, {"rule": "countdown", "respin": "reels", "reels": "feature"})
CASES = {"total": TOTAL, "reels": REELS, "rows": ROWS, "whole-reels": WHOLE}


def respin_outcomes(rows, reels, feature, held):
    """Every outcome of one respin from the held mask: (probability, new
    coins' mask), bit ``reel * rows + row``, played literally."""
    cells = [(k, r) for r in range(reels) for k in range(rows)]
    if feature["respin"] == "cells":
        p = [[Fr(x) for x in row] for row in feature["probabilities"]]
        empty = [(k, r) for k, r in cells if not held >> (r * rows + k) & 1]
        for lands in itertools.product((0, 1), repeat=len(empty)):
            prob, new = Fr(1), 0
            for (k, r), x in zip(empty, lands, strict=True):
                prob *= p[k][r] if x else 1 - p[k][r]
                new |= x << (r * rows + k)
            yield prob, new
    else:  # each reel stops on its feature strip; row k shows strip[(stop + k) % n]
        each = Fr(1, len(FEATURE_STRIPS[0]) * len(FEATURE_STRIPS[1]))
        for stops in itertools.product(*(range(len(s)) for s in FEATURE_STRIPS)):
            new = 0
            for k, r in cells:
                if FEATURE_STRIPS[r][(stops[r] + k) % len(FEATURE_STRIPS[r])] == "COIN":
                    new |= 1 << (r * rows + k)
            yield each, new & ~held


def table_law(table):
    total = sum(e["weight"] for e in table)
    return [(Fr(JACKPOTS.get(e["prize"], e["prize"])), Fr(e["weight"], total)) for e in table]


def brute_award_law(rows, reels, feature, coins) -> dict:
    """Law of the bought feature's award [x total bet]: every set of ``coins``
    start cells (equally likely), every respin outcome, every prize draw."""
    cells = rows * reels
    full = (1 << cells) - 1
    respins = 2

    @functools.cache
    def final(mask, left):
        if left == 0 or mask == full:
            return {mask: Fr(1)}
        out: dict = {}
        for p, new in respin_outcomes(rows, reels, feature, mask):
            nxt = respins if new and feature["rule"] == "reset" else left - 1
            for m, q in final(mask | new, nxt).items():
                out[m] = out.get(m, 0) + p * q
        return out

    @functools.cache
    def prizes(k0, n):
        out: dict = {}
        draws = [table_law(START)] * k0 + [table_law(VALUES)] * (n - k0)
        for combo in itertools.product(*draws):
            v = sum((x for x, _ in combo), Fr(0)) + (JACKPOTS["GRAND"] if n == cells else 0)
            q = Fr(1)
            for _, w in combo:
                q *= w
            out[v] = out.get(v, 0) + q
        return out

    starts = list(itertools.combinations(range(cells), coins))
    law: dict = {}
    for chosen in starts:
        for m, q in final(sum(1 << c for c in chosen), respins).items():
            for v, pv in prizes(coins, bin(m).count("1")).items():
                law[v] = law.get(v, 0) + Fr(1, len(starts)) * q * pv
    return law


@pytest.mark.parametrize("case", list(CASES))
def test_bought_feature_equals_brute_force(tmp_path, case):
    rows, reels, feature = CASES[case]
    game = load_game(write(tmp_path, game_data(rows, reels, feature)))
    for coins in range(rows * reels + 1):
        want = brute_award_law(rows, reels, feature, coins)
        mean = sum(v * q for v, q in want.items())
        result = mode_par(game, f"k{coins}", level=2)  # prizes are [x total bet]: any level
        assert result.par.rtp == mean, (case, coins)  # exact Fractions
        assert result.rtp == mean / COST
        assert result.par.components == {"hold_and_spin": mean}
        got = result.par.distribution
        points = dict(zip(got.x.tolist(), got.probabilities.tolist(), strict=True))
        assert set(points) == {float(v) for v in want}
        for v, q in want.items():
            assert points[float(v)] == pytest.approx(float(q), rel=1e-12, abs=1e-15)
        assert result.par.hit_frequency == pytest.approx(1 - float(want.get(0, 0)), abs=1e-14)
        top = result.par.true_max_win
        assert top.value == max(want) and top.probability == want[max(want)]
        fig = result.par.features["hold_and_spin"]
        assert fig["coins_bought"] == coins and fig["coins_at_trigger_mean"] == pytest.approx(coins)


def test_bought_feature_round_cap(tmp_path):
    rows, reels, feature = ROWS
    game = load_game(write(tmp_path, game_data(rows, reels, feature, coins=[1])))
    want = brute_award_law(rows, reels, feature, 1)
    capped = sum(min(v, 12) * q for v, q in want.items())
    result = mode_par(game, "capped")
    assert float(result.par.rtp) == pytest.approx(float(capped), rel=1e-12)
    assert result.par.true_max_win.value == 12 and result.round_cap == 12


@pytest.mark.parametrize("case", ["reels", "rows"])
def test_sampler_agrees_with_the_bought_feature(tmp_path, case):
    from slotmath.analysis.simulation import cross_check_mode

    rows, reels, feature = CASES[case]
    game = load_game(write(tmp_path, game_data(rows, reels, feature, coins=[0, 2])))
    for name in ("k0", "k2", "capped"):
        result = cross_check_mode(game, name, None, 200_000, seed=5, workers=1)
        rtp = result.result.rtp
        assert rtp.exact == pytest.approx(float(mode_par(game, name).par.rtp), rel=1e-12)
        assert abs(rtp.z) < 4, (case, name, rtp)


@pytest.mark.parametrize(
    ("buy", "field", "problem"),
    [
        ({"feature": "hold_and_spin", "coins": -1}, "modes.k.buy.coins", "minimum"),
        ({"feature": "hold_and_spin", "coins": 5}, "modes.k.buy.coins", "from 0 to the 4 cells"),
        ({"feature": "hold_and_spin", "coins": 1.5}, "modes.k.buy.coins", "integer"),
        ({"feature": "hold_and_spin"}, "modes.k.buy", "needs 'coins'"),
        ({"feature": "hold_and_spin", "coins": 1, "games": 3}, "modes.k.buy.games", "takes 'coins'"),
    ],
)
def test_bad_coins_refused_in_one_line(tmp_path, capsys, buy, field, problem):
    rows, reels, feature = ROWS
    data = game_data(rows, reels, feature, coins=[])
    data["modes"] = {"k": {"cost": 5, "buy": buy}}
    folder = write(tmp_path, data)
    assert main(["validate", str(folder)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"game.yaml: {field}" in err[0] and problem in err[0], err


def test_buying_an_undeclared_hold_and_spin_is_refused(tmp_path, capsys):
    rows, reels, feature = ROWS
    data = game_data(rows, reels, feature, coins=[1])
    del data["options"]
    del data["modes"]["capped"]
    assert main(["validate", str(write(tmp_path, data))]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "modes.k1.buy.feature" in err[0] and "does not declare" in err[0], err


def test_progressive_jackpot_in_a_bought_hold_and_spin_is_refused(tmp_path, capsys):
    rows, reels, feature = ROWS
    data = game_data(rows, reels, feature, coins=[1])
    data["options"]["jackpots"]["GRAND"] = {"seed": 20, "contribution": 0.01}
    del data["modes"]["capped"]  # a round cap is refused beside a progressive anyway
    assert main(["validate", str(write(tmp_path, data))]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "modes.k1.buy.feature" in err[0] and "progressive" in err[0], err


def test_docs_worked_example(tmp_path):
    # docs/features.md, "Worked example: a bought hold-and-spin": from 0 coins
    # P(n) = 1/4, 1/4, 1/2 for n = 0, 1, 2; mean 5/4 x 2 + 1/2 x 10 = 15/2
    # over 8 = 15/16; from 1 coin 2 + 1/2 x 2 + 1/2 x 10 = 8 over 9 = 8/9
    from slotmath.rules.modepar import all_modes_par

    from conftest import docs_example

    game, section = docs_example(tmp_path, "### Worked example: a bought hold-and-spin")
    modes = all_modes_par(game)
    superspin, one = modes["superspin"], modes["one_coin"]
    assert superspin.par.rtp == Fr(15, 2) and superspin.rtp == Fr(15, 16)
    assert one.par.rtp == 8 and one.rtp == Fr(8, 9)
    assert superspin.par.hit_frequency == pytest.approx(3 / 4, abs=1e-15)
    top = superspin.par.true_max_win
    assert top.value == 20 and top.probability == Fr(1, 32)
    for value, shown in ((15 / 16, "93.7500 %"), (8 / 9, "88.8889 %")):
        assert f"{value:.4%}" == shown.replace(" ", "") and shown in section
    assert "RTP `15/16`" in section and "RTP `8/9`" in section and "= 15/2`" in section


def test_example_game_buys():
    # data/games/hold_and_spin_buy: every cell lands a coin alike (the chain on
    # the total count), so the 6-coin buy's mean award is the base game's mean
    # award given 6 coins at the trigger, wherever they are
    from slotmath.features.holdspin import load_hold_and_spin, total_means

    game = load_game("hold_and_spin_buy")
    six = mode_par(game, "six_coins")
    assert six.par.rtp == total_means(game, load_hold_and_spin(game))[6]
    assert six.rtp == six.par.rtp / Fr(39, 2)
    superspin = mode_par(game, "superspin")
    assert isinstance(superspin.rtp, Fr) and 0.9 < superspin.rtp < 1
    # 15 coins, each at the largest prize (MAJOR, 100), plus the GRAND (1000)
    assert superspin.par.true_max_win.value == 15 * 100 + 1000
