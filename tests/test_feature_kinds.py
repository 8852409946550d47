"""Every registered feature keeps the feature contract (each check a test of
its own), is documented, and the consumers read the registry."""

import re
from pathlib import Path

import pytest

from slotmath.features.registry import feature_keys, feature_kinds
from slotmath.testing.featurecheck import parametrize_with_feature_checks

DOCS = Path(__file__).resolve().parents[1] / "docs" / "features.md"


@parametrize_with_feature_checks()
def test_feature_conformance(check):
    check()


@pytest.mark.parametrize("key", feature_keys())
def test_each_feature_is_documented(key):
    assert re.search(rf"^## `{key}`", DOCS.read_text(), re.M), f"docs/features.md has no section `{key}`"


def test_line_rules_read_every_registered_feature():
    from slotmath.rules.contract import LINE_OPTIONS, option_parsers

    assert set(feature_keys()) <= LINE_OPTIONS
    assert set(option_parsers()) == set(feature_keys())


def test_a_broken_feature_fails_its_check_by_name():
    """The check can fail: a feature whose example does not declare it."""
    from dataclasses import replace

    from slotmath.errors import ConformanceError
    from slotmath.testing.featurecheck import feature_checks

    kind = replace(feature_kinds()[0], example="data/games/video20/game.yaml")
    checks = dict(feature_checks(kind))
    with pytest.raises(ConformanceError, match="does not declare"):
        checks["declared"]()


def test_round_cap_worked_example():
    """docs/features.md, `round_cap`: classic_free_spins capped at 500 x total
    bet loses E[(win - 500)+] (component round_cap, negative), and nothing else
    moves; every capped round pays at most 500."""
    from slotmath.io.gamefile import load_game
    from slotmath.rules.linegame import analyse

    free = analyse(load_game("data/games/classic_free_spins"), 1)
    capped = analyse(load_game("tests/data/capped_free_spins"), 1)
    cut = capped.components["round_cap"]
    assert -2e-4 < cut < 0
    assert float(capped.rtp) == pytest.approx(float(free.rtp) + cut, abs=1e-12)
    assert float(capped.distribution.x.max()) <= 500


def test_schema_file_holds_every_features_fragment():
    """The game file's schema is written from the registry (``python -m
    slotmath.features.registry``): each feature's own fragment is in it."""
    import json
    from importlib import resources

    from slotmath.features.registry import schema_with_features

    schema = json.loads(resources.files("slotmath").joinpath("io/schema/game.schema.json").read_text())
    assert schema_with_features(schema) == schema
    assert set(feature_keys()) <= set(schema["properties"]["options"]["properties"])


def test_a_feature_the_sampler_does_not_play_is_refused(monkeypatch):
    """A feature with no sampler part (``sampled`` False) is refused by the
    sampler in one line naming its key, and the PAR sheet says why it shows
    no cross-check instead of failing."""
    from dataclasses import replace

    from slotmath.errors import SetupError
    from slotmath.features import registry
    from slotmath.io.gamefile import load_game
    from slotmath.report.sheet import par_sheet
    from slotmath.rules.linegame import round_sampler

    kinds = tuple(replace(k, sampled=False, draws=None) if k.key == "pick" else k for k in registry.KINDS)
    monkeypatch.setattr(registry, "KINDS", kinds)
    with pytest.raises(SetupError, match=r"options\.pick: the pick bonus .* does not play it"):
        round_sampler(load_game("tests/data/pick_collect"), 1)
    sheet = par_sheet("tests/data/pick_collect", spins=1000)
    assert "No simulation was run: options.pick:" in sheet.section_html("simulation")
