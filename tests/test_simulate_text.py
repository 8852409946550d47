"""``slotmath simulate``'s text: a count per round (free games played, an
award in prize-grid steps) has no odds, and the legend says what it is."""

from __future__ import annotations

import pandas as pd

from slotmath.montecarlo.convergence import ConvergenceReport, is_count

ROUNDS = 1000


def report() -> ConvergenceReport:
    """A report of 1000 rounds: an event (free games started 40 times) and
    two counts (1130 games played, 2270 grid steps of awards)."""
    events = pd.DataFrame(
        [
            {"event": name, "hits": hits, "per_round": hits / ROUNDS, "se": 0.01, "exact": exact, "z": 0.5}
            for name, hits, exact in (
                ("free_games", 40, 0.04),
                ("free_games_played", 1130, 1.1),
                ("hold_and_spin award [grid]", 2270, 2.2),
            )
        ]
    )
    events["one_in"] = ROUNDS / events["hits"]
    events["exact_one_in"] = 1 / events["exact"]
    figures = pd.DataFrame(
        [{"figure": "RTP", "simulated": 0.95, "ci_low": 0.9, "ci_high": 1.0, "exact": 0.96, "z": -0.2}]
    )
    histogram = pd.DataFrame([{"bin": "0", "rounds": ROUNDS, "probability": 1.0, "exact": 1.0, "z": 0.0}])
    return ConvergenceReport(ROUNDS, figures, events, histogram, 1.0, "exact", 1e6)


def test_counts_have_no_odds_in_the_text():
    assert not is_count("free_games") and is_count("free_games_played")
    assert is_count("hold_and_spin award [grid]") and is_count("lockit award [grid]")
    lines = report().text().splitlines()
    rows = {r.split()[0]: r.split() for r in lines if r.strip().startswith(("free_games", "hold_and_spin"))}
    assert rows["free_games"][1:] == ["40", "25.00", "25.00", "+0.50"]  # an event: 1 in 1000 / 40
    assert rows["free_games_played"][1:] == ["1130", "+0.50"]  # a count: no odds
    assert rows["hold_and_spin"][2:] == ["[grid]", "2270", "+0.50"]
    legend = [r for r in lines if r.startswith("(one_in blank")]
    assert len(legend) == 1 and "award [grid] summed in steps of its prize grid" in legend[0]


def test_events_with_no_hit_and_no_exact_rate_are_counted_not_listed():
    # a drawn multiplier's line labels (one per sum or product) are mostly
    # never hit and have no exact rate: one line counts them; a label never
    # hit that has an exact rate, or hit without one, is still listed
    rep = report()
    extra = pd.DataFrame(
        [
            {
                "event": f"line: 3 x H1 (x{k})",
                "hits": 0,
                "per_round": 0.0,
                "se": 0.0,
                "exact": None,
                "z": None,
            }
            for k in range(2, 1502)
        ]
        + [
            {"event": "line: 3 x H2", "hits": 0, "per_round": 0.0, "se": 0.0, "exact": 1e-5, "z": -0.1},
            {"event": "line: 3 x H3", "hits": 7, "per_round": 0.007, "se": 0.002, "exact": None, "z": None},
        ]
    )
    extra["one_in"] = [ROUNDS / h if h else float("inf") for h in extra["hits"]]
    extra["exact_one_in"] = [1 / x if x else None for x in extra["exact"]]
    rep.events = pd.concat([rep.events, extra], ignore_index=True)
    text = rep.text()
    assert "(1,500 events with no hit in the run and no exact rate are not listed)" in text
    assert "(x2)" not in text and "(x1501)" not in text
    assert "line: 3 x H2" in text and "line: 3 x H3" in text and "free_games_played" in text


def test_counts_have_no_odds_in_the_json(capsys):
    # simulate --json: a count per round carries null odds, an event its 1 in N
    import json

    from slotmath.cli import main

    args = ["simulate", "tests/data/classic_free_games", "--spins", "20000", "--seed", "1", "--json"]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    events = {e["event"]: e for e in out["convergence"]["events"]}
    assert events["free_games_played"]["one_in"] is None
    assert events["free_games_played"]["exact_one_in"] is None
    assert events["free_games"]["one_in"] > 1  # an event: its simulated 1 in N
