"""Board multipliers persisting through the free games
(``options.tumble.multiplier_symbols.persist``): the exact mean award
against a plain-Python brute force that carries the running total ``T`` as
an explicit state (every stop vector of every free spin, every draw of the
values, every retrigger up to ``max_games``), the hand-worked example of
docs/features.md, the refusals."""

from __future__ import annotations

from fractions import Fraction as F
from functools import cache
from itertools import product
from math import prod

import pytest
import yaml
from test_tumble import anywhere_drop, brute_spin, total_bet_of

from slotmath.errors import EngineTooLarge, GameFileError
from slotmath.features.options import load_features
from slotmath.features.persist import PersistChain, persist_chain
from slotmath.io.gamefile import load_game
from slotmath.rules.linegame import analyse

from conftest import TEST_DATA

PERSIST = TEST_DATA / "tumble_persist" / "game.yaml"


def _raw():
    return yaml.safe_load(PERSIST.read_text())


def spin_outcomes(raw):
    """{(tumble coins, SCATTER count on the first drop, BOMBs on the final board): probability}
    of one free spin, every stop vector played in plain Python."""
    strips = raw["reels"]["free"]
    cycle = prod(len(s) for s in strips)
    out: dict = {}
    for stops in product(*(range(len(s)) for s in strips)):
        trace: list = []
        coins, n = brute_spin(
            raw, "free", stops, raw["options"]["tumble"]["free_multipliers"], trace, anywhere_drop
        )
        m = sum(col.count("BOMB") for col in trace[-1])
        out[(coins, n, m)] = out.get((coins, n, m), 0) + F(1, cycle)
    return out


def brute_mean_award(raw, start: int | None = None) -> F:
    """E[sum of the free games' wins] [x total bet] of one trigger (or of
    ``start`` games bought): a recursion over (games played, games left, T)
    with T explicit, every draw of one value per BOMB (declared weights), x
    max(T, 1)."""
    free = raw["options"]["free_games"]
    cap, games = free["max_games"], free["awards"][3]["games"]
    table = [(v["value"], v["weight"]) for v in raw["options"]["tumble"]["multiplier_symbols"]["values"]]
    total = sum(w for _, w in table)
    bet = total_bet_of(raw)
    outcomes = spin_outcomes(raw)

    @cache
    def value(played, left, t) -> F:
        if left <= 0:
            return F(0)
        out = F(0)
        for (coins, n, m), p in outcomes.items():
            draws = product(table, repeat=m) if coins and m else [()]
            for draw in draws:
                q = p * F(prod(w for _, w in draw), total ** len(draw))
                t2 = t + sum(v for v, _ in draw)
                win = coins * max(t2, 1) + (2 * bet if n >= 3 else 0)
                extra = games if n >= 3 else 0
                left2 = min(left - 1 + extra, cap - played - 1)
                out += q * (win + value(played + 1, left2, t2))
        return out

    return value(0, games if start is None else start, 0) / bet


def brute_rtp(raw) -> F:
    """The round's RTP [x total bet]: every base stop vector in plain Python
    (its tumble pays, its scatter pay), 3+ SCATTERs adding the free games'
    brute-force mean award."""
    strips = raw["reels"]["base"]
    cycle = prod(len(s) for s in strips)
    bet = total_bet_of(raw)
    award = brute_mean_award(raw)
    total = F(0)
    for stops in product(*(range(len(s)) for s in strips)):
        coins, n = brute_spin(
            raw, "base", stops, raw["options"]["tumble"]["multipliers"], None, anywhere_drop
        )
        total += F(coins + (2 * bet if n >= 3 else 0), bet) + (award if n >= 3 else 0)
    return total / cycle


def _mean_award(game) -> F:
    spec = load_features(game).free_games
    chain = persist_chain(game, 1, spec)
    return chain.mean(spec.games(3)) / (chain.den * game.bet(1).total_bet)


def test_mean_award_matches_brute_force():
    """The chain's exact mean award equals the explicit-T brute force's."""
    got = _mean_award(load_game(PERSIST))
    want = brute_mean_award(_raw())
    assert got == want
    assert want > 0


def test_worked_example():
    """docs/features.md "Persistent board multipliers", worked example: two
    free games, no retrigger; each free spin pays 2 coins with one BOMB
    (probability 1/2; value 2 or 3, weights 2 and 1: mean 7/3) or 1 coin
    with none (1/2).
    Spin 1 (T' = 0): 1/2 x 2 x 7/3 + 1/2 x 1 x max(0, 1) = 7/3 + 1/2 = 17/6.
    Spin 2: T' = 7/3 on average, T' = 0 with probability 1/2:
    1/2 x 2 x (7/6 + 7/3) + 1/2 x (1/2 x 7/3 + 1/2 x 1) = 7/2 + 5/6 = 13/3.
    Mean award 17/6 + 13/3 = 43/6 coins."""
    mean = F(7, 3)
    half = F(1, 2)
    # (P, E[Y0], E[A], E[A S], E[A 1{S=0}], E[S], P(S=0)) over both outcomes, no games added
    spin = (F(1), F(0), half * 2 + half * 1, half * 2 * mean, half * 1, half * mean, half)
    chain = PersistChain({0: spin}, 1, None)
    assert chain.mean(1) == F(17, 6)
    assert chain.mean(2) == F(43, 6)


def test_par_refuses_the_distribution_in_one_line():
    """par gives no silently wrong distribution: one line naming the field, the exact mean award."""
    game = load_game(PERSIST)
    with pytest.raises(EngineTooLarge) as err:
        analyse(game, 1)
    text = str(err.value)
    raw = _raw()
    want = brute_mean_award(raw)
    assert "multiplier_symbols.persist" in text and str(want) in text and "simulate" in text
    assert str(brute_rtp(raw)) in text
    assert "\n" not in text


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (
            lambda raw: raw["options"]["tumble"]["multiplier_symbols"].update({"in": ["base", "free"]}),
            "in: [free]",
        ),
        (lambda raw: raw["options"]["tumble"]["multiplier_symbols"].update({"persist": 1}), "true or false"),
        (lambda raw: raw["options"]["free_games"].pop("max_games"), "max_games"),
        (lambda raw: raw["options"]["tumble"].update({"triggers": "sequence"}), "sequence"),
        (lambda raw: raw["options"]["tumble"].update({"reset": "round"}), "round"),
    ],
    ids=["base", "not-bool", "no-cap", "sequence", "round"],
)
def test_refusals(tmp_path, change, words):
    raw = _raw()
    change(raw)
    path = tmp_path / "game.yaml"
    path.write_text(yaml.safe_dump(raw))
    with pytest.raises(GameFileError) as err:
        load_game(path)
    text = str(err.value)
    assert "options.tumble" in text and words in text and "\n" not in text, text


def test_sampler_matches_exact_rtp_and_components():
    """|z| < 4 of the compiled sampler's RTP and each component against the
    exact ones (base pays and scatters from the base law, the free games
    the rest of the exact round RTP)."""
    import numpy as np

    from slotmath.engine.tumble import tumble_rtp
    from slotmath.features.persist import persist_rtp
    from slotmath.rules.linegame import round_sampler

    game = load_game(PERSIST)
    rtp = persist_rtp(game, 1, load_features(game).free_games)
    pays, scatters = tumble_rtp(game, 1, "base")
    exact = {"anywhere": pays, "scatters": scatters, "free_games": rtp - pays - scatters}
    sampler = round_sampler(game, 1)
    n = 200_000
    wins, _, parts = sampler.kernel(np.random.default_rng(5), n, *sampler.args)
    assert sampler.part_names == tuple(exact)
    z = {
        name: (parts[:, j].mean() - float(exact[name])) / (parts[:, j].std() / n**0.5)
        for j, name in enumerate(sampler.part_names)
    }
    z["rtp"] = (wins.mean() - float(rtp)) / (wins.std() / n**0.5)
    assert all(abs(v) < 4 for v in z.values()), z
    # the persisting total matters: the round's free-games part is far from x1 play
    assert exact["free_games"] > 0


def test_bought_free_games_refusal_gives_their_mean_not_the_base_rtp(tmp_path):
    """A bought round of persistent-multiplier free games (no trigger symbol)
    is refused in one line with the bought games' exact mean award -- the
    brute force's for the 3 games bought -- and without the base round's RTP,
    which is not the bought round's figure."""
    from slotmath.rules.modepar import mode_par

    raw = _raw()
    raw["modes"] = {"buy": {"cost": 50, "buy": {"feature": "free_games", "games": 3}}}
    path = tmp_path / "game.yaml"
    path.write_text(yaml.safe_dump(raw))
    with pytest.raises(EngineTooLarge) as err:
        mode_par(load_game(path), "buy", 1)
    text = str(err.value)
    want = brute_mean_award(raw, start=3)  # 3 games bought (a trigger's award is 2)
    assert want != brute_mean_award(raw)
    assert f"the bought free games have the exact mean award {float(want):.6f}" in text and str(want) in text
    assert "RTP" not in text and "trigger symbols" not in text and "\n" not in text
