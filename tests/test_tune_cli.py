"""``slotmath tune`` and ``slotmath sensitivities`` on the command line."""

from __future__ import annotations

import json

import pytest

from slotmath.cli import main
from slotmath.io.gamefile import load_game
from slotmath.rules.par import par

from conftest import TEST_DATA, run_cli

SMALL, MID, CLASSIC, VIDEO = (TEST_DATA / n for n in ("tune_small", "tune_mid", "tune_classic", "tune_video"))


# ------------------------------------------------------------------ command line
def test_cli_tune_writes_a_valid_game(tmp_path):
    out = tmp_path / "tuned" / "game.yaml"
    r = run_cli(
        "tune", MID, "--target-rtp", "94%", "--hit-frequency", "30%:32%", "--shape", "off", "--out", out
    )
    assert r.returncode == 0, r.stderr
    assert "What moved" in r.stdout and "targets met" in r.stdout
    # the summary's values start in one column (a long value, the shape
    # bounds, does not push the short ones to the right): "   targets met  yes"
    head = r.stdout.split("\n\n")[0].splitlines()[1:]
    starts = {len(line) - len(line.split("  ")[-1]) for line in head if "  " in line.strip()}
    assert len(head) >= 8 and len(starts) == 1, head
    tuned = load_game(out)
    result = par(tuned, 1)
    assert abs(float(result.rtp) - 0.94) <= 5e-5 and 0.30 <= result.hit_frequency <= 0.32
    # every other field and the comments are kept
    old, new = MID.joinpath("game.yaml").read_text().splitlines(), out.read_text().splitlines()
    assert len(old) == len(new)
    changed = [i for i, (a, b) in enumerate(zip(old, new, strict=True)) if a != b]
    assert changed and all(old[i].lstrip().startswith("- [") for i in changed)
    assert new[0].startswith("# A 3x3, five-line game")


def test_cli_tune_json_and_exit_status_when_not_met(tmp_path, capsys):
    out = tmp_path / "x.yaml"
    status = main(
        ["tune", str(CLASSIC), "--target-rtp", "0.92", "--json", "--out", str(out), "--max-evaluations", "40"]
    )
    assert status == 1
    data = json.loads(capsys.readouterr().out)
    assert data["targets_met"] is False and data["written"] is None
    assert not out.exists()


@pytest.mark.parametrize(
    "args, message",
    [
        (["--target-rtp", "94"], "--target-rtp: 94 (9400 %) is outside 0 to 2 (200 %)"),
        (["--target-rtp", "0.94", "--hit-frequency", "0.3"], "argument --hit-frequency: expected LO:HI"),
        (["--target-rtp", "0.94", "--hit-frequency", "0.4:0.3"], "LO is above HI"),
        (["--target-rtp", "0.94", "--count", "BAR=2"], "argument --count: expected LO:HI"),
        (["--target-rtp", "0.94", "--count", "BAR=1.5:2"], "expected whole numbers LO:HI"),
        (["--target-rtp", "0.94", "--count", "QQQ=2:3"], "unknown symbol 'QQQ'"),
        (["--target-rtp", "0.94", "--fix", "QQQ"], "unknown symbol 'QQQ'"),
        (["--target-rtp", "0.94", "--reel-set", "free"], "no reel set 'free'"),
        (["--target-rtp", "0.94", "--bet", "7"], "bet level 7 is not offered"),
        (
            ["--target-rtp", "0.94", "--figure", "jackpot_frequency=0:1"],
            "figure 'jackpot_frequency' is not reported",
        ),
    ],
)
def test_bad_input_exits_2_with_one_line(args, message, capsys):
    try:
        status = main(["tune", str(SMALL), *args])
    except SystemExit as exc:  # argparse's own errors
        status = exc.code
    err = capsys.readouterr().err
    assert status == 2
    last = err.strip().splitlines()[-1]
    assert message in last and "Traceback" not in err


def test_missing_game_exits_2():
    r = run_cli("tune", TEST_DATA / "no_such_game", "--target-rtp", "95%")
    assert r.returncode == 2
    assert "no such game file or game folder" in r.stderr and "Traceback" not in r.stderr


def test_cli_sensitivities_json(capsys):
    assert main(["sensitivities", str(SMALL), "--json", "--figures", "rtp"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["game"] == "tune_small" and len(data["rows"]) == 3 * 7


# ------------------------------------------------------------------ --draft
def _draft_csv(strips) -> str:
    from slotmath.io.gamewriter import strips_csv

    return strips_csv(strips)


def test_cli_tune_from_a_draft_writes_the_game(tmp_path, capsys):
    """``--draft``: the run starts from the draft's strips ("before" figures
    and moves are the draft's) and ``--out`` writes the game file."""
    from slotmath.model import Strip

    game = load_game(SMALL)
    draft = list(game.strips())
    syms = list(draft[0].symbols)
    i = next(k for k, s in enumerate(syms) if game.symbols[game.symbol_index[s]].kind == "regular")
    j = next(
        k for k, s in enumerate(syms) if s != syms[i] and game.symbols[game.symbol_index[s]].kind == "regular"
    )
    syms[j] = syms[i]  # the draft: one copy changed on reel 1
    draft[0] = Strip(tuple(syms), draft[0].weights)
    path = tmp_path / "draft.csv"
    path.write_text(_draft_csv(draft))
    target = float(par(game, 1).rtp)  # the game file's RTP: reachable
    out = tmp_path / "tuned" / "game.yaml"
    status = main(
        [
            "tune",
            str(SMALL),
            "--draft",
            str(path),
            "--target-rtp",
            repr(target),
            "--tolerance",
            "0.02",
            "--json",
            "--out",
            str(out),
        ]
    )
    assert status == 0
    data = json.loads(capsys.readouterr().out)
    tuned = load_game(out)
    assert abs(float(par(tuned, 1).rtp) - target) <= 0.02
    assert data["written"] == str(out)
    # the "before" figures are the draft's, the "after" ones the written game's
    from slotmath.tuning.reelspace import with_strips

    row = next(f for f in data["figures"] if f["level"] == 1 and f["figure"] == "rtp")
    assert row["before"] == pytest.approx(float(par(with_strips(game, "base", draft), 1).rtp), abs=1e-15)
    assert row["after"] == pytest.approx(float(par(tuned, 1).rtp), abs=1e-15)


@pytest.mark.parametrize(
    "text, message",
    [
        (None, "not found"),
        ("reel1,reel2\nSEVEN,SEVEN\n", "has 2 reels, the grid has 3"),
        (
            "reel1,reel2,reel3\nQQQ,SEVEN,SEVEN\nSEVEN,SEVEN,SEVEN\nSEVEN,SEVEN,SEVEN\n",
            "unknown symbol 'QQQ'",
        ),
    ],
)
def test_bad_draft_exits_2_naming_the_file(tmp_path, text, message, capsys):
    path = tmp_path / "draft.csv"
    if text is not None:
        path.write_text(text)
    status = main(["tune", str(SMALL), "--draft", str(path), "--target-rtp", "0.9"])
    err = capsys.readouterr().err
    assert status == 2 and "Traceback" not in err
    last = err.strip().splitlines()[-1]
    assert message in last and "draft.csv" in last


def test_cli_tune_reports_the_spread_and_runs_of_the_laid_out_strips(capsys):
    """``layout`` in --json: per reel the spread before and after (the least
    even tuned symbol, not a blank nor held) and no run over the layout's limit."""
    from slotmath.tuning.layout import longest_runs, spread

    status = main(["tune", str(MID), "--target-rtp", "94%", "--shape", "off", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert status == 0
    game = load_game(MID)
    judged = {"SEVEN", "BAR", "CHERRY", "LEMON", "WILD"}  # tune_mid: BLANK a blank, STAR held
    assert {s.name for s in game.symbols} - judged == {"BLANK", "STAR"}
    for row, draft in zip(data["layout"], game.strips(), strict=True):
        tuned = data["strips"][f"reel{row['reel']}"]
        assert row["spread before"] == round(min(spread(draft.symbols, judged).values()), 4)
        after = spread(tuned, judged)
        assert row["spread after"] == round(after[row["least spread"]], 4) == round(min(after.values()), 4)
        assert row["runs over limit"] == ""
        limits = longest_runs(draft.symbols)
        assert all(n <= limits.get(sym, 1) for sym, n in longest_runs(tuned).items())


def test_cli_tune_refuses_a_max_run_below_one():
    r = run_cli("tune", MID, "--target-rtp", "94%", "--max-run", "0")
    assert r.returncode == 2 and r.stderr.strip().splitlines() == [
        "slotmath: error: longest run: 0 is below 1"
    ]


def test_cli_tune_json_is_strict_json(capsys):
    # a game with free games has no exact hit frequency, sd or vi after tuning: those are
    # null in the JSON, never NaN (which no strict JSON reader accepts)
    main(
        [
            "tune",
            str(TEST_DATA / "classic_free_games"),
            "--target-rtp",
            "96%",
            "--json",
            "--max-evaluations",
            "2",
        ]
    )
    text = capsys.readouterr().out

    def refuse(constant):
        raise ValueError(f"{constant} is not JSON")

    rows = json.loads(text, parse_constant=refuse)["figures"]
    exact = {r["figure"]: r["after exact"] for r in rows if r["level"] == rows[0]["level"]}
    assert exact["hit_frequency"] is None and exact["sd"] is None and "/" in exact["rtp"]
