"""Writing tuned strips into a game file: only the strips change, atomically, with a backup."""

from __future__ import annotations

import shutil

import pytest

from slotmath.io.gamefile import GameFileError, load_game
from slotmath.io.gamewriter import diff, write_game
from slotmath.model import Strip
from slotmath.rules import registry
from slotmath.rules.contract import LineRules

from conftest import TEST_DATA


class WriterToyRules(LineRules):
    """Line rules reading settings of their own under ``options`` (a note,
    file names), which the writer must carry over unchanged."""

    options = own_options = frozenset({"note", "table", "again", "quoted", "description"})


@pytest.fixture(autouse=True)
def writer_toy_rules():
    registry.register("writer_toy_rules", WriterToyRules)
    yield
    registry.unregister("writer_toy_rules")


GAME = """\
# a comment at the top
name: writer_toy
rules: writer_toy_rules
grid: {reels: 3, rows: 1}
bet: {levels: [1, 2]}   # trailing comment
symbols: [{name: A}, {name: B}, {name: C}]
paylines: [[0, 0, 0]]
pays:
  - {symbol: A, count: 3, pay: 10}
reels:
  base:
    - [A, B, C]        # reel 1
    # between reels
    - - A
      - B
      - C
    - symbols: [A, B, C]
      weights:
        - 1
        - 2
        - 3
  free: free.csv
options: {note: kept}
"""

FREE_CSV = "reel1,reel2,reel3\nA,A,B\nB,C,C\n"

NEW = (Strip(("A", "A", "B", "C")), Strip(("C", "B", "A")), Strip(("A", "B", "C"), (4, 2, 1)))


@pytest.fixture
def game(tmp_path):
    (tmp_path / "free.csv").write_text(FREE_CSV)
    path = tmp_path / "game.yaml"
    path.write_text(GAME)
    return load_game(path)


def test_only_the_strips_change_and_a_backup_is_kept(game, tmp_path):
    written = write_game(game, {"base": NEW})
    assert written == tmp_path / "game.yaml"
    text = written.read_text()
    assert "# a comment at the top" in text and "# trailing comment" in text
    assert "# reel 1" in text and "# between reels" in text and "options: {note: kept}" in text
    assert "- [A, A, B, C]        # reel 1" in text  # flow list stays flow
    assert "    - - C\n      - B\n      - A\n" in text  # block list stays block
    assert "weights:\n        - 4\n        - 2\n        - 1" in text
    assert load_game(written).strips("base") == NEW
    backups = list(tmp_path.glob("game.yaml.*.bak"))
    assert len(backups) == 1 and backups[0].read_text() == GAME
    assert not list(tmp_path.glob(".game.*"))  # no temporary files left


def test_a_csv_reel_set_is_rewritten_in_place_or_inlined_elsewhere(game, tmp_path):
    free = (Strip(("C", "C", "A")), Strip(("A", "B")), Strip(("B",)))
    write_game(game, {"free": free})
    assert (tmp_path / "game.yaml").read_text() == GAME  # the YAML is untouched
    assert load_game(tmp_path / "game.yaml").strips("free") == free
    assert [p.read_text() for p in tmp_path.glob("free.csv.*.bak")] == [FREE_CSV]
    # written elsewhere: the tuned set inline, one strip per line (as an
    # analyst reads and diffs it), the other CSV file copied beside it
    other = tmp_path / "copy" / "game.yaml"
    game2 = load_game(tmp_path / "game.yaml")
    write_game(game2, {"free": NEW}, other)
    written = other.read_text()
    assert (
        "  free:\n    - [A, A, B, C]\n    - [C, B, A]\n    - {symbols: [A, B, C], weights: [4, 2, 1]}\n"
        in written
    )
    assert max(map(len, written.splitlines())) < 60
    assert load_game(other).strips("free") == NEW
    write_game(game2, {"base": NEW}, other)
    assert "free: free.csv" in other.read_text()
    assert (other.parent / "free.csv").read_text() == (tmp_path / "free.csv").read_text()
    assert load_game(other).strips("free") == free


def test_reel_sets_naming_one_csv_file_are_written_elsewhere(tmp_path):
    """data/games/modes_free_spins names reels.csv for both 'base' and 'free':
    written elsewhere with another set tuned, the file goes along once and
    both sets read it back."""
    game = load_game("modes_free_spins")
    ante = tuple(Strip(tuple(reversed(s.symbols))) for s in game.strips("ante"))
    written = write_game(game, {"ante": ante}, tmp_path / "copy" / "game.yaml")
    again = load_game(written)
    assert again.strips("ante") == ante
    assert again.strips("base") == game.strips("base") and again.strips("free") == game.strips("free")
    assert sorted(p.name for p in written.parent.iterdir()) == ["game.yaml", "reels.csv"]


def test_an_invalid_result_is_not_written(game, tmp_path):
    bad = (Strip(("A", "ZZZ")),) + NEW[1:]
    with pytest.raises(GameFileError) as err:
        write_game(game, {"base": bad})
    assert err.value.file == str(tmp_path / "game.yaml")
    assert "unknown symbol 'ZZZ'" in str(err.value) and err.value.field == "reels.base[0][1]"
    assert (tmp_path / "game.yaml").read_text() == GAME
    assert not list(tmp_path.glob("*.bak")) and not list(tmp_path.glob(".game.*"))


def test_diff_shows_the_changed_strip_lines(game):
    d = diff(game, {"base": NEW})
    assert "-    - [A, B, C]        # reel 1" in d and "+    - [A, A, B, C]        # reel 1" in d
    assert "(saved)" in d and "(tuned)" in d


def test_a_test_game_round_trips(tmp_path):
    shutil.copy(TEST_DATA / "tune_video" / "game.yaml", tmp_path / "game.yaml")
    game = load_game(tmp_path)
    strips = tuple(Strip(s.symbols[::-1]) for s in game.strips())
    write_game(game, {"base": strips}, backup=False)
    assert load_game(tmp_path).strips() == strips
    assert not list(tmp_path.glob("*.bak"))


def test_a_game_written_elsewhere_still_reads_its_award_table(tmp_path):
    """Piggy's award table (``options.lockit.awards: awards.csv``) is named
    relative to the game file: written to another folder, the table (and
    every CSV reel set) is copied beside the new file, and the written game
    loads with the same award table (a game names only files in its folder)."""
    game = load_game("piggy_bankin_superlock")
    other = tmp_path / "tuned" / "game.yaml"
    first = game.strips("base")[0].symbols
    base = (Strip(first[1:] + first[:1]),) + game.strips("base")[1:]  # reel 1 rotated
    write_game(game, {"base": base}, other)
    text = other.read_text()
    source_dir = (TEST_DATA.parent.parent / "data" / "games" / "piggy_bankin_superlock").resolve()
    assert "awards: awards.csv" in text
    assert (other.parent / "awards.csv").read_bytes() == (source_dir / "awards.csv").read_bytes()
    written = load_game(other)
    assert written.strips("base") == base
    assert written.strips("feature") == game.strips("feature")
    from slotmath.engine.cache import rules_key
    from slotmath.rules.piggy_bankin_superlock import analysis as pbs

    assert rules_key(written) != "" and [
        p.name for p in pbs.game_referenced_files(written, dict(written.options))
    ] == [p.name for p in pbs.game_referenced_files(game, dict(game.options))]


def test_file_names_under_options_follow_a_game_written_elsewhere(game, tmp_path, monkeypatch):
    """With --allow-outside, strings under ``options`` that name a file
    beside the game are rewritten (relative to the new folder); an aliased
    one once, at its anchor, which is kept; a long description (no file
    name, too long for a path) and the rest of the file are left as they
    were.  Without it the file is copied and the text is unchanged."""
    import yaml

    (tmp_path / "notes.csv").write_text("a,b\n")
    long_text = "x" * 300
    text = GAME.replace(
        "options: {note: kept}",
        f"options:\n  table: &t notes.csv\n  again: *t\n  quoted: 'notes.csv'\n"
        f"  description: {long_text}\n  note: kept",
    )
    (tmp_path / "game.yaml").write_text(text)
    copied = tmp_path / "copied" / "game.yaml"
    write_game(load_game(tmp_path / "game.yaml"), {"base": NEW}, copied)
    assert copied.read_text().split("options:")[1] == text.split("options:")[1]
    assert (copied.parent / "notes.csv").read_text() == "a,b\n"
    monkeypatch.setenv("SLOTMATH_ALLOW_OUTSIDE", "1")
    other = tmp_path / "copy" / "game.yaml"
    write_game(load_game(tmp_path / "game.yaml"), {"base": NEW}, other)
    written = other.read_text()
    assert "table: &t ../notes.csv\n  again: *t\n  quoted: ../notes.csv\n" in written
    assert yaml.safe_load(written)["options"] == {
        "table": "../notes.csv",
        "again": "../notes.csv",
        "quoted": "../notes.csv",
        "description": long_text,
        "note": "kept",
    }
    expected = (
        text.split("options:")[1]
        .replace("&t notes.csv", "&t ../notes.csv")
        .replace("'notes.csv'", "../notes.csv")
    )
    assert written.split("options:")[1] == expected
