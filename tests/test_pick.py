"""The pick-until-collect bonus (``options.pick``): hand-worked figures and a
brute force over every stop vector and every order of the tiles."""

from fractions import Fraction
from itertools import permutations, product

import pytest

from slotmath.features.pick import pick_law, revealed_law
from slotmath.io.gamefile import GameFileError, load_game
from slotmath.rules.linegame import analyse

GAME = "tests/data/pick_collect"


def test_revealed_law_by_hand():
    """3 prize tiles, 2 collects (5 tiles): K = 0 when a collect comes first
    (2/5); K = 1: prize then collect, 3/5 x 2/4 = 3/10; K = 2: 3/5 x 2/4 x 2/3
    = 1/5; K = 3: 3/5 x 2/4 x 1/3 = 1/10.  Mean 3 / (2 + 1) = 1."""
    assert revealed_law(3, 2) == [Fraction(2, 5), Fraction(3, 10), Fraction(1, 5), Fraction(1, 10)]
    assert revealed_law(2, 0) == [0, 0, 1]


def test_worked_example():
    """docs/features.md, `pick`: 2+ BONUS in the 3x2 window of reels showing
    BONUS on 2 of 4, 2 of 3 and 2 of 5 stops start the pick with probability
    p1 p2 + p1 p3 + p2 p3 - 2 p1 p2 p3 = 1/3 + 1/5 + 4/15 - 4/15 = 8/15; the
    bonus pays E[K] x mean prize = 1 x 7/3, so the pick adds 56/45 x total bet.
    Lines: 3 A on the line 4 of 60 stop vectors x 10, 3 B 2 of 60 x 4: 48/60."""
    par = analyse(load_game(GAME), 1)
    assert par.components["pick"] == Fraction(56, 45)
    assert par.components["lines"] == Fraction(4, 5)
    assert par.rtp == Fraction(56, 45) + Fraction(4, 5)


def _brute_force(game):
    """Every stop vector and every order of the tiles, plain Python."""
    opts = game.options["pick"]
    tiles = []
    for t in opts["tiles"]:
        tiles += [None if "collect" in t else Fraction(t["prize"])] * t.get("count", 1)
    orders = list(permutations(tiles))
    strips = [s.symbols for s in game.strips("base")]
    total = Fraction(0)
    law: dict = {}
    cycle = 0
    for stops in product(*(range(len(s)) for s in strips)):
        cycle += 1
        window = [[s[(k + r) % len(s)] for r in range(game.rows)] for s, k in zip(strips, stops, strict=True)]
        line = [col[0] for col in window]
        base = Fraction({"A": 10, "B": 4}.get(line[0], 0)) if len(set(line)) == 1 else Fraction(0)
        bonus = sum(col.count(opts["symbol"]) for col in window) >= opts["trigger"]
        for order in orders if bonus else [()]:
            award = Fraction(0)
            for tile in order:
                if tile is None:
                    break
                award += tile
            p = Fraction(1, len(orders)) if bonus else Fraction(1)
            total += p * (base + award)
            law[base + award] = law.get(base + award, 0) + p
    return total / cycle, {w: p / cycle for w, p in law.items()}


def test_brute_force():
    game = load_game(GAME)
    rtp, law = _brute_force(game)
    par = analyse(game, 1)
    assert par.rtp == rtp
    dist = par.distribution
    got = {
        Fraction(int(w), dist.unit_den): float(q) for w, q in zip(dist.wins, dist.probabilities, strict=True)
    }
    assert set(got) == set(law)
    for w, p in law.items():
        assert got[w] == pytest.approx(float(p), rel=1e-12)


def test_award_law_sums_to_one_and_keeps_the_mean():
    from slotmath.features.pick import load_pick

    spec = load_pick(load_game(GAME))
    law = pick_law(spec)
    assert sum(law.values()) == 1
    assert sum(v * q for v, q in law.items()) == Fraction(7, 3)


@pytest.mark.parametrize(
    "tiles, problem",
    [
        ([{"collect": True}], "has no prize tile"),
        ([{"prize": 1, "collect": True}], "exactly one of"),
        ([{"prize": 1}, {"collect": "yes"}], "must be true"),
        ([{"prize": -1}], "positive"),
        ([{"prize": f"{2**i}/{i + 3}"} for i in range(25)], "states, above 1e"),
    ],
)
def test_bad_tiles_are_refused(tmp_path, tiles, problem):
    import yaml

    doc = yaml.safe_load(open(f"{GAME}/game.yaml"))
    doc["options"]["pick"]["tiles"] = tiles
    (tmp_path / "game.yaml").write_text(yaml.safe_dump(doc))
    with pytest.raises(GameFileError, match=f"options.pick.tiles.*{problem}"):
        load_game(tmp_path)


def test_on_a_ways_game(tmp_path):
    """The pick reads only the window's count: on the same reels paid by ways
    it adds the same 56/45 x total bet."""
    text = open(f"{GAME}/game.yaml").read().replace("paylines:\n  - [0, 0, 0]\n", "pays_by: ways\n")
    (tmp_path / "game.yaml").write_text(text)
    par = analyse(load_game(tmp_path), 1)
    assert "ways" in par.components
    assert par.components["pick"] == Fraction(56, 45)


def test_sampler_agrees():
    """The compiled round draws the award from the bonus's law when the base
    window starts it (the generic slot of FeatureKind.draws): the trigger
    rate and every component agree with the exact figures (|z| < 4)."""
    import numpy as np

    from slotmath.rules.linegame import round_sampler

    game = load_game(GAME)
    par = analyse(game, 1)
    sampler = round_sampler(game, 1)
    rng = np.random.Generator(np.random.PCG64DXSM(np.random.SeedSequence(11)))
    n = 400_000
    wins, events, parts = sampler.kernel(rng, n, *sampler.args)
    for j, name in enumerate(sampler.part_names):
        col = parts[:, j]
        z = (col.mean() - float(par.components[name])) / (col.std() / np.sqrt(n))
        assert abs(z) < 4, (name, z)
    starts = events[sampler.event_names.index("pick starts")]
    p = float(par.features["event_rates"]["pick starts"])
    assert p == pytest.approx(8 / 15)
    assert abs(starts - n * p) / np.sqrt(n * p * (1 - p)) < 4
    assert np.allclose(parts.sum(axis=1), wins)
