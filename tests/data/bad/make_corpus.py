"""Write the bad-input corpus: one folder per case, each holding a broken
``game.yaml`` (and any file it names), plus ``cases.json`` mapping every case
to the file and the field its one-line error must name.

Run from the repository root: ``python tests/data/bad/make_corpus.py``.
The files are committed; the test (tests/test_bad_input.py) only reads
them.  One case too large to commit (a game file over the size limit) is
written by the test itself.
"""

from __future__ import annotations

import copy
import json
import os
import shutil
from pathlib import Path

import yaml
from feature_cases import build_audit, build_costs, build_features, build_modes, build_tumbles

HERE = Path(__file__).resolve().parent
PIGGY = HERE.parent.parent.parent / "data" / "games" / "piggy_bankin_superlock"
GRAND_SPINN = PIGGY.parent / "grand_spinn_superpot"

BASE = {
    "name": "bad",
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
        {"anywhere": "A", "exactly": 1, "pay_by_level": [1, 2, 4]},
    ],
    "scatters": [{"symbol": "S", "count": 3, "pay": 5}],
}
CSV_OK = "reel1,reel2,reel3\nA,A,A\nB,X,B\nW,B,X\nS,W,W\nX,S,S\n,,X\n"
PASSWD = "root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n"
BOMB = "".join(f"  l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 9) + "]\n" for i in range(1, 10))
BOMB = "  l0: &l0 [A, A, A, A, A, A, A, A, A]\n" + BOMB

CASES = {}  # id -> (expected file, expected field)


def case(
    cid, edit=None, field="", file="game.yaml", files=None, text=None, piggy=False, seed=None, base=None
):
    """Write case ``cid``: BASE (or Piggy's game, or the ``seed`` game's
    folder) changed by ``edit`` (or the raw YAML ``text``), with extra
    ``files`` ({name: str or bytes})."""
    folder = HERE / cid
    folder.mkdir(exist_ok=True)
    seed = PIGGY if piggy else seed
    if seed is not None:
        for f in seed.glob("*.csv"):
            shutil.copy(f, folder / f.name)
        source = (seed / "game.yaml").read_text(encoding="utf-8")
        body = edit(source) if edit else source
    elif text is not None:
        body = text
    else:
        data = copy.deepcopy(BASE if base is None else base)
        result = edit(data)
        body = (
            result if isinstance(result, (str, bytes)) else yaml.safe_dump(data, sort_keys=False, width=200)
        )
    (folder / "game.yaml").write_bytes(body if isinstance(body, bytes) else body.encode("utf-8"))
    for name, content in (files or {}).items():
        p = folder / name
        if isinstance(content, tuple):  # ("symlink", target)
            p.unlink(missing_ok=True)
            os.symlink(content[1], p)
        else:
            p.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    CASES[cid] = {"file": file, "field": field}


def put(*path_and_value):
    *path, value = path_and_value

    def edit(d):
        for k in path[:-1]:
            d = d[k]
        d[path[-1]] = value

    return edit


def weights(r, w):
    syms = BASE["reels"]["base"][r]
    return put("reels", "base", r, {"symbols": syms, "weights": w})


def yaml_with(extra: str):
    """BASE as YAML text with ``extra`` lines appended."""
    return lambda d: yaml.safe_dump(d, sort_keys=False) + extra


def piggy_sub(old, new):
    return lambda text: text.replace(old, new, 1)


def build():
    # --- integers written as decimals: refused by validate, with the field
    case("weight_written_2_0", weights(0, [1, 2.0, 1, 1, 1]), "reels.base[0].weights[1]")
    case("level_written_1_0", put("bet", "levels", [1.0, 2]), "bet.levels[0]")
    case("reels_written_3_0", put("grid", "reels", 3.0), "grid.reels")
    case("rows_written_3_0", put("grid", "rows", 3.0), "grid.rows")
    case("count_written_3_0", put("pays", 0, "count", 3.0), "pays[0].count")
    case("scatter_count_written_3_0", put("scatters", 0, "count", 3.0), "scatters[0].count")
    case("pay_written_10_0", put("pays", 0, "pay", 10.0), "pays[0].pay")
    case("pay_by_level_written_2_0", put("pays", 2, "pay_by_level", [1, 2.0, 4]), "pays[2].pay_by_level[1]")
    case(
        "per_wild_written_2_0",
        put("symbols", 2, "multiplier", {"per_wild": 2.0}),
        "symbols[2].multiplier.per_wild",
    )
    case(
        "by_count_written_2_0",
        put("symbols", 2, "multiplier", {"by_count": [1, 2.0]}),
        "symbols[2].multiplier.by_count[1]",
    )
    case("payline_row_written_1_0", put("paylines", 0, [1, 1.0, 1]), "paylines[0][1]")
    case("bet_lines_written_2_0", put("bet", "lines", 2.0), "bet.lines")
    case("exactly_written_1_0", put("pays", 2, "exactly", 1.0), "pays[2].exactly")
    case("weight_exponent_1e3", weights(0, [1, 1e3, 1, 1, 1]), "reels.base[0].weights[1]")
    case("reels_fraction", put("grid", "reels", 2.5), "grid.reels")
    # --- non-finite and oversized numbers
    case(
        "scatter_pay_nan",
        lambda d: yaml.safe_dump(d, sort_keys=False).replace("pay: 5", "pay: .nan"),
        "scatters[0].pay",
    )
    case(
        "scatter_pay_inf",
        lambda d: yaml.safe_dump(d, sort_keys=False).replace("pay: 5", "pay: .inf"),
        "scatters[0].pay",
    )
    case(
        "scatter_pay_minus_inf",
        lambda d: yaml.safe_dump(d, sort_keys=False).replace("pay: 5", "pay: -.inf"),
        "scatters[0].pay",
    )
    case("scatter_pay_denominator_1000003", put("scatters", 0, "pay", "1/1000003"), "scatters[0].pay")
    case(
        "scatter_pays_common_denominator",
        lambda d: (
            d["scatters"].append({"symbol": "S", "count": 2, "pay": "1/997"})
            or d["scatters"].__setitem__(0, {"symbol": "S", "count": 3, "pay": "1/1009"})
        ),
        "scatters",
    )
    case("scatter_pay_divides_by_zero", put("scatters", 0, "pay", "1/0"), "scatters[0].pay")
    case("scatter_pay_1e30", put("scatters", 0, "pay", 1.0e30), "scatters[0].pay")
    case("scatter_pay_long_digits", put("scatters", 0, "pay", "1" * 400), "scatters[0].pay")
    case("scatter_pay_negative", put("scatters", 0, "pay", -1), "scatters[0].pay")
    case("scatter_pay_decimal_string", put("scatters", 0, "pay", "1.5"), "scatters[0].pay")
    case("scatter_pay_tiny_decimal", put("scatters", 0, "pay", 1e-9), "scatters[0].pay")
    case("line_pay_10_to_29", put("pays", 0, "pay", 10**29), "pays[0].pay")
    case("line_pay_above_1e9", put("pays", 0, "pay", 2 * 10**9), "pays[0].pay")
    case("pay_by_level_huge", put("pays", 2, "pay_by_level", [1, 2, 10**20]), "pays[2].pay_by_level[2]")
    case("weight_2_to_40", weights(0, [1, 2**40, 1, 1, 1]), "reels.base[0].weights[1]")
    case("options_nan", yaml_with("options: {x: .nan}\n"), "options.x")
    case("level_10_to_7", put("bet", "levels", [1, 10**7]), "bet.levels[1]")
    case("level_zero", put("bet", "levels", [0, 1]), "bet.levels[0]")
    case(
        "per_wild_huge",
        put("symbols", 2, "multiplier", {"per_wild": 10**6}),
        "symbols[2].multiplier.per_wild",
    )
    case(
        "top_win_beyond_exact",
        lambda d: (d["pays"][0].update(pay=10**9), d["symbols"][2].update(multiplier={"per_wild": 1000})),
        "pays",
    )
    case(
        "coin_value_nan",
        lambda d: yaml.safe_dump(d, sort_keys=False).replace("levels:", "coin_values: [.nan]\n  levels:"),
        "bet.coin_values[0]",
    )
    case("bool_as_integer", put("grid", "reels", True), "grid.reels")
    case("string_as_integer", put("grid", "rows", "3"), "grid.rows")
    case("negative_rows", put("grid", "rows", -3), "grid.rows")
    case("rows_10", put("grid", "rows", 10), "grid.rows")
    case("reels_zero", put("grid", "reels", 0), "grid.reels")
    case("scatter_count_100", put("scatters", 0, "count", 100), "scatters[0].count")
    case("payline_row_10_to_20", put("paylines", 0, [1, 10**20, 1]), "paylines[0][1]")
    case("negative_weight_csv_style", weights(1, [1, -5, 1, 1, 1]), "reels.base[1].weights[1]")
    # --- hostile rules and names
    for cid, rules in [
        ("rules_nosuch_sub", "nosuch.sub"),
        ("rules_dotdot_x", "../x"),
        ("rules_dotdot_evil", "../../../evil"),
        ("rules_init", "__init__"),
        ("rules_strips_module", "grand_spinn_superpot_strips"),
        ("rules_sampler_module", "grand_spinn_superpot_sampler"),
        ("rules_dotdot_os", "..os"),
        ("rules_os", "os"),
        ("rules_empty", ""),
        ("rules_absolute", "/etc/passwd"),
        ("rules_dotted_games", "games.piggy_bankin_superlock"),
        ("rules_long", "r" * 5000),
    ]:
        case(cid, put("rules", rules), "rules")
    case("rules_integer", put("rules", 5), "rules")
    case("rules_list", put("rules", ["lines"]), "rules")
    for cid, name in [
        ("name_dotdot", ".."),
        ("name_dot", "."),
        ("name_slash", "a/b"),
        ("name_absolute", "/tmp/x"),
        ("name_with_dot", "a.b"),
        ("name_empty", ""),
        ("name_newline", "a\nb"),
        ("name_long", "a" * 500),
        ("name_leading_digit", "1abc"),
        ("name_dash_leading", "-rf"),
        ("name_unicode", "gäme"),
    ]:
        case(cid, put("name", name), "name")
    case("name_integer", put("name", 5), "name")
    # --- YAML loading limits and malformed YAML
    case(
        "alias_bomb_groups",
        text="groups:\n"
        + BOMB
        + yaml.safe_dump({k: v for k, v in BASE.items() if k != "groups"}, sort_keys=False),
    )
    case("alias_bomb_options", yaml_with("options:\n" + BOMB))
    case(
        "alias_bomb_description",
        text="x: &x ["
        + ", ".join(["y"] * 2)
        + "]\n"
        + "a: &a ["
        + ", ".join(["*x"] * 9)
        + "]\n"
        + "b: &b ["
        + ", ".join(["*a"] * 9)
        + "]\n"
        + "c: &c ["
        + ", ".join(["*b"] * 9)
        + "]\n"
        + "d: &d ["
        + ", ".join(["*c"] * 9)
        + "]\n"
        + "e: &e ["
        + ", ".join(["*d"] * 9)
        + "]\n"
        + "f: ["
        + ", ".join(["*e"] * 9)
        + "]\n",
    )
    case("alias_recursive", yaml_with("options: &a {self: *a}\n"))
    case("alias_recursive_list", yaml_with("options: {x: &a [*a]}\n"))
    case("deep_flow_nesting_5000", yaml_with("options: {x: " + "[" * 5000 + "]" * 5000 + "}\n"))
    case("deep_flow_nesting_500", yaml_with("options: {x: " + "[" * 500 + "]" * 500 + "}\n"))
    case("deep_nesting_100", yaml_with("options: {x: " + "[" * 100 + "]" * 100 + "}\n"))
    case(
        "deep_block_nesting",
        yaml_with(
            "options:\n" + "".join(" " * (i + 1) + f"k{i}:\n" for i in range(80)) + " " * 81 + "v: 1\n"
        ),
    )
    case("too_many_values", yaml_with("options: {x: [" + ",".join(["1"] * 300_000) + "]}\n"))
    case("duplicate_top_key", yaml_with("grid: {reels: 5, rows: 3}\n"))
    case(
        "duplicate_nested_key",
        lambda d: yaml.safe_dump(d, sort_keys=False).replace("- name: A\n", "- name: A\n  name: B\n", 1),
    )
    case("malformed_tab_indent", yaml_with("options:\n\tx: 1\n"))
    case("malformed_unclosed_flow", yaml_with("options: {x: [1, 2\n"))
    case("malformed_unclosed_quote", yaml_with('title: "abc\n'))
    case(
        "not_utf8_latin1",
        lambda d: yaml.safe_dump(d, sort_keys=False).encode() + "title: caf\xe9\n".encode("latin-1"),
    )
    case("binary_content", text=bytes(range(256)) * 8)
    case("nul_bytes", lambda d: yaml.safe_dump(d, sort_keys=False).encode() + b"title: a\x00b\n")
    case("two_documents", yaml_with("---\nname: other\n"))
    case("python_object_tag", yaml_with("options: !!python/object/apply:os.system ['true']\n"))
    case("custom_tag", yaml_with("options: !include other.yaml\n"))
    case("empty_file", text="")
    case("only_comment", text="# nothing here\n")
    case("top_level_list", text="- grid\n- bet\n")
    case("top_level_scalar", text="just a string\n")
    case("unhashable_key", yaml_with("options: {[1, 2]: x}\n"))
    case("unknown_top_level_key", put("paylinez", [[1, 1, 1]]), "")
    case("unknown_symbol_key", put("symbols", 0, "colour", "red"), "symbols[0]")
    case("unknown_grid_key", put("grid", "cols", 3), "grid")
    # --- structure: wrong types, unknown symbols, impossible grids
    case("paylines_empty", put("paylines", []), "paylines")
    case("symbols_empty", put("symbols", []), "symbols")
    case("strip_of_integers", put("reels", "base", 0, [1, 2, 3]), "reels.base[0]")
    case("reel_set_null", put("reels", "base", None), "reels.base")
    case("pays_null", put("pays", None), "pays")
    case("grid_as_string", put("grid", "3x3"), "grid")
    case("levels_as_string", put("bet", "levels", "1,2"), "bet.levels")
    case("symbol_name_with_space", put("symbols", 0, "name", "A B"), "symbols[0].name")
    case("description_integer", put("description", 12), "description")
    case("scatters_mapping", put("scatters", {"S": 5}), "scatters")
    case("unknown_symbol_on_strip", put("reels", "base", 0, ["A", "B", "Q", "S", "X"]), "reels.base[0][2]")
    case(
        "unknown_symbol_long_name",
        put("reels", "base", 0, ["A", "B", "Q" * 10000, "S", "X"]),
        "reels.base[0][2]",
    )
    case("strip_shorter_than_rows", put("reels", "base", 0, ["A"]), "reels.base[0]")
    case("window_taller_than_strips", put("grid", "rows", 9), "reels.base[0]")
    case("scatter_count_beyond_window", put("scatters", 0, "count", 10), "scatters[0].count")
    # --- CSV reel files: outside the folder, binary, oversized cells
    case("csv_dotdot", put("reels", "base", "../outside.csv"), "reels.base")
    case("csv_absolute_passwd", put("reels", "base", "/etc/passwd"), "reels.base")
    case(
        "csv_symlink_out",
        put("reels", "base", "strips.csv"),
        "reels.base",
        files={"strips.csv": ("symlink", "../outside.csv")},
    )
    case(
        "csv_symlink_passwd",
        put("reels", "base", "strips.csv"),
        "reels.base",
        files={"strips.csv": ("symlink", "/etc/passwd")},
    )
    case("csv_dev_zero", put("reels", "base", "/dev/zero"), "reels.base")
    case("csv_folder", put("reels", "base", "."), "reels.base")
    case("csv_missing", put("reels", "base", "nothere.csv"), "reels.base")
    case(
        "csv_binary_png",
        put("reels", "base", "strips.csv"),
        "",
        file="strips.csv",
        files={"strips.csv": b"\x89PNG\r\n\x1a\n" + bytes(range(256))},
    )
    case(
        "csv_nul_bytes",
        put("reels", "base", "strips.csv"),
        "",
        file="strips.csv",
        files={"strips.csv": "reel1,reel2,reel3\nA,\x00,A\n"},
    )
    case(
        "csv_passwd_content",
        put("reels", "base", "strips.csv"),
        "header",
        file="strips.csv",
        files={"strips.csv": PASSWD},
    )
    case(
        "csv_huge_cell",
        put("reels", "base", "strips.csv"),
        "",
        file="strips.csv",
        files={"strips.csv": "reel1,reel2,reel3\n" + "A" * 200_000 + ",A,A\n"},
    )
    case(
        "csv_weight_5000_digits",
        put("reels", "base", "strips.csv"),
        "weight1",
        file="strips.csv",
        files={"strips.csv": "reel1,weight1,reel2,reel3\nA," + "1" * 5000 + ",A,A\nB,1,B,B\nS,1,S,S\n"},
    )
    case(
        "csv_weight_written_2_0",
        put("reels", "base", "strips.csv"),
        "weight1",
        file="strips.csv",
        files={"strips.csv": "reel1,weight1,reel2,reel3\nA,2.0,A,A\nB,1,B,B\nS,1,S,S\n"},
    )
    case(
        "csv_weight_2_to_40",
        put("reels", "base", "strips.csv"),
        "weight1",
        file="strips.csv",
        files={"strips.csv": f"reel1,weight1,reel2,reel3\nA,{2**40},A,A\nB,1,B,B\nS,1,S,S\n"},
    )
    case(
        "csv_empty", put("reels", "base", "strips.csv"), "header", file="strips.csv", files={"strips.csv": ""}
    )
    case(
        "csv_only_header",
        put("reels", "base", "strips.csv"),
        "reels.base[0]",
        file="strips.csv",
        files={"strips.csv": "reel1,reel2,reel3\n"},
    )
    case(
        "csv_unknown_symbol",
        put("reels", "base", "strips.csv"),
        "reels.base[2][3]",
        file="strips.csv",
        files={"strips.csv": CSV_OK.replace("S,W,W", "S,W,Q")},
    )
    # --- Piggy: award tables, option files, options
    case(
        "piggy_awards_short_row",
        piggy_sub("awards: awards.csv", "awards: short.csv"),
        "line 3",
        file="short.csv",
        piggy=True,
        files={"short.csv": "table,level,shape,award,weight\ntrigger,1,3x5,100,5\ntrigger,1\n"},
    )
    case(
        "piggy_awards_long_row",
        piggy_sub("awards: awards.csv", "awards: long.csv"),
        "line 2",
        file="long.csv",
        piggy=True,
        files={"long.csv": "table,level,shape,award,weight\ntrigger,1,3x5,100,5,extra\n"},
    )
    case(
        "piggy_awards_binary",
        piggy_sub("awards: awards.csv", "awards: bin.csv"),
        "",
        file="bin.csv",
        piggy=True,
        files={"bin.csv": b"\xff\xfe\x00" + bytes(range(256))},
    )
    case(
        "piggy_awards_passwd",
        piggy_sub("awards: awards.csv", "awards: /etc/passwd"),
        "options.lockit.awards",
        piggy=True,
    )
    case(
        "piggy_awards_dotdot",
        piggy_sub("awards: awards.csv", "awards: ../outside.csv"),
        "options.lockit.awards",
        piggy=True,
    )
    case(
        "piggy_awards_huge_exponent",
        piggy_sub("awards: awards.csv", "awards: exp.csv"),
        "line 2",
        file="exp.csv",
        piggy=True,
        files={"exp.csv": "table,level,shape,award,weight\ntrigger,1,3x5,1e999999999,5\n"},
    )
    case(
        "piggy_notes_passwd",
        piggy_sub("options:\n", "options:\n  notes: /etc/passwd\n"),
        "options.notes",
        piggy=True,
    )
    case(
        "piggy_jackpots_passwd",
        piggy_sub("MINI: 10", "MINI: /etc/passwd"),
        "options.jackpots.MINI",
        piggy=True,
    )
    case(
        "piggy_alias_bomb_options",
        piggy_sub(
            "options:\n",
            "options:\n" + BOMB.replace("  l", "  x_l").replace("*l", "*x_l").replace("&l", "&x_l"),
        ),
        "",
        piggy=True,
    )
    case("piggy_options_nan", piggy_sub("MINI: 10", "MINI: .nan"), "options.jackpots.MINI", piggy=True)
    # --- options the rules do not read, features' unknown keys and values
    case("options_misspelt_free_games", put("options", {"free_gmaes": {}}), "options.free_gmaes")
    case(
        "options_free_games_under_lines",
        put("options", {"free_games": {"reels": "nosuchset", "multiplier": -3}}),
        "options.free_games",
    )
    case(
        "options_free_games_unknown_key",
        put(
            "options",
            {"free_games": {"symbol": "S", "reels": "base", "awards": {3: {"games": 5}}, "colour": 1}},
        ),
        "options.free_games.colour",
    )
    case("options_lockit_unknown_key", put("options", {"lockit": {"colour": 1}}), "options.lockit.colour")
    case("options_other_rules_key", put("options", {"arrow": "A"}), "options.arrow")
    case("options_not_a_mapping", put("options", [1, 2]), "options")
    case(
        "piggy_misspelt_free_games",
        piggy_sub("  free_games:\n", "  free_gmaes:\n"),
        "options.free_gmaes",
        piggy=True,
    )
    case(
        "piggy_other_rules_key",
        piggy_sub("options:\n", "options:\n  arrow: PIGGY\n"),
        "options.arrow",
        piggy=True,
    )
    case(
        "piggy_free_games_multiplier_negative",
        piggy_sub("    multiplier: 2\n", "    multiplier: -3\n"),
        "options.free_games.multiplier",
        piggy=True,
    )
    case(
        "piggy_level_written_1_0",
        piggy_sub("levels: [1, 2, 3, 5, 10]", "levels: [1.0, 2, 3, 5, 10]"),
        "bet.levels[0]",
        piggy=True,
    )
    # integers in the rules' options are written as integers too (section 15.1)
    case(
        "piggy_spins_written_5_0",
        piggy_sub("base_game: {spins: 5,", "base_game: {spins: 5.0,"),
        "options.lockit.sources.base_game.spins",
        piggy=True,
    )
    case(
        "grand_spinn_jackpot_pay_written_40_0",
        piggy_sub("pay_per_level: 40}", "pay_per_level: 40.0}"),
        "options.jackpots[0].pay_per_level",
        seed=GRAND_SPINN,
    )
    case(
        "grand_spinn_players_as_string",
        piggy_sub("players: 300", "players: '300'"),
        "options.network.players",
        seed=GRAND_SPINN,
    )
    case(
        "piggy_reel_csv_outside",
        piggy_sub(
            "base: reels_base.csv", "base: ../../../../data/games/piggy_bankin_superlock/reels_base.csv"
        ),
        "reels.base",
        piggy=True,
    )

    build_heights()


#: a valid 3x3 ways game with variable reel heights (grid.heights)
HEIGHTS = {
    "name": "bad_heights",
    "pays_by": "ways",
    "grid": {"reels": 3, "rows": 3, "heights": {"weights": [[1, 1], [2, 2], [3, 1]]}},
    "bet": {"levels": [1], "lines": 5},
    "symbols": BASE["symbols"],
    "reels": BASE["reels"],
    "pays": [{"symbol": "A", "count": 2, "pay": 1}, {"symbol": "A", "count": 3, "pay": 4}],
    "scatters": [{"symbol": "S", "count": 3, "pay": 5}],
}


def build_heights():
    """Reel heights: each case breaks one thing of :data:`HEIGHTS`."""

    def heights(cid, edit, field):
        case(cid, edit, field, base=HEIGHTS)

    heights("heights_zero", put("grid", "heights", {"weights": [[0, 1], [2, 1]]}), "grid.heights.weights[0]")
    heights(
        "heights_above_rows", put("grid", "heights", {"weights": [[2, 1], [4, 1]]}), "grid.heights.weights[1]"
    )
    heights("heights_weight_zero", put("grid", "heights", {"weights": [[2, 0]]}), "grid.heights.weights[0]")
    heights(
        "heights_weight_negative", put("grid", "heights", {"weights": [[2, -3]]}), "grid.heights.weights[0]"
    )
    heights("heights_twice", put("grid", "heights", {"weights": [[2, 1], [2, 1]]}), "grid.heights.weights[1]")
    heights("heights_reels_count", put("grid", "heights", {"reels": [[[2, 1]]] * 2}), "grid.heights.reels")
    heights("heights_unknown_key", put("grid", "heights", {"weights": [[2, 1]], "mode": "x"}), "grid.heights")
    heights("heights_on_lines", lambda d: d.update(pays_by="lines"), "grid.heights")
    heights(
        "heights_weight_2_63",
        put("grid", "heights", {"weights": [[1, 2**63], [2, 1]]}),
        "grid.heights.weights",
    )
    heights(
        "heights_trigger_reel_beyond_grid",
        put(
            "options",
            {
                "free_games": {
                    "symbol": "S",
                    "reels": "base",
                    "awards": {3: {"games": 2}},
                    "trigger": {"reels": [1, 9]},
                }
            },
        ),
        "options.free_games.trigger.reels[1]",
    )
    heights("heights_with_tumble", put("options", {"tumble": {"multipliers": [1, 2]}}), "options.tumble")
    heights(
        "heights_with_wheel",
        put("options", {"wheel": {"symbol": "S", "trigger": 3, "segments": [{"value": 1, "weight": 1}]}}),
        "options.wheel",
    )


#: a valid 3x3 pays-anywhere game (a plain wild counted toward A and B)
ANYWHERE = {
    "name": "bad_anywhere",
    "pays_by": "anywhere",
    "grid": {"reels": 3, "rows": 3},
    "bet": {"levels": [1], "lines": 10},
    "symbols": [
        {"name": "A"},
        {"name": "B"},
        {"name": "W", "kind": "wild"},
        {"name": "S", "kind": "scatter"},
    ],
    "reels": {"base": [["A", "B", "W", "S", "A"], ["B", "A", "S", "A", "B"], ["A", "A", "B", "W", "S", "B"]]},
    "pays": [
        {"symbol": "A", "count": 4, "pay": 5},
        {"symbol": "A", "count": 6, "pay": 20},
        {"symbol": "B", "count": 5, "pay": 8},
    ],
    "scatters": [{"symbol": "S", "count": 3, "pay": 2}],
}


def build_anywhere() -> None:
    """Pays anywhere by count: each case breaks one thing of :data:`ANYWHERE`."""

    def anywhere(cid, edit, field):
        case(cid, edit, field, base=ANYWHERE)

    anywhere("anywhere_unknown_pays_by", put("pays_by", "everywhere"), "pays_by")
    anywhere(
        "anywhere_unknown_pay_key",
        put("pays", 0, {"symbol": "A", "count": 4, "pay": 5, "cells": 2}),
        "pays[0]",
    )
    anywhere("anywhere_pay_on_scatter", put("pays", 2, {"symbol": "S", "count": 3, "pay": 1}), "pays[2]")
    anywhere("anywhere_pay_on_wild", put("pays", 2, {"symbol": "W", "count": 3, "pay": 1}), "pays[2].symbol")
    anywhere(
        "anywhere_count_over_cells", put("pays", 2, {"symbol": "B", "count": 10, "pay": 1}), "pays[2].count"
    )
    anywhere("anywhere_pattern_pay", put("pays", 2, {"pattern": ["B", "B"], "pay": 1}), "pays[2]")
    anywhere("anywhere_paylines", put("paylines", [[0, 0, 0]]), "paylines")
    anywhere(
        "anywhere_cycle_2_62",
        put(
            "reels", "base", [{"symbols": s, "weights": [2**20] * len(s)} for s in ANYWHERE["reels"]["base"]]
        ),
        "reels.base",
    )
    anywhere(
        "anywhere_tumble_multiplier_2_63",
        put("options", {"tumble": {"multipliers": [1, 2**63]}}),
        "options.tumble.multipliers",
    )
    anywhere(
        "anywhere_tumble_with_round_cap",
        put("options", {"tumble": {"multipliers": [1, 2]}, "round_cap": 100}),
        "options.round_cap",
    )
    anywhere(
        "anywhere_wild_multiplier",
        put("symbols", 2, {"name": "W", "kind": "wild", "multiplier": {"per_wild": 2}}),
        "symbols[2].multiplier",
    )


if __name__ == "__main__":
    for p in HERE.iterdir():
        if p.is_dir():
            shutil.rmtree(p)
    (HERE / "outside.csv").write_text(CSV_OK, encoding="utf-8")
    build()
    build_features(case)
    build_costs(case)
    build_modes(case, BASE)
    case(
        "mode_on_other_rules",
        lambda text: text + "\nmodes:\n  ante: {cost: 2}\n",
        "modes",
        piggy=True,
    )
    build_tumbles(case)
    build_anywhere()
    build_audit(case, lambda cid, edit, field: case(cid, edit, field, piggy=True))
    (HERE / "cases.json").write_text(json.dumps(CASES, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"{len(CASES)} cases in {HERE}")
