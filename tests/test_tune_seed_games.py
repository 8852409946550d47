"""The documented tuning check of the seed games: their committed strips meet
the published RTP, so ``slotmath tune`` reports the target met with nothing
moved (docs/games/grand_spinn_superpot.md, section 8).  Skipped while a game
is not in data/games."""

from __future__ import annotations

from fractions import Fraction

import pytest

from slotmath.io.gamefile import load_game
from slotmath.tuning.tune import Targets, tune

from conftest import GAMES


@pytest.mark.skipif(
    not (GAMES / "grand_spinn_superpot" / "game.yaml").is_file(),
    reason="data/games/grand_spinn_superpot is not there yet",
)
def test_grand_spinn_committed_strips_meet_the_target():
    game = load_game("grand_spinn_superpot")
    res = tune(game, Targets(Fraction("0.9621")))
    assert res.feasible, res.text()
    assert len(res.moves) == 0 and res.tuned.strips() == game.strips()
    assert set(res.after) == set(game.levels)
    for level in game.levels:
        assert abs(res.after[level]["rtp"] - Fraction("0.9621")) <= Fraction("0.00005")


@pytest.mark.skipif(
    not (GAMES / "grand_spinn_superpot" / "draft" / "reels.csv").is_file(),
    reason="data/games/grand_spinn_superpot/draft is not there yet",
)
def test_grand_spinn_strips_are_the_documented_tuning_run():
    """The committed reels.csv is, byte for byte, what the documented command
    ``slotmath tune grand_spinn_superpot <TUNE_ARGS>`` writes from the draft
    (docs/games/grand_spinn_superpot.md, section 8), and the draft is the
    layout with its hand-made weights."""
    from slotmath.cli import build_parser
    from slotmath.cli.tune import bounds_from_args, component_share_from_args, targets_from_args
    from slotmath.io.gamewriter import planned_files
    from slotmath.rules.grand_spinn_superpot.strips import DRAFT, TUNE_ARGS, draft_csv
    from slotmath.tuning.tune import draft_game

    root = GAMES.parent.parent
    folder = GAMES / "grand_spinn_superpot"
    assert (folder / DRAFT).read_text(encoding="utf-8") == draft_csv()
    doc = (root / "docs" / "games" / "grand_spinn_superpot.md").read_text()
    assert "slotmath tune grand_spinn_superpot " + " ".join(TUNE_ARGS) in " ".join(doc.split())
    argv = ["tune", "grand_spinn_superpot", *TUNE_ARGS]
    args = build_parser(argv).parse_args(argv)
    game = load_game(args.game)
    draft = draft_game(game, root / args.draft, args.reel_set)
    res = tune(
        draft,
        targets_from_args(args),
        bounds_from_args(args, draft),
        component_share=component_share_from_args(args),
    )
    assert res.feasible, res.text()
    assert res.tuned.strips() == game.strips()
    files = planned_files(res.game, {"base": res.tuned.strips()}, root / args.out)
    for path, text in files.items():
        assert path.read_text(encoding="utf-8") == text, path
    for level in game.levels:  # 96.21 % +- 0.005 pp at every level, the Super counted
        assert abs(res.after[level]["rtp"] - Fraction("0.9621")) <= Fraction("0.00005")


@pytest.mark.skipif(
    not (GAMES / "piggy_bankin_superlock" / "draft" / "reels_base.csv").is_file(),
    reason="data/games/piggy_bankin_superlock/draft is not there yet",
)
def test_piggy_strips_are_the_documented_tuning_run():
    """The committed reels_base.csv is, byte for byte, what the documented
    command ``slotmath tune piggy_bankin_superlock <TUNE_ARGS>`` writes from
    the draft base reels (docs/games/piggy_bankin_superlock.md, "How the
    strips were made"): RTP 94.03 % +- 0.005 pp at every bet under both pure
    selection policies, only non-held symbols moved."""
    import importlib.util

    from slotmath.cli import build_parser
    from slotmath.cli.tune import bounds_from_args, component_share_from_args, targets_from_args
    from slotmath.io.gamewriter import planned_files
    from slotmath.tuning.tune import draft_game

    root = GAMES.parent.parent
    folder = GAMES / "piggy_bankin_superlock"
    spec = importlib.util.spec_from_file_location("piggy_design", folder / "design.py")
    design = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(design)
    doc = (root / "docs" / "games" / "piggy_bankin_superlock.md").read_text()
    assert "slotmath tune piggy_bankin_superlock " + " ".join(design.TUNE_ARGS) in " ".join(doc.split())
    argv = ["tune", "piggy_bankin_superlock", *design.TUNE_ARGS]
    args = build_parser(argv).parse_args(argv)
    game = load_game(args.game)
    draft = draft_game(game, root / args.draft, args.reel_set)
    res = tune(
        draft,
        targets_from_args(args),
        bounds_from_args(args, draft),
        component_share=component_share_from_args(args),
    )
    assert res.feasible, res.text()
    assert set(res.targets.rtp_figures) >= {"rtp", "feature:by_choice.lockit", "feature:by_choice.free_games"}
    assert res.tuned.strips("base") == game.strips("base")
    for name in ("free_games", "feature", "feature_wheel"):
        assert res.tuned.strips(name) == game.strips(name)
    held = {"BONUS", "PIGGY", "PIGGY_WHEEL"}
    for old, new in zip(draft.strips("base"), game.strips("base"), strict=True):
        assert [i for i, s in enumerate(old.symbols) if s in held] == [
            i for i, s in enumerate(new.symbols) if s in held
        ]
    files = planned_files(res.game, {"base": res.tuned.strips("base")}, root / args.out)
    for path, text in files.items():
        assert path.read_text(encoding="utf-8") == text, path
    for level in game.levels:
        for name in res.targets.rtp_figures:
            assert abs(Fraction(res.after[level][name]) - Fraction("0.9403")) <= Fraction("0.00005")
