"""PAR sheet contents, workbook and files, in-process (no notebook kernel)."""

import json
import math
import re
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import slotmath
from slotmath.cli import main
from slotmath.engine.distribution import MaxWin
from slotmath.io import files
from slotmath.io.files import atomic_path
from slotmath.montecarlo.run import chunks_text
from slotmath.report import figure_sections, sheettable
from slotmath.report import sheet as sheet_module
from slotmath.report.featuresheet import feature_tables
from slotmath.report.notebook import external_references, install
from slotmath.report.sheet import ParSheet, par_sheet
from slotmath.report.sheettable import human
from slotmath.report.workbook import read_workbook
from slotmath.rules.result import fraction_short

TOY = Path(__file__).parent / "data" / "report_toy"


@pytest.fixture(scope="module")
def sheet():
    # 250,000 rounds: 31 blocks of 8,192 for the batch-means standard errors of the events
    return par_sheet(str(TOY), level=1, spins=250_000, seed=7)


@pytest.fixture(scope="module")
def saved(sheet, tmp_path_factory):
    out = tmp_path_factory.mktemp("saved")
    sheet.save(out)
    return out


def test_sections_are_complete(sheet):
    assert list(sheet.sections) == [
        "identification",
        "reels",
        "symbols",
        "paytable",
        "paylines",
        "combinations",
        "summary",
        "volatility",
        "distribution",
        "sessions",
        "features",
        "simulation",
        "notes",
    ]
    for key in sheet.sections:
        html = sheet.section_html(key)
        assert html and not external_references(html)


def test_identification(sheet):
    ident = sheet.sections["identification"].tables[0].frame.set_index("figure")["value"]
    import hashlib

    assert ident["game file SHA-256"] == hashlib.sha256((TOY / "game.yaml").read_bytes()).hexdigest()
    assert ident["slotmath version"] == slotmath.__version__
    assert len(ident["git commit"].split()[0]) == 40
    params = sheet.sections["identification"].tables[1].frame.set_index("figure")["value"]
    assert params["parameter Monte Carlo rounds"] == 250_000
    assert params["parameter Monte Carlo seed"] == 7
    assert ident["files read"] == "game.yaml"


def test_identification_hashes_the_read_set(saved, sheet):
    from report_checks import ABSOLUTE_PATH, identification_problems, visible_text

    assert identification_problems(saved, TOY / "game.yaml") == []
    assert not ABSOLUTE_PATH.search(visible_text(sheet.section_html("identification")))
    assert ABSOLUTE_PATH.search("game file /home/me/games/toy/game.yaml")  # the check can fail


def test_combination_total_is_the_rtp(sheet):
    frame = sheet.sections["combinations"].tables[0].frame
    total = frame.iloc[-1]
    # toy game: lines and scatters are the only channels, so the total row is the RTP
    assert total["RTP exact"] == "7553/8192" and Fraction(total["RTP exact"]) == sheet.par.rtp
    assert total["hits"] == sheet.par.combinations["hits"].sum()
    # hits / cycle summed over lines is an expected count per spin (it can pass 1 on
    # a game of many lines), so no column calls it a probability
    assert not any("probability" in c or c == "1 in N" for c in frame.columns)
    assert total["hits per spin [hits / cycle]"] == pytest.approx(total["hits"] / sheet.par.cycle)


def test_symbol_counts(sheet):
    counts = sheet.sections["symbols"].tables[1].frame.set_index("symbol")
    # reel 1 of the toy game: 16 stops, 6 BLANK, 1 SEVEN
    assert counts.loc["total", "reel 1"] == 16
    assert counts.loc["BLANK", "reel 1"] == 6 and counts.loc["SEVEN", "reel 1"] == 1


def test_odds_and_levels(sheet):
    odds = sheet.odds_frame().set_index("event")
    top = [e for e in odds.index if e.startswith("top award")]
    # 3 SEVEN with three wilds' x8: 5 hits in 4096 -> 1 in 819.2
    assert top == ["top award: 3 x SEVEN (x8)"]
    assert odds.loc[top[0], "1 in N spins"] == pytest.approx(4096 / 5)
    levels = sheet.levels_frame()
    assert list(levels["bet level"]) == [1, 2]
    assert (levels["RTP exact"] == "7553/8192").all()  # linear pay table


def test_sessions_section(sheet):
    s100 = sheet.sessions[0]
    table = sheet.sections["sessions"].tables[0].frame.set_index("figure")
    assert table.loc["P(ahead: net result > 0)", "100 spins"] == s100.p_ahead
    # a probability below its own error bound is not shown as a number
    rows = {
        "P(ahead: net result > 0)": lambda s: (s.p_ahead, s.cdf_error_bound),
        "P(exactly even)": lambda s: (s.p_even, s.error_bound),
        "P(lose half the stake or more)": lambda s: (s.p_at_most(-s.spins / 2), s.cdf_error_bound),
    }
    unresolved = 0
    for s in sheet.sessions:
        for name, figure in rows.items():
            p, bound = figure(s)
            cell = table.loc[name, f"{s.spins:,} spins"]
            if p < bound:
                unresolved += 1
                assert cell == "< " + sheettable.format_value(bound, "pctp"), (name, s.spins, p, bound)
            else:
                assert cell == p
        assert s.summary()["cdf_error_bound"] == s.cdf_error_bound
    assert unresolved  # the long sessions hold some (P(lose half) after 10,000 spins)
    assert table.loc["expected net result [x total bet]", "1,000 spins"] == pytest.approx(
        1000 * (float(sheet.par.rtp) - 1)
    )


def test_text_shows_round_off_component_as_zero(sheet):
    # a round cap that never binds: -E[(win - cap)+] is -5e-13 from float round-off
    par = replace(sheet.par, components={**sheet.par.components, "round_cap": -4.989e-13})
    text = par.text()
    assert "-0.000000%" not in text and re.search(r"round_cap +0\.000000%", text)


def test_exceedance_ladder_lists_each_threshold_once():
    # a max win of 50 is also a band edge: one row, not two
    assert figure_sections.exceedance_ladder(50.0, 50.0) == [0.01, 1, 2, 5, 10, 20, 50]
    assert figure_sections.exceedance_ladder(60.0, 60.0)[-2:] == [50, 60.0]


def test_simulation_rows(sheet):
    sec = sheet.sections["simulation"]
    assert "250,000 rounds, seed 7" in sec.text
    # the chunk as run (the chunk size is 1,000,000 rounds)
    assert "1 chunk of 250,000 rounds" in sec.text, sec.text
    assert chunks_text(2_500_000, 3, 1_000_000) == "3 chunks of up to 1,000,000 rounds"
    assert chunks_text(2_000_000, 2, 1_000_000) == "2 chunks of 1,000,000 rounds"
    frame = sec.tables[0].frame.set_index("figure")
    assert frame.loc["RTP", "exact"] == pytest.approx(float(sheet.par.rtp))
    assert list(frame.index) == ["RTP", "hit frequency", "SD"]
    # z is a plain signed number in every row, never formatted as its row's percentage
    table = sec.tables[0]
    shown = [table.text_value("z", i) for i in range(len(table.frame))]
    assert all(re.fullmatch(r"[+-]\d+\.\d\d", z) for z in shown), shown
    by_title = {t.title: t.frame for t in sec.tables}
    # every component of the RTP against the simulated split of the round wins
    parts = by_title["RTP by component: simulated against exact"].set_index("component")
    assert list(parts.index) == [human(k) for k in sheet.par.components]
    for k, v in sheet.par.components.items():
        assert parts.loc[human(k), "exact"] == pytest.approx(float(v), rel=1e-12)
    events = by_title["Pays and features: simulated against exact frequency"].set_index("event")
    # every pay of the combination table is checked; 3 x SEVEN at x8 has 5 hits in 4096
    assert events.loc["line: 3 x SEVEN (x8)", "exact 1 in N"] == pytest.approx(4096 / 5)
    for t in sec.tables:
        if "z" not in t.frame.columns:
            continue
        z = pd.to_numeric(t.frame["z"], errors="coerce").dropna()
        assert len(z) and (z.abs() < 4).all()


def test_json_and_text_equal_the_par_command(saved, capsys):
    assert main(["par", str(TOY), "--json"]) == 0
    # the report writes floats to 15 significant digits (reproducible files)
    command = sheet_module.fixed_floats(json.loads(capsys.readouterr().out))
    saved_json = json.loads((saved / "par.json").read_text())
    # but for the payback ranges: exact quantiles, not the command's normal approximation
    exact = saved_json.pop("confidence")
    command.pop("confidence")
    assert saved_json == command
    assert min(r["low"] for r in exact) >= 0
    assert main(["par", str(TOY)]) == 0
    assert (saved / "par.txt").read_text() == capsys.readouterr().out


def close(a, b) -> bool:
    """Equal to the 16 significant digits a workbook stores (Excel itself keeps 15)."""
    return a == pytest.approx(b, rel=1e-15, abs=0)


def test_workbook_matches_json(saved):
    check_workbook_matches_json(saved / "par.xlsx", saved / "par.json")


def check_workbook_matches_json(xlsx: Path, json_path: Path) -> None:
    """Every figure the workbook shares with par.json is equal."""
    data = json.loads(json_path.read_text())
    book = read_workbook(xlsx)
    assert {
        "Identification",
        "Reel strips",
        "Symbols",
        "Pay table",
        "Combinations",
        "Summary",
        "Volatility",
        "Win distribution",
        "Sessions",
        "Features",
        "Monte Carlo",
        "Notes",
    } <= set(book)
    head = book["Summary"]["Headline figures"].set_index("figure")["value"]
    assert close(head["RTP [x total bet]"], data["rtp"])
    # exact RTP as "p/q" (abbreviated when long, the whole fraction in the
    # JSON); a float computation says so instead of JSON's null
    shown = head["RTP exact"]
    if data["rtp_exact"] is None:
        assert shown.startswith("not a fraction")
    else:
        assert shown == fraction_short(Fraction(data["rtp_exact"]), lead="")
        assert not shown.startswith("exact")  # the label says exact: once
    assert close(head["hit frequency: paying spins [probability]"], data["hit_frequency"])
    assert close(head["SD [x total bet]"], data["sd"])
    for k in ("90", "95", "99"):
        assert close(head[f"VI {k} % [x total bet]"], data["volatility_index"][k])
    # the top of the distribution shown, and the true maximum win beside it
    assert close(head["largest win shown in the distribution [x total bet]"], data["distribution_max_win"])
    top = head["max win (largest with non-zero probability) [x total bet]"]
    assert top == "none: no largest win" if data["max_win"] is None else close(top, data["max_win"])
    # a cycle beyond 15 digits is written as text (Excel keeps 15 significant digits)
    assert int(head["cycle"]) == data["cycle"]
    channels = book["Summary"]["RTP by component"].set_index("component")
    assert list(channels.index[:-1]) == [human(k) for k in data["components"]]
    for name, value in data["components"].items():
        assert close(channels.loc[human(name), "RTP [x total bet]"], value)
    comb = book["Combinations"]["Hits over the full cycle for every pay"].iloc[:-1]
    comb = comb[comb["multiplier"] != "all"]  # the rows of the combination table
    comb = comb.assign(
        combination=[c.strip().split(", wild x")[0] for c in comb["combination"]],
        # a ways row says its ways per hit (its JSON multiplier is 1: the ways are in the win)
        multiplier=[int(m[1:]) if m.startswith("x") else 1 for m in comb["multiplier"]],
    )
    expected = pd.DataFrame(data["combinations"])
    key = ["combination", "multiplier"]
    both = comb.merge(expected, on=key, how="outer", indicator=True, suffixes=("", "_json"))
    assert (both["_merge"] == "both").all()  # the same pays, grouped by entry
    # hit counts beyond 2**53 are written as text (exact), as the cycle is
    assert [int(h) for h in both["hits"]] == [int(h) for h in both["hits_json"]]
    assert all(close(a, b) for a, b in zip(both["RTP contribution"], both["rtp"], strict=True))
    assert all(close(a, b) for a, b in zip(both["spins per hit [cycle / hits]"], both["one_in"], strict=True))
    conf = book["Volatility"]["Payback range after N spins"]
    want = pd.DataFrame(data["confidence"])
    for c in (0.90, 0.95, 0.99):
        w = want[want["confidence"] == c]
        assert list(conf["spins N"]) == list(w["spins"])
        assert all(close(a, b) for a, b in zip(conf[f"{c:.0%} low"], w["low"], strict=True))
        assert all(close(a, b) for a, b in zip(conf[f"{c:.0%} high"], w["high"], strict=True))


def test_workbook_stores_numbers_with_formats(saved):
    from openpyxl import load_workbook

    ws = load_workbook(saved / "par.xlsx")["Combinations"]
    tbl = next(iter(ws.tables.values()))
    header = [c.value for c in ws[tbl.ref][0]]
    first = ws[tbl.ref][1]
    cells = dict(zip(header, first, strict=True))
    assert isinstance(cells["hits"].value, int) and cells["hits"].number_format == "#,##0"
    assert isinstance(cells["RTP contribution"].value, float)
    assert cells["RTP contribution"].number_format == "0.000000%"
    assert cells["spins per hit [cycle / hits]"].number_format == "[<10000000]#,##0.00;0.00E+00"


def test_generic_feature_sheets(sheet):
    game = sheet.game  # 3 reels x 3 rows
    features = {
        "trigger_one_in": 123.5,
        "jackpots": {
            "mini": {"probability": 0.01, "one_in": 100.0, "rtp": 0.02},
            "super": {"probability": 0.001, "one_in": 1000.0, "rtp": 0.03},
        },
        "lock_it": {
            "spins": 5,
            "coverage": [[0.1, 0.2, 0.3], [0.4, 0.5, 0.6], [0.7, 0.8, 0.9]],
            "nested": {"mean": 1.5, "sizes": [1, 2, 3]},
        },
        "wheel": [
            {"prize": 25, "weight": 10, "probability": 0.5},
            {"prize": 50, "weight": 10, "probability": 0.5},
        ],
    }
    features["pays_again"] = {"one": 0.7, "two": 0.2}  # numbers a table below shows
    tables = {
        "nudge_pays": pd.DataFrame({"pays": [1, 2, 3], "probability": [0.7, 0.2, 0.1]}),
        "heat": pd.DataFrame(np.arange(9.0).reshape(3, 3)),
        # a table of the window's shape (3 x 3) that is not a per-cell grid
        "games_by_count": pd.DataFrame(
            {"count": [3, 4, 5], "probability": [0.01, 0.002, 0.0001], "games": [8, 12, 20]}
        ),
    }
    tables["heat"].attrs["heatmap"] = True  # the producer marks a per-cell grid
    # without tables from the rules module every feature figure is on the page
    out = feature_tables(features, {}, game)
    titles = [t.title for t in out]
    assert titles[0] == "Feature figures"
    assert {"Jackpots", "Lock it: coverage", "Lock it", "Wheel"} <= set(titles)
    assert all(t.html for t in out)
    jack = next(t for t in out if t.title == "Jackpots").frame
    assert list(jack["entry"]) == ["mini", "super"] and list(jack["1 in N"]) == [100.0, 1000.0]
    lock = next(t for t in out if t.title == "Lock it").frame.set_index("figure")["value"]
    assert lock["spins"] == 5 and lock["nested / mean"] == 1.5
    # a list of numbers: a row per entry, numbers kept as numbers
    assert [lock[f"nested / sizes {i}"] for i in (1, 2, 3)] == [1, 2, 3]
    captions = {c for t in out for c, _ in t.figures}
    assert "Lock it: coverage" in captions  # grid -> heat map
    assert "Wheel: probability by prize." in captions  # records -> bar chart
    # with tables, those are the page's tabular view; records stay in the workbook
    out = feature_tables(features, tables, game)
    shown = {t.title for t in out if t.html}
    assert {"Feature figures", "Lock it", "Lock it: coverage", "Nudge pays", "Heat"} <= shown
    assert {t.title for t in out if not t.html} == {"Jackpots", "Wheel", "Pays again"}
    jack_rows = next(t for t in out if t.title == "Jackpots")
    assert jack_rows.format_key("1 in N", 0) == "odds"  # formats from the names
    nudge = next(t for t in out if t.title == "Nudge pays")
    assert nudge.format_key("probability", 0) == "prob"
    captions = {c for t in out for c, _ in t.figures}
    assert {"Lock it: coverage", "Heat", "Nudge pays: probability by pays."} <= captions
    assert "Games by count" not in captions  # the shape alone draws no heat map
    for t in out:
        for _, build in t.figures:  # every figure draws
            assert build().axes
    # the summary lists 1-in-N figures found in the features
    rich = replace(sheet.par, features=features, tables=tables)
    sheet2 = ParSheet(sheet.game, rich, sheet.levels, sheet.sessions, None, sheet.parameters, sheet.generated)
    events = set(sheet2.odds_frame()["event"])
    assert {"trigger", "jackpots: mini", "jackpots: super"} <= events
    assert "No simulation" in sheet2.section_html("simulation")


def test_install_swaps_and_restores(tmp_path, monkeypatch):
    target = tmp_path / "game"
    target.mkdir()
    (target / "par.json").write_text("old")
    work = tmp_path / ".game.partial"
    work.mkdir()
    (work / "par.json").write_text("new")
    real = files.os.replace
    calls = []

    def failing(src, dst):
        calls.append((src, dst))
        if len(calls) == 2:
            raise OSError("disk full")
        return real(src, dst)

    # the two-rename fallback (systems without an atomic exchange)
    monkeypatch.setattr(files, "_exchange", lambda a, b: False)
    monkeypatch.setattr(files.os, "replace", failing)
    with pytest.raises(OSError):
        install(work, target)
    monkeypatch.setattr(files.os, "replace", real)
    assert (target / "par.json").read_text() == "old"  # previous report restored
    install(work, target)
    assert (target / "par.json").read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game"]


def test_bad_input_exit_2(tmp_path, capsys):
    assert main(["report", "no_such_game", "--out", str(tmp_path), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "report no_such_game: load game failed" in err and "Traceback" not in err
    assert main(["report", str(TOY), "--bet", "7", "--out", str(tmp_path), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "load game failed" in err and "bet level 7 is not offered" in err
    assert main(["report", "--out", str(tmp_path)]) == 2
    assert "--all" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_value_formats():
    f = sheettable.format_value
    assert f(0.921997, "pct6") == "92.199700%"
    assert f(4096, "int") == "4,096"
    assert f(math.inf, "odds") == "never"
    assert f(Fraction(1, 2), "x") == "0.5"
    assert f(2.5e-8, "auto") == "2.5e-08" and f("EUR", "auto") == "EUR"
    assert f(5e-6, "pctp") == "5.000e-06" and f(0.3, "pctp") == "30.0000%" and f(0.0, "pctp") == "0.0000%"
    # round-off below the last shown digit (a round cap that never binds,
    # -E[(win - cap)+] = -5e-13) is a zero, not "-0.000000%"
    assert f(-4.989e-13, "pct6") == "0.000000%" and f(-0.0, "pct") == "0.0000%"
    assert f(-1e-13, "x") == "0" and f(-1e-13, "z") == "0.00"
    assert f(-0.004, "pct6") == "-0.400000%" and f(-1e-13, "prob") == "-1.000000e-13"
    assert sheettable.excel_value(2**60) == str(2**60)  # kept exact as text
    assert sheettable.excel_value(np.int64(5)) == 5
    assert sheettable.exact_str(Fraction(10)) == "10" and sheettable.exact_str(0.5) == ""


def test_atomic_path_keeps_the_old_file(tmp_path):
    target = tmp_path / "par.json"
    target.write_text("old")
    with pytest.raises(RuntimeError):
        with atomic_path(target) as tmp:
            tmp.write_text("half written")
            raise RuntimeError("disk full")
    assert target.read_text() == "old" and list(tmp_path.iterdir()) == [target]
    with atomic_path(target) as tmp:
        tmp.write_text("new")
    assert target.read_text() == "new" and list(tmp_path.iterdir()) == [target]


def test_figures_at_every_bet_level():
    # fruit_classic has a non-linear coin pay table: level 3 pays more per coin
    # on some combinations, so its RTP differs; every level must equal its own
    # exact analysis, shared or not
    from slotmath.io.gamefile import load_game
    from slotmath.report.sheet import level_figures
    from slotmath.rules.par import par

    game = load_game("fruit_classic")
    figs = level_figures(game, par(game, game.levels[0]))
    assert list(figs) == game.levels
    rtps = set()
    for lv, f in figs.items():
        exact = par(game, lv)
        assert f["rtp"] == exact.rtp and f["hit_frequency"] == exact.distribution.hit_frequency
        assert f["sd"] == pytest.approx(exact.sd, rel=1e-12)
        rtps.add(f["rtp"])
    assert len(rtps) > 1


def test_channel_groups_for_the_chart():
    from slotmath.report.sheet import channel_groups

    few = {"lines": 0.5, "scatters": 0.1}
    assert channel_groups(few)[0] == few
    many = {"base lines": Fraction(1, 2), **{f"lock-it: {k}x1": 0.01 for k in range(1, 13)}, "wheel": 0.02}
    shown, caption = channel_groups(many)
    assert list(shown) == ["base lines", "lock-it", "wheel"]
    assert shown["lock-it"] == pytest.approx(0.12) and "summed per group" in caption


def test_version_and_variant(tmp_path, capsys):
    # optional game-file keys shown in the identification and the page title
    text = (TOY / "game.yaml").read_text()
    game_dir = tmp_path / "toy"
    game_dir.mkdir()
    (game_dir / "game.yaml").write_text(f'version: "2.1"\nvariant: "92.2 %"\n{text}')
    for extra in TOY.iterdir():
        if extra.name != "game.yaml":
            (game_dir / extra.name).write_bytes(extra.read_bytes())
    sheet = par_sheet(str(game_dir), level=1, spins=0)
    ident = sheet.sections["identification"].tables[0].frame.set_index("figure")["value"]
    assert ident["version"] == "2.1" and ident["RTP variant"] == "92.2 %"
    assert "version 2.1 RTP variant 92.2 %" in sheet.title_html()
    # a version must be text: one line naming file, field and problem, exit 2
    (game_dir / "game.yaml").write_text(f"version: 2.1\n{text}")
    assert main(["par", str(game_dir)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "version" in err and "game.yaml" in err


def test_payback_ranges_are_exact_quantiles(sheet):
    # every bound is a quantile of the exact session distribution, in [0, max win]
    table = sheet.payback_table()
    for s in sheet.sessions:
        for c in (0.90, 0.95, 0.99):
            row = table[(table["spins"] == s.spins) & (table["confidence"] == c)].iloc[0]
            assert (row["low"], row["high"]) == s.payback_interval(c)
            assert 0 <= row["low"] <= row["high"] <= float(sheet.par.distribution.max_win)


def test_combination_rows_grouped_by_entry(sheet):
    frame = sheet.sections["combinations"].tables[0].frame.iloc[:-1]
    # each entry's rows are adjacent; an entry at several multipliers starts with 'all'
    names = list(frame["combination"])
    assert all(
        names.index(n) + names.count(n) - 1 == len(names) - 1 - names[::-1].index(n) for n in set(names)
    )
    for name, group in frame.groupby("combination", sort=False):
        if len(group) > 1:
            assert group["multiplier"].iloc[0] == "all", name
            assert group["hits"].iloc[0] == group["hits"].iloc[1:].sum(), name


def test_odds_text():
    assert sheet_module.odds_text(1.550139296294649e17) == "1 in 1.55e17"
    assert sheet_module.odds_text(81529.37160212605) == "1 in 81,529.37"
    assert sheettable.format_value(1.550139296294649e17, "odds") == "1.55e17"
    assert sheet_module.volatility_class(4.9) == "low"
    assert sheet_module.volatility_class(11.55) == "high"


@pytest.mark.parametrize(
    ("top", "cell_100", "limit"),
    [
        (
            MaxWin(None, None, False, "free games retrigger"),
            "none: unbounded (no largest win)",
            "no upper limit",
        ),
        (MaxWin(Fraction(5000), None, False, "a bound"), "at most 499,900 (a bound)", "at most 5,000"),
        (MaxWin(Fraction(3000), Fraction(1, 10**20), True, "exact"), 100 * 2999.0, "max win, 3,000"),
    ],
)
def test_sessions_use_the_true_max_win(sheet, top, cell_100, limit):
    # the largest possible net result of 100 spins is 100 x (max win - 1) of
    # the game's true max win, not of the top of the float distribution
    rich = replace(sheet.par, max_win=top)
    sheet2 = ParSheet(sheet.game, rich, sheet.levels, sheet.sessions, None, sheet.parameters, sheet.generated)
    table = figure_sections.sessions(sheet2).tables[0].frame.set_index("figure")
    assert table.loc["largest possible net result [x total bet]", "100 spins"] == cell_100
    shown = table.loc["largest net result resolved in the distribution [x total bet]", "100 spins"]
    assert shown == 100 * (float(sheet.par.distribution.max_win) - 1)
    assert limit in figure_sections.volatility(sheet2).tables[1].note


def test_a_resolved_max_win_is_a_lower_bound_of_the_net_result():
    top = MaxWin(Fraction(1742), 1e-15, False, "largest resolved win (a lower bound)")
    assert figure_sections.largest_net(top, 10, lower_bound=True) == "at least 17,410 (a lower bound)"


def test_probability_check_finds_a_probability_above_one(saved, tmp_path):
    from openpyxl import load_workbook
    from report_checks import probability_problems

    assert probability_problems(saved / "par.xlsx") == []
    wb = load_workbook(saved / "par.xlsx")
    ws = wb["Sessions"]
    row = next(r for r in ws.iter_rows() if r[0].value == "P(ahead: net result > 0)")
    row[1].value = 1.00000000000665  # what float round-off once gave
    wb.save(tmp_path / "bad.xlsx")
    assert probability_problems(tmp_path / "bad.xlsx") == [
        "Sessions: Net result of a session: P(ahead: net result > 0): "
        "probability 1.00000000000665 outside [0, 1]"
    ]


def test_a_long_exact_fraction_among_the_feature_figures_is_abbreviated(sheet):
    # a progressive jackpot's figures carry their exact hit probability and
    # RTP as "p/q"; on a 243-ways game the RTP's has over 1,000 digits, and
    # the sheet printed it whole: its table ran past the page (a scroll bar on
    # screen, cut off in print).  Abbreviated as the summary's RTP is; a
    # short one ("1/64") stays as it is.  10**80 / (3**170 + 2): 81 + 82 digits.
    long = Fraction(10**80, 3**170 + 2)
    text = f"{long.numerator}/{long.denominator}"
    assert len(text) == 81 + 1 + 82
    features = {"progressive": {"GRAND": {"rtp_exact": text, "hit_probability_exact": "1/64"}}}
    out = feature_tables(features, {}, sheet.game)
    rows = next(t for t in out if t.title == "Progressive").frame.set_index("figure")["value"]
    assert rows["GRAND / hit probability exact"] == "1/64"
    shown = rows["GRAND / RTP exact"]
    assert shown == fraction_short(long) and shown.startswith("exact: 163-digit fraction, ")


def test_tumble_combination_table_says_it_is_the_first_drop():
    # tests/data/tumble_anywhere: the combination table counts the window as it
    # stops; the tumbles' later drops (at x2, x3) are in the 'anywhere' component
    # only, so the table's total row is below that component and its note must
    # say so (it said "a row's hits are the spins whose count ...", as if whole)
    game = Path(__file__).parent / "data" / "tumble_anywhere"
    tumble_sheet = par_sheet(str(game), level=1, spins=0)
    table = tumble_sheet.sections["combinations"].tables[0]
    pays = table.frame[table.frame["kind"] == "anywhere"]
    first_drop = sum(Fraction(x) for x in pays["RTP exact"])
    component = tumble_sheet.par.components["anywhere"]
    assert first_drop < component  # the later drops pay too
    assert "first drop only" in table.note.lower() and "anywhere component" in table.note, table.note


def test_reader_path_outside_the_checkout(tmp_path):
    """A game outside the checkout is shown as a reader may see it: its folder
    by the folder's name alone (``/tmp/.../mygame`` -> ``mygame``, not
    ``<parent>/mygame``: the parent is a folder of the author's machine), its
    file by folder and name; inside the checkout, relative to it."""
    from slotmath.report.sheetparts import ROOT, reader_path

    folder = tmp_path / "mygame"
    folder.mkdir()
    (folder / "game.yaml").write_text("name: mygame\n")
    assert reader_path(folder, folder=True) == "mygame"
    assert reader_path(str(folder), folder=True) == "mygame"
    assert reader_path(folder / "game.yaml") == "mygame/game.yaml"
    # the caller says it is a folder, not the disk: a report folder that does
    # not exist yet (a first build) reads as it will once built (a rebuild)
    assert reader_path(tmp_path / "not-built-yet", folder=True) == "not-built-yet"
    assert reader_path(ROOT / "data" / "games" / "video20") == "data/games/video20"


def test_identification_says_how_the_game_pays_and_symbols_show_drawn_tables():
    # the rules row names the generic rules ("lines") on every pay rule: the
    # row beside it says how the game pays; a wild whose multiplier is drawn
    # shows its table (weights reduced by their divisor), not "none"
    ways = par_sheet("ways4096", spins=0)
    ident = ways.sections["identification"].tables[0].frame.set_index("figure")["value"]
    assert (ident["rules"], ident["pays by"]) == ("lines", "ways pays")
    drawn = par_sheet(str(TOY.parent / "tune_wildmult"), spins=0)
    symbols = drawn.sections["symbols"].tables[0].frame.set_index("symbol")["multiplier"]
    # the file's table [[2, 30], [3, 10]], over their divisor 10: weights 3 and 1
    assert symbols["M"] == "drawn x2 (3) / x3 (1), multiplied"
