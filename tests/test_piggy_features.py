"""Feature declarations (slotmath.features.options): the classic free-games game and
validation of bad declarations."""

from fractions import Fraction as Fr
from itertools import product

import numpy as np
import pytest

from slotmath.engine.evaluate import line_wins, window_at
from slotmath.features.expanding import nudged_strip
from slotmath.features.options import load_features
from slotmath.io.gamefile import GameFileError, load_game
from slotmath.model import Strip
from slotmath.testing.freetable import free_games_feature

from conftest import TEST_DATA

CLASSIC = TEST_DATA / "classic_free_games"


def classic_per_spin(game):
    """Literal enumeration of one spin of the classic game: (E[win] [coins], P(3 scatters))."""
    strips = game.strips("base")
    total, n3, cycle = Fr(0), 0, 0
    for stops in product(*[range(len(s)) for s in strips]):
        w = window_at(game, stops)
        coins = int(line_wins(game, 1, w[None])[0].sum())
        scatters = int((w == game.symbol_index["SCATTER"]).sum())
        total += coins + (2 if scatters >= 3 else 0)  # 2 x total bet (1 coin: 1 line)
        n3 += scatters >= 3
        cycle += 1
    return total / cycle, Fr(n3, cycle)


def test_classic_free_games_declared():
    spec = load_features(load_game(CLASSIC)).free_games
    assert (spec.symbol, spec.reels, spec.multiplier) == ("SCATTER", "base", 3)
    assert spec.games(3) == 5 and spec.games(2) == 0 and spec.retrigger


def test_classic_free_games_value_by_hand():
    # Each free spin wins Y and, with probability p (3 scatters), 5 more games.
    # Uncapped, a feature of n games is n independent one-game features, each
    # worth E[Y] / (1 - E[K]) with E[K] = 5 p; times the multiplier 3.
    game = load_game(CLASSIC)
    ey, p = classic_per_spin(game)
    fg = free_games_feature(game, 1)
    assert fg.exact
    assert fg.mean == 3 * 5 * ey / (1 - 5 * p)
    assert fg.spins_mean == 5 / (1 - 5 * p)


def test_classic_free_games_monte_carlo():
    # Play the free games literally (same reels, retriggers) and compare the mean.
    # Every screen is evaluated once; the feature then draws screens at random.
    game = load_game(CLASSIC)
    fg = free_games_feature(game, 1, exact=False)
    strips = game.strips("base")
    combos = list(product(*[range(len(s)) for s in strips]))
    wins = np.array([window_at(game, c) for c in combos])
    coins = line_wins(game, 1, wins).sum(axis=1)
    third = (wins == game.symbol_index["SCATTER"]).sum(axis=(1, 2)) >= 3
    rng = np.random.default_rng(7)
    n_feat, totals = 20_000, np.zeros(20_000)
    for i in range(n_feat):
        left, total = 5, 0
        while left:
            left -= 1
            c = rng.integers(len(combos))
            total += coins[c]
            if third[c]:
                total += 2  # 2 x total bet (1 coin)
                left += 5
        totals[i] = 3 * total
    z = (totals.mean() - fg.mean) / (totals.std() / np.sqrt(n_feat))
    assert abs(z) < 4


def test_nudged_strip_expands_wild():
    # Strip (3 rows): positions 0..4 = Q, W3, W3, W3, K.  Stop 0 shows Q W3 W3
    # -> W3 W3 W3; stop 4 shows K Q W3 -> W3 W3 W3; stop 1 already W3 x3.
    from slotmath.io.gamefile import load_game as lg

    game = lg("piggy_bankin_superlock")
    s = nudged_strip(game, Strip(("Q", "WILD_3", "WILD_3", "WILD_3", "K")), "WILD_3")
    assert s.weights == (1, 0, 0) * 5
    windows = [s.symbols[3 * i : 3 * i + 3] for i in range(5)]
    assert windows[0] == ("WILD_3",) * 3 and windows[4] == ("WILD_3",) * 3
    # stop 2 shows W3 W3 K: nudged as well; no stop keeps a partial WILD_3
    assert all(w == ("WILD_3",) * 3 or "WILD_3" not in w for w in windows)


@pytest.mark.parametrize(
    "patch, field",
    [
        ({"multiplier": 0}, "options.free_games.multiplier"),
        ({"reels": "nope"}, "options.free_games.reels"),
        ({"awards": {3: {"prize": 1}}}, "options.free_games.awards.3.games"),
        ({"symbol": "ZZZ"}, "options.free_games.symbol"),
        ({"colour": 1}, "options.free_games.colour"),
    ],
)
def test_bad_free_games_declaration(write_game, patch, field):
    import yaml

    data = yaml.safe_load((CLASSIC / "game.yaml").read_text())
    data["options"]["free_games"].update(patch)
    path = write_game(data)
    with pytest.raises(GameFileError) as err:
        load_features(load_game(path))
    assert err.value.field == field
