"""Bad input: every invalid game file gives one line on stderr naming the file,
the field and the problem, exit status 2 and no traceback.

Each case starts from a valid game (checked by ``test_base_game_is_valid``),
breaks one thing, and runs ``slotmath validate`` as a subprocess on it (the
cases the issue lists, a missing file and an unknown bet level also through
``slotmath par``).
"""

from __future__ import annotations

import copy
import json
import os
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml

from conftest import ROOT, run_cli_many, slotmath_command

BASE = {
    "name": "broken",
    "grid": {"reels": 3, "rows": 3},
    "bet": {"levels": [1, 2, 5]},
    "symbols": [
        {"name": "A"},
        {"name": "B"},
        {"name": "W", "kind": "wild", "multiplier": {"per_wild": 2}},
        {"name": "S", "kind": "scatter"},
        {"name": "X", "kind": "blank"},
    ],
    "groups": {"AB": ["A", "B"]},
    "reels": {"base": [["A", "B", "W", "S", "X"], ["A", "X", "B", "W", "S"], ["A", "B", "X", "W", "S", "X"]]},
    "paylines": [[1, 1, 1], [0, 1, 2]],
    "pays": [
        {"symbol": "A", "count": 3, "pay": 10},
        {"symbol": "AB", "count": 3, "pay": 2},
        {"pattern": ["A", "B"], "pay": 1},
        {"anywhere": "A", "exactly": 1, "pay_by_level": [1, 2, 4]},
    ],
    "scatters": [{"symbol": "S", "count": 3, "pay": 5}],
}

CSV_OK = "reel1,reel2,reel3\nA,A,A\nB,X,B\nW,B,X\nS,W,W\nX,S,S\n,,X\n"


@dataclass
class Case:
    """One broken game: ``edit`` changes the game dict in place (or returns
    replacement YAML text); the message must name ``file`` (relative to the
    test folder), contain ``field`` and ``problem``."""

    id: str
    edit: Callable
    field: str
    problem: str
    files: dict = field(default_factory=dict)
    file: str = "game.yaml"
    commands: tuple = None

    def __post_init__(self):
        if self.commands is None:  # the issue's list runs under both commands
            self.commands = (("validate",), ("par",)) if self.id in ISSUE_CASES else (("validate",),)


# the invalid inputs the issue names (each also checked with `slotmath par`)
ISSUE_CASES = {
    "malformed_yaml",
    "unknown_symbol_on_strip",
    "unknown_symbol_in_pay",
    "unknown_symbol_in_pattern",
    "empty_strip",
    "negative_weight",
    "all_zero_weights",
    "payline_row_outside_grid",
    "payline_wrong_length",
    "pay_for_more_symbols_than_reels",
    "wild_substitutes_unknown_symbol",
    "duplicate_symbol_names",
}


def put(path: str, value):
    """An edit setting the dotted/indexed ``path`` (a list of keys) to ``value``."""

    def edit(d):
        *head, last = path
        for k in head:
            d = d[k]
        d[last] = value

    return edit


def strip(r, value):
    return put(["reels", "base", r], value)


def add(key, item):
    return lambda d: d.setdefault(key, []).append(item)


def cluster(edit=None):
    """An edit making the base game a cluster game (A and B pay clusters of
    3+, the wild without its multiplier), then applying ``edit``."""

    def change(d):
        d.update(
            pays_by="cluster",
            pays=[{"symbol": "A", "count": 3, "pay": 2}, {"symbol": "B", "count": 3, "pay": 1}],
        )
        d.pop("paylines")
        d["symbols"][2].pop("multiplier")
        if edit is not None:
            edit(d)

    return change


CASES = [
    # --- YAML and file level
    Case(
        "malformed_yaml",
        lambda d: "grid: {reels: 3, rows: 3\nbet: {levels: [1]}\n",
        "line 2",
        "malformed YAML",
    ),
    Case(
        "duplicate_yaml_key",
        lambda d: "grid: {reels: 3, rows: 3}\ngrid: {reels: 5, rows: 3}\n",
        "line 2",
        "duplicate key 'grid'",
    ),
    Case("not_a_mapping", lambda d: "- just\n- a list\n", "", "must hold a mapping"),
    Case("empty_file", lambda d: "", "", "must hold a mapping"),
    Case("missing_required_key", lambda d: d.pop("reels"), "", "'reels' is a required property"),
    Case(
        "unknown_top_level_key",
        lambda d: d.update(payline=[[1, 1, 1]]),
        "payline",
        "unknown key (did you mean 'paylines'? allowed: bet, description, grid,",
    ),
    Case(  # the misspelt key, not "'grid' is a required property", which names neither
        "misspelt_required_top_level_key",
        lambda d: d.update(gird=d.pop("grid")),
        "gird",
        "unknown key (did you mean 'grid'? allowed: bet, description, grid,",
    ),
    Case(  # the docs' example (game-format.md section 16): a mode's cost misspelt
        "misspelt_mode_cost",
        lambda d: d.update(modes={"ante": {"cots": 1.25}}),
        "modes.ante.cots",
        "unknown key (did you mean 'cost'? allowed: buy, cost, label, options, reels, round_cap)",
    ),
    Case(  # an unknown key that misspells no missing one: the missing key is named
        "missing_key_beside_an_unrelated_unknown_one",
        lambda d: d.update(modes={"ante": {"colour": 1}}),
        "modes.ante",
        "'cost' is a required property",
    ),
    Case(
        "unknown_key_of_a_feature",  # a typo inside a feature: the nearest key suggested
        lambda d: d.update(
            reels={**d["reels"], "free": d["reels"]["base"]},
            options={
                "free_games": {
                    "symbol": "S",
                    "reels": "free",
                    "awards": {3: {"games": 2}},
                    "retriger_awards": {3: {"games": 1}},
                }
            },
        ),
        "options.free_games.retriger_awards",
        "unknown key (did you mean 'retrigger_awards'? allowed: awards,",
    ),
    # --- symbols and wilds
    Case(
        "duplicate_symbol_names",
        add("symbols", {"name": "B"}),
        "symbols[5].name",
        "duplicate symbol name 'B'",
    ),
    Case("bad_symbol_kind", put(["symbols", 1, "kind"], "joker"), "symbols[1].kind", "'joker'"),
    Case(
        "wild_substitutes_unknown_symbol",
        put(["symbols", 2, "substitutes"], ["A", "Q"]),
        "symbols[2].substitutes[1]",
        "unknown symbol 'Q'",
    ),
    Case(
        "wild_except_unknown_symbol",
        put(["symbols", 2, "except"], ["Q"]),
        "symbols[2].except[0]",
        "unknown symbol 'Q'",
    ),
    Case(
        "wild_substitutes_for_itself",
        put(["symbols", 2, "substitutes"], ["A", "W"]),
        "symbols[2].substitutes[1]",
        "cannot substitute for itself",
    ),
    Case(
        "wild_substitutes_for_scatter",
        put(["symbols", 2, "substitutes"], ["A", "S"]),
        "symbols[2].substitutes[1]",
        "'S' is a scatter",
    ),
    Case(
        "except_without_all",
        lambda d: d["symbols"][2].update({"substitutes": ["A"], "except": ["B"]}),
        "symbols[2].except",
        "only goes with 'substitutes: all'",
    ),
    Case(
        "wild_substitutes_for_blank",
        put(["symbols", 2, "substitutes"], ["X"]),
        "symbols[2].substitutes[0]",
        "'X' is a blank",
    ),
    Case(
        "multiplier_on_regular_symbol",
        put(["symbols", 0, "multiplier"], {"per_wild": 2}),
        "symbols[0].multiplier",
        "only wild symbols",
    ),
    Case(
        "by_count_zero_wilds_not_1",
        put(["symbols", 2, "multiplier"], {"by_count": [2, 4, 8]}),
        "symbols[2].multiplier.by_count[0]",
        "must be 1",
    ),
    Case(
        "per_wild_and_by_count",
        put(["symbols", 2, "multiplier"], {"per_wild": 2, "by_count": [1, 3]}),
        "symbols[2].multiplier",
        "not both",
    ),
    Case(
        "group_with_unknown_symbol", put(["groups", "AB"], ["A", "Q"]), "groups.AB[1]", "unknown symbol 'Q'"
    ),
    # --- reels
    Case(
        "unknown_symbol_on_strip",
        strip(2, ["A", "B", "X", "W", "Q", "X"]),
        "reels.base[2][4]",
        "unknown symbol 'Q'",
    ),
    Case("empty_strip", strip(1, []), "reels.base[1]", "empty"),
    Case(
        "strip_in_no_accepted_form",
        strip(1, {"file": "strip.csv"}),
        "reels.base[1]",
        "{'file': 'strip.csv'} is none of: a list of strings; "
        "a mapping with keys symbols (required), weights",
    ),
    Case(
        "reel_set_in_no_accepted_form",
        put(["reels", "extra"], 5),
        "reels.extra",
        "5 is none of: a string (CSV file in the game folder); a list of strips",
    ),
    Case("strip_shorter_than_window", strip(1, ["A", "B"]), "reels.base[1]", "fewer than the 3 rows"),
    Case(
        "wrong_reel_count",
        put(["reels", "base"], [["A", "B", "W"]] * 2),
        "reels.base",
        "has 2 reels, the grid has 3",
    ),
    Case(
        "no_base_reel_set",
        put(["reels"], {"free": [["A", "B", "W"]] * 3}),
        "reels",
        "'base' is a required property",
    ),
    Case(
        "negative_weight",
        strip(0, {"symbols": ["A", "B", "W", "S", "X"], "weights": [3, 2, -1, 1, 1]}),
        "reels.base[0].weights[2]",
        "negative weight -1",
    ),
    Case(
        "all_zero_weights",
        strip(0, {"symbols": ["A", "B", "W", "S", "X"], "weights": [0] * 5}),
        "reels.base[0].weights",
        "all weights are zero",
    ),
    Case(
        "weights_length_mismatch",
        strip(0, {"symbols": ["A", "B", "W", "S", "X"], "weights": [1, 2]}),
        "reels.base[0].weights",
        "2 weights for 5 stops",
    ),
    Case(
        "non_integer_weight",
        strip(0, {"symbols": ["A", "B", "W", "S", "X"], "weights": [1, 2.5, 1, 1, 1]}),
        "reels.base[0].weights[1]",
        "not of type 'integer'",
    ),
    Case(
        "cycle_beyond_exact_range",
        put(["reels", "base"], [{"symbols": ["A", "B", "W", "S", "X"], "weights": [2**21] * 5}] * 3),
        "reels.base",
        "exceeds 2**62",
    ),
    Case("csv_file_missing", put(["reels", "base"], "strips.csv"), "reels.base", "not found"),
    Case(
        "csv_unknown_symbol",
        put(["reels", "base"], "strips.csv"),
        "reels.base[2][3]",
        "unknown symbol 'Q' (column reel3, line 5)",
        file="strips.csv",
        files={"strips.csv": CSV_OK.replace("S,W,W", "S,W,Q")},
    ),
    Case(
        "csv_symbol_read_by_no_rule",  # the coin of a base-game hold-and-spin on the free reels' CSV
        lambda d: d.update(
            symbols=[*d["symbols"], {"name": "C", "kind": "special"}],
            reels={"base": [[*s, "C"] for s in d["reels"]["base"]], "free": "free.csv"},
            options={
                "free_games": {"symbol": "S", "reels": "free", "awards": {3: {"games": 2}}},
                "hold_and_spin": {
                    "symbol": "C",
                    "trigger": 3,
                    "respins": 3,
                    "reels": "base",
                    "values": [{"prize": 1, "weight": 1}],
                },
            },
        ),
        "reels.free[1][2]",
        "symbol 'C' is on reel set 'free' but no rule of the game reads it there",
        file="free.csv",
        files={"free.csv": CSV_OK.replace("W,B,X", "W,C,X")},
    ),
    Case(
        "csv_bad_header",
        put(["reels", "base"], "strips.csv"),
        "header",
        "column 3 is not a reel or weight column",
        file="strips.csv",
        files={"strips.csv": CSV_OK.replace("reel3", "reel_3")},
    ),
    Case(
        "csv_gap_in_strip",
        put(["reels", "base"], "strips.csv"),
        "reel2",
        "empty cell on line 3",
        file="strips.csv",
        files={"strips.csv": CSV_OK.replace("B,X,B", "B,,B")},
    ),
    Case(
        "csv_bad_weight",
        put(["reels", "base"], "strips.csv"),
        "weight1",
        "line 3: weight 'x'",
        file="strips.csv",
        files={"strips.csv": "reel1,weight1,reel2,reel3\nA,1,A,A\nB,x,X,B\nW,1,B,X\nS,1,W,W\n,,S,S\n"},
    ),
    Case(
        "csv_wrong_reel_count",
        put(["reels", "base"], "strips.csv"),
        "reels.base",
        "has 2 reels, the grid has 3",
        file="strips.csv",
        files={"strips.csv": "reel1,reel2\nA,A\nB,B\nW,W\n"},
    ),
    # --- paylines and bet
    Case(
        "payline_row_outside_grid",
        put(["paylines", 1], [0, 1, 3]),
        "paylines[1][2]",
        "row 3 is outside the grid",
    ),
    Case(
        "payline_negative_row",
        put(["paylines", 0], [1, -1, 1]),
        "paylines[0][1]",
        "row -1 is outside the grid",
    ),
    Case(
        "payline_wrong_length",
        put(["paylines", 0], [1, 1]),
        "paylines[0]",
        "has 2 rows, need one per reel (3)",
    ),
    Case("bet_lines_mismatch", put(["bet", "lines"], 5), "bet.lines", "2 paylines"),
    Case("no_bet_levels", put(["bet", "levels"], []), "bet.levels", "non-empty"),
    Case("repeated_bet_level", put(["bet", "levels"], [1, 2, 2]), "bet.levels", "non-unique"),
    # --- line pays
    Case(
        "unknown_symbol_in_pay",
        add("pays", {"symbol": "Q", "count": 2, "pay": 1}),
        "pays[4].symbol",
        "unknown symbol or group 'Q'",
    ),
    Case(
        "unknown_symbol_in_pattern",
        add("pays", {"pattern": ["A", "Q"], "pay": 1}),
        "pays[4].pattern[1]",
        "unknown symbol or group 'Q'",
    ),
    Case(
        "unknown_symbol_anywhere",
        add("pays", {"anywhere": "Q", "exactly": 1, "pay": 1}),
        "pays[4].anywhere",
        "unknown symbol 'Q'",
    ),
    Case(
        "pay_for_more_symbols_than_reels",
        add("pays", {"symbol": "B", "count": 4, "pay": 50}),
        "pays[4].count",
        "4 symbols on 3 reels",
    ),
    Case(
        "pattern_longer_than_reels",
        add("pays", {"pattern": ["A", "B", "A", "B"], "pay": 5}),
        "pays[4].pattern",
        "4 symbols on 3 reels",
    ),
    Case(
        "anywhere_more_than_reels",
        add("pays", {"anywhere": "B", "exactly": 4, "pay": 5}),
        "pays[4].exactly",
        "4 symbols on a line of 3 reels",
    ),
    Case(
        "two_pay_forms",
        add("pays", {"symbol": "B", "count": 2, "pattern": ["B", "B"], "pay": 1}),
        "pays[4]",
        "give exactly one of 'symbol' (with 'count'), 'pattern' or 'anywhere'",
    ),
    Case("pay_without_count", add("pays", {"symbol": "B", "pay": 5}), "pays[4].count", "needs 'count'"),
    Case(
        "pay_and_pay_by_level",
        add("pays", {"symbol": "B", "count": 2, "pay": 5, "pay_by_level": [5, 10, 25]}),
        "pays[4]",
        "exactly one of 'pay' and 'pay_by_level'",
    ),
    Case(
        "pay_by_level_wrong_length",
        add("pays", {"symbol": "B", "count": 2, "pay_by_level": [5, 10]}),
        "pays[4].pay_by_level",
        "2 values for 3 bet levels",
    ),
    Case(
        "negative_pay",
        add("pays", {"symbol": "B", "count": 2, "pay": -5}),
        "pays[4].pay",
        "less than the minimum of 0",
    ),
    Case(
        "scatter_in_line_pay",
        add("pays", {"symbol": "S", "count": 3, "pay": 5}),
        "pays[4]",
        "'S' is a scatter and cannot pay on a line",
    ),
    Case(
        "duplicate_line_pay",
        add("pays", {"symbol": "A", "count": 3, "pay": 12}),
        "pays[4]",
        "same combination as pays[0]",
    ),
    # --- scatter pays
    Case(
        "scatter_pay_on_non_scatter",
        add("scatters", {"symbol": "B", "count": 3, "pay": 5}),
        "scatters[1].symbol",
        "'B' is not of kind 'scatter'",
    ),
    Case(
        "scatter_pay_unknown_symbol",
        add("scatters", {"symbol": "Q", "count": 3, "pay": 5}),
        "scatters[1].symbol",
        "unknown symbol 'Q'",
    ),
    Case(
        "scatter_count_exceeds_window",
        add("scatters", {"symbol": "S", "count": 10, "pay": 5}),
        "scatters[1].count",
        "do not fit a 3x3 window",
    ),
    Case(
        "scatter_count_exceeds_window_3x4",  # a window is named reels x rows, as the grid is
        lambda d: d.update(
            grid={"reels": 3, "rows": 4}, scatters=[*d["scatters"], {"symbol": "S", "count": 13, "pay": 5}]
        ),
        "scatters[1].count",
        "13 symbols do not fit a 3x4 window",
    ),
    Case(
        "duplicate_scatter_pay",
        add("scatters", {"symbol": "S", "count": 3, "pay": 7}),
        "scatters[1]",
        "already paid by scatters[0]",
    ),
    Case(
        "bad_scatter_pay",
        add("scatters", {"symbol": "S", "count": 2, "pay": "two"}),
        "scatters[1].pay",
        "'two'",
    ),
    # --- features of the line round
    Case(
        "wheel_unknown_symbol",
        put(["options"], {"wheel": {"symbol": "Q", "trigger": 2, "segments": [{"prize": 1, "weight": 1}]}}),
        "options.wheel.symbol",
        "unknown symbol 'Q'",
    ),
    Case(
        "selection_unknown_policy",
        put(["options"], {"selection": {"symbol": "S", "trigger": 3, "policy": "best", "choices": []}}),
        "options.selection.policy",
        "must be one of player, uniform, max_rtp",
    ),
    Case(
        "jackpot_not_awarded",
        put(["options"], {"jackpots": {"MINI": 5}}),
        "options.jackpots.MINI",
        "is not awarded",
    ),
    Case(
        "wild_multipliers_on_a_multiplier_wild",
        put(["options"], {"wild_multipliers": {"symbol": "W", "table": [[2, 1]]}}),
        "options.wild_multipliers.symbol",
        "already declares a multiplier",
    ),
    # --- rules
    Case("unknown_rules", put(["rules"], "no_such_rules"), "rules", "unknown rules 'no_such_rules'"),
    # --- cluster pays
    Case(
        "cluster_of_one_cell",
        cluster(add("pays", {"symbol": "A", "count": 1, "pay": 1})),
        "pays[2].count",
        "a cluster has at least 2 cells, got 1",
    ),
    Case(
        "cluster_larger_than_window",
        cluster(add("pays", {"symbol": "A", "count": 10, "pay": 1})),
        "pays[2].count",
        "a pay for 10 symbols in a window of 9 cells",
    ),
    Case(
        "cluster_pay_for_a_pattern",
        cluster(add("pays", {"pattern": ["A", "B"], "pay": 1})),
        "pays[2]",
        "with pays_by: cluster a pay is {symbol, count, pay} of one symbol",
    ),
    Case(
        "cluster_pay_for_a_scatter",
        cluster(add("pays", {"symbol": "S", "count": 3, "pay": 1})),
        "pays[2].symbol",
        "'S' is a scatter, not a paying symbol: with pays_by: cluster only regular symbols pay",
    ),
    Case(
        "cluster_tumble_fresh_refill",
        cluster(put(["options"], {"tumble": {"refill": "fresh"}})),
        "options.tumble.draws",
        "refill: fresh needs draws",
    ),
    Case(
        "cluster_tumble_win_past_2_53",
        cluster(put(["options"], {"tumble": {"multipliers": [10**13]}})),
        "options.tumble.multipliers",
        "below 2**53 win units",
    ),
    # --- command line: a bet level the game does not offer
    Case(
        "unknown_bet_level",
        lambda d: None,
        "bet.levels",
        "bet level 7 is not offered",
        commands=(("par", "--bet", "7"), ("simulate", "--spins", "10", "--bet", "7")),
    ),
]


def run_many(commands: list) -> list:
    """Run several CLI invocations concurrently; (status, stdout, stderr) in order."""
    return [(p.returncode, p.stdout, p.stderr) for p in run_cli_many(commands)]


def assert_one_line_error(rc, stdout, stderr, file, field, problem):
    assert "Traceback" not in stderr + stdout
    assert rc == 2, (rc, stderr)
    lines = stderr.splitlines()
    assert len(lines) == 1, stderr
    line = lines[0]
    assert str(file) in line, line
    assert field in line and problem in line, line
    assert stdout == ""


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    """Write every broken game to its own folder and run all the commands at
    once: {case id: (folder, [(status, stdout, stderr) per command])}."""
    jobs, folders = [], {}
    for case in [Case("valid", lambda d: None, "", "")] + CASES:
        folder = tmp_path_factory.mktemp(case.id)
        data = copy.deepcopy(BASE)
        text = case.edit(data)
        path = folder / "game.yaml"
        path.write_text(
            text if isinstance(text, str) else yaml.safe_dump(data, sort_keys=False), encoding="utf-8"
        )
        for name, content in case.files.items():
            (folder / name).write_text(content, encoding="utf-8")
        folders[case.id] = folder
        jobs += [(case.id, (cmd[0], path, *cmd[1:])) for cmd in case.commands]
    results = run_many([args for _, args in jobs])
    out = {cid: (folder, []) for cid, folder in folders.items()}
    for (cid, _), result in zip(jobs, results, strict=True):
        out[cid][1].append(result)
    return out


def test_base_game_is_valid(outcomes):
    _, ((rc, out, err),) = outcomes["valid"]
    assert rc == 0 and err == "", err
    assert "ok" in out


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_game_file(case, outcomes):
    folder, results = outcomes[case.id]
    assert len(results) == len(case.commands)
    for rc, out, err in results:
        assert_one_line_error(rc, out, err, folder / case.file, case.field, case.problem)


def test_missing_file(tmp_path):
    missing = tmp_path / "nowhere" / "game.yaml"
    for rc, out, err in run_many([("validate", missing), ("par", missing)]):
        assert_one_line_error(rc, out, err, missing, "", "no such game file")


def test_folder_without_game_file(tmp_path):
    for rc, out, err in run_many([("validate", tmp_path), ("par", tmp_path)]):
        assert_one_line_error(rc, out, err, tmp_path, "", "no such game file or game folder")


def test_reel_file_that_is_a_pipe_or_a_folder(write_game):
    # a named pipe inside the game's folder would block the CSV reader for ever (nothing can be
    # committed for it: git keeps no pipes); a pipe and a folder are refused before any read
    data = copy.deepcopy(BASE)
    data["reels"] = {"base": "pipe.csv", "other": "sub"}
    path = write_game(data)
    os.mkfifo(path.parent / "pipe.csv")
    (path.parent / "sub").mkdir()
    ((rc, out, err),) = run_many([("validate", path)])
    assert_one_line_error(rc, out, err, path, "reels.base", "'pipe.csv' is not a regular file")
    data["reels"] = {"base": "sub"}
    path = write_game(data)
    ((rc, out, err),) = run_many([("validate", path)])
    assert_one_line_error(rc, out, err, path, "reels.base", "'sub' is not a regular file")


@pytest.mark.parametrize(
    "args",
    [("--spins", "0"), ("--spins", "-5"), ("--spins", "1.5"), ("--spins", "many"), ("--spins", "1e99")],
    ids=["zero", "negative", "fraction", "text", "past_2_53"],
)
def test_bad_spin_count(args, write_game):
    # argparse usage errors: exit status 2, the usage line and one error line naming --spins
    path = write_game(copy.deepcopy(BASE))
    ((rc, out, err),) = run_many([("simulate", path, *args)])
    assert rc == 2 and "Traceback" not in err and out == ""
    assert "--spins" in err.splitlines()[-1] and args[1] in err.splitlines()[-1]


def test_chunk_past_2_53_is_refused_at_once(write_game):
    # a chunk of 1e30 rounds was played (no end in sight) rather than refused
    path = write_game(copy.deepcopy(BASE))
    rc, out, err, *_ = run_limited(["simulate", path, "--spins", "1e15", "--chunk", "1e30"], timeout=30)
    assert rc == 2 and "Traceback" not in err and out == ""
    assert "--chunk" in err.splitlines()[-1] and "2**53" in err.splitlines()[-1]


def test_tune_names_the_games_own_pay_rule(write_game):
    # tune models line and ways pays; a cluster game is refused naming its own rule
    data = copy.deepcopy(BASE)
    cluster()(data)
    path = write_game(data)
    ((rc, out, err),) = run_many([("tune", path, "--target-rtp", "96%")])
    assert_one_line_error(
        rc, out, err, path, "pays_by", "'cluster' pays: slotmath tune is for line and ways games"
    )


def test_bad_bet_argument(write_game):
    path = write_game(copy.deepcopy(BASE))
    ((rc, out, err),) = run_many([("par", path, "--bet", "two")])
    assert rc == 2 and "Traceback" not in err and out == ""
    assert "--bet" in err.splitlines()[-1]


# ---------------------------------------------------------------- the corpus
# tests/data/bad/: one folder per hostile or careless game (written by
# make_corpus.py, committed), cases.json names the file and the field each
# one-line error must name.  The bulk runs in one process under an address
# space limit (tests/bad_input_runner.py); a sample also runs as separate
# `slotmath` processes.

BAD = ROOT / "tests" / "data" / "bad"
CORPUS = json.loads((BAD / "cases.json").read_text(encoding="utf-8"))
LIMIT_MB = 1536  # address space: numba's compiler needs room to map
PEAK_MB = 500  # resident memory actually used
SECONDS = 5  # CPU time: the machine's load does not count against a case
WALL_SECONDS = 30  # wall time: a hang
COMMANDS = ("validate", "par --json")


def test_corpus_is_large_and_committed():
    assert len(CORPUS) >= 100
    missing = [c for c in CORPUS if not (BAD / c / "game.yaml").is_file()]
    assert not missing


def assert_clean_refusal(result: dict, file: Path, field: str):
    """Exit 2, one line naming the file and the field, no traceback, fast."""
    assert not result["error"], result["error"]
    assert result["status"] == 2, result
    assert result["stdout"] == ""
    lines = result["stderr"].splitlines()
    assert len(lines) == 1 and "Traceback" not in result["stderr"], result["stderr"]
    assert lines[0].startswith(f"slotmath: error: {file}: "), (lines[0], file)
    if field:
        assert lines[0].startswith(f"slotmath: error: {file}: {field}"), (lines[0], field)
    assert result["cpu_seconds"] < SECONDS and result["seconds"] < WALL_SECONDS, result


@pytest.fixture(scope="module")
def corpus_results(tmp_path_factory):
    """Every corpus case (and a game file over the size limit, too big to
    commit) through validate and par --json in one limited process."""
    big = tmp_path_factory.mktemp("oversized") / "game.yaml"
    with big.open("w", encoding="utf-8") as fh:  # 21 MB of one comment
        fh.write("# " + "x" * (21 * 2**20) + "\ngrid: {reels: 3, rows: 3}\n")
    games = [f"tests/data/bad/{c}/" for c in sorted(CORPUS)] + [str(big.parent)]
    proc = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "bad_input_runner.py"), str(LIMIT_MB), *COMMANDS, "--", *games],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    return {(r["game"], r["command"]): r for r in rows[:-1]}, rows[-1]["peak_mb"], big


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("case", sorted(CORPUS))
def test_corpus_case(case, command, corpus_results):
    results, _, _ = corpus_results
    expected = CORPUS[case]
    result = results[(f"tests/data/bad/{case}/", command)]
    assert_clean_refusal(result, f"tests/data/bad/{case}/{expected['file']}", expected["field"])


def test_oversized_game_file(corpus_results):
    results, _, big = corpus_results
    for command in COMMANDS:
        result = results[(str(big.parent), command)]
        assert_clean_refusal(result, big, "")
        assert "larger than the 20 MB limit" in result["stderr"]


def test_corpus_memory(corpus_results):
    _, peak_mb, _ = corpus_results
    assert peak_mb < PEAK_MB


def _limit_memory():
    limit = LIMIT_MB * 2**20
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def run_limited(args, timeout=60):
    """``slotmath ARGS`` in its own process under the memory limit:
    (status, stdout, stderr, wall seconds, CPU seconds, peak resident MB), the
    CPU and memory figures that process's own (``os.wait4``), not those of
    every child the test session has waited for."""
    import threading

    start = time.perf_counter()
    with open(os.devnull, "rb") as null:
        p = subprocess.Popen(
            slotmath_command() + [str(a) for a in args],
            stdin=null,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=ROOT,
            preexec_fn=_limit_memory,
        )
    streams: dict = {}
    readers = [
        threading.Thread(target=lambda k=k, f=f: streams.__setitem__(k, f.read()))
        for k, f in (("out", p.stdout), ("err", p.stderr))
    ]
    killer = threading.Timer(timeout, p.kill)  # a hang is killed, and fails the checks below
    for t in (*readers, killer):
        t.start()
    _, status, usage = os.wait4(p.pid, 0)
    killer.cancel()
    for t in readers:
        t.join()
    p.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.perf_counter() - start
    return (
        p.returncode,
        streams["out"].decode(),
        streams["err"].decode(),
        seconds,
        usage.ru_utime + usage.ru_stime,
        usage.ru_maxrss / 1024,
    )


SAMPLE = [
    "alias_bomb_groups",
    "piggy_alias_bomb_options",
    "deep_flow_nesting_5000",
    "too_many_values",
    "rules_dotdot_evil",
    "csv_symlink_passwd",
    "piggy_awards_short_row",
    "line_pay_10_to_29",
]


@pytest.mark.parametrize("case", SAMPLE)
def test_corpus_sample_as_processes(case):
    # the installed command in a fresh process: interpreter start, imports and the limit included
    expected = CORPUS[case]
    for command in COMMANDS:
        rc, out, err, seconds, cpu_seconds, peak_mb = run_limited(
            [*command.split()[:1], f"tests/data/bad/{case}", *command.split()[1:]]
        )
        assert peak_mb < PEAK_MB, (command, peak_mb)  # resident memory of this process
        assert_clean_refusal(
            {
                "status": rc,
                "stdout": out,
                "stderr": err,
                "seconds": seconds,
                "cpu_seconds": cpu_seconds,
                "error": "",
            },
            f"tests/data/bad/{case}/{expected['file']}",
            expected["field"],
        )


def test_allow_outside_lets_a_game_use_a_file_beside_its_folder():
    # csv_dotdot names ../outside.csv (a valid reel set): refused by default, read with the flag
    game = "tests/data/bad/csv_dotdot"
    rc, out, err, *_ = run_limited(["validate", game])
    assert rc == 2 and "outside the game's folder" in err
    rc, out, err, *_ = run_limited(["--allow-outside", "validate", game])
    assert rc == 0 and "ok" in out, err
    rc, out, err, *_ = run_limited(["par", game, "--json", "--allow-outside"])
    assert rc == 0 and json.loads(out)["game"] == "bad", err


def test_csv_header_is_not_echoed():
    rc, _, err, *_ = run_limited(["validate", "tests/data/bad/csv_passwd_content"])
    assert rc == 2 and "root" not in err and "/bin/bash" not in err


# ----------------------------------------------------- refused by par, played by simulate
# Declarations validate accepts whose exact law would not fit in memory or
# time: par refuses them in one line naming the file and the field (exit 2,
# bounded memory), simulate plays them (issue 24's re-audit).

_LATE = {
    "name": "late",
    "grid": {"reels": 3, "rows": 1},
    "bet": {"levels": [1]},
    "symbols": [
        {"name": "A"},
        {"name": "X", "kind": "blank"},
        {"name": "S", "kind": "scatter"},
        {"name": "W", "kind": "wild", "substitutes": "all"},
    ],
    "reels": {"base": [["A", "A", "S", "X", "W"]] * 3, "free": [["A", "W", "S", "X"]] * 3},
    "paylines": [[0, 0, 0]],
    "pays": [{"symbol": "A", "count": 3, "pay": 8}],
    "scatters": [{"symbol": "S", "count": 3, "pay": 2}],
    "options": {
        "free_games": {"symbol": "S", "reels": "free", "multiplier": 10**9, "awards": {3: {"games": 2}}}
    },
}
_WHEEL = {
    **_LATE,
    "reels": {"base": _LATE["reels"]["base"]},
    "options": {
        "wheel": {
            "symbol": "S",
            "trigger": 2,
            "segments": [{"prize": 10**9, "weight": 1}, {"prize": 1, "weight": 5}],
        }
    },
}
_ANYWHERE = {
    "name": "late_anywhere",
    "pays_by": "anywhere",
    "grid": {"reels": 9, "rows": 9},
    "bet": {"levels": [1], "lines": 10},
    "symbols": [{"name": f"P{i}"} for i in range(40)] + [{"name": "W", "kind": "wild"}],
    "reels": {"base": [[f"P{(i + r) % 40}" for i in range(40)] + ["W"] for r in range(9)]},
    "pays": [{"symbol": f"P{i}", "count": c, "pay": 1} for i in range(40) for c in (1, 2, 81)],
}
_CLUSTER = {
    "name": "late_cluster",
    "pays_by": "cluster",
    "grid": {"reels": 7, "rows": 7},
    "bet": {"levels": [1], "lines": 10},
    "symbols": [{"name": f"P{i}"} for i in range(6)] + [{"name": "W", "kind": "wild"}],
    "reels": {"base": [[f"P{(i * i * (r + 7) + i // 6) % 6}" for i in range(60)] + ["W"] for r in range(7)]},
    "pays": [{"symbol": f"P{i}", "count": c, "pay": 1} for i in range(6) for c in (5, 9, 15)],
}


@pytest.mark.parametrize(
    ("game", "field"),
    [
        (_LATE, "options.free_games"),  # x1e9 free games: 1.3e11 points of the round's law
        (_WHEEL, "options.wheel.segments"),  # a wheel prize of 1e9 x total bet
        (_ANYWHERE, "pays"),  # 40 symbols and a wild on 9x9: its int64 estimate wrapped negative (a hang)
        (_CLUSTER, "reels.base"),  # a 7x7 cluster game on 61-stop strips: about 61**7 stop vectors
    ],
    ids=["free_games_multiplier_1e9", "wheel_prize_1e9", "anywhere_40_symbols_9x9", "cluster_7x7"],
)
def test_refused_by_par_in_one_line_and_simulated(write_game, game, field):
    path = write_game(game)
    rc, out, err, seconds, cpu_seconds, peak_mb = run_limited(["par", path, "--json"])
    assert rc == 2 and out == "" and err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith(f"slotmath: error: {path}: {field}: "), err
    assert peak_mb < PEAK_MB and cpu_seconds < 15, (peak_mb, cpu_seconds)
    rc, out, err, *_ = run_limited(["simulate", path, "--spins", "2000", "--workers", "1", "--seed", "1"])
    assert rc == 0 and "Traceback" not in err, err


def test_numbers_with_an_exponent_are_numbers(write_game):
    # PyYAML (YAML 1.1) read `1e300` and `1.0e3` as strings, so `cost: 1e300`
    # was "not a number"; YAML 1.2 and spreadsheets read them as numbers
    from slotmath.io.gamefile import load_game

    text = yaml.safe_dump(copy.deepcopy(BASE), sort_keys=False)
    text = text.replace("pay: 5\n", "pay: 5.0e0\n", 1)
    assert "pay: 5.0e0" in text
    modes = "modes:\n  big: {cost: 1e300}\n"
    game = load_game(write_game(text))
    assert game.scatter_pays[0].pay == 5
    path = write_game(text + modes)
    ((rc, out, err),) = run_many([("validate", path)])
    assert_one_line_error(rc, out, err, path, "modes.big.cost", "1e+300 is above the bound")
