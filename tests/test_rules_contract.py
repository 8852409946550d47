"""The rules contract (slotmath.rules.contract), the registry
(slotmath.rules.registry) and the conformance check
(slotmath.testing.conformance): every registered rules passes each named check on its
games, broken rules fail it, rules registered by a program or by an installed
distribution's entry point are found, and the options a rules does not read
are refused."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
import yaml

from slotmath.io.gamefile import GameFileError, load_game
from slotmath.rules import registry
from slotmath.rules.contract import LineRules, Rules
from slotmath.rules.registry import UnknownRules, get_rules, rules_for
from slotmath.testing import CHECKS, ConformanceError, check_rules, parametrize_with_checks, rules_checks

from conftest import GAMES, ROOT

#: The shipped games and the rules they name.
SHIPPED = sorted(p.parent.name for p in GAMES.glob("*/game.yaml"))

# A tiny game worked by hand: 3 reels x 1 row, one line, every reel
# [A, B, C] (weight 1 each).  Only A A A pays, 9 coins: P = 1/27, so the
# RTP = 9/27 = 1/3 [x total bet] (total bet 1 coin), hit frequency 1/27.
TINY = {
    "name": "tiny",
    "grid": {"reels": 3, "rows": 1},
    "bet": {"levels": [1]},
    "symbols": [{"name": "A"}, {"name": "B"}, {"name": "C"}],
    "reels": {"base": [["A", "B", "C"]] * 3},
    "paylines": [[0, 0, 0]],
    "pays": [{"symbol": "A", "count": 3, "pay": 9}],
}


@pytest.fixture
def tiny(write_game):
    """Write the tiny game (``rules`` and ``options`` as given) and return its path."""

    def write(**changes):
        return write_game({**TINY, **changes})

    return write


@pytest.fixture
def registered():
    """``registered(name, rules)``: register rules for one test."""
    names = []

    def register(name, rules):
        registry.register(name, rules)
        names.append(name)

    yield register
    for name in names:
        registry.unregister(name)


# ----------------------------------------------------------------- conformance
def _shipped_cases() -> list:
    return [(rules_for(game), game) for game in map(load_game, SHIPPED)]


@parametrize_with_checks(_shipped_cases(), rounds=20_000)
def test_every_shipped_game_conforms(check):
    """Each conformance check of each shipped game, a test of its own."""
    check()


def test_named_checks_report_every_broken_promise():
    """Rules broken twice (components and levels): exactly those two named
    checks fail, each naming its method; the others pass."""

    class TwiceBroken(WrongComponents, LevelsOffTheMap):
        pass

    failed = {}
    for name, check in rules_checks(TwiceBroken(), load_game("video20"), rounds=0):
        try:
            check()
        except ConformanceError as exc:
            failed[name] = str(exc)
    assert sorted(failed) == ["components", "equivalent_levels"]
    assert failed["components"].startswith("TwiceBroken.components")
    assert failed["equivalent_levels"].startswith("TwiceBroken.equivalent_levels")
    assert list(CHECKS) == [name for name, _ in rules_checks(TwiceBroken(), load_game("video20"))]


def test_every_built_in_rules_has_a_shipped_game():
    used = {load_game(name).rules for name in SHIPPED}
    assert set(registry.BUILT_IN) <= used


def test_tiny_game_figures_by_hand(tiny):
    game = load_game(tiny())
    result = check_rules(rules_for(game), game)
    assert result.rtp == Fraction(1, 3)
    assert result.distribution.hit_frequency == Fraction(1, 27)
    assert rules_for(game).components(game, 1) == {"lines": Fraction(1, 3)}


class Broken(LineRules):
    """The line rules with one promise broken (subclasses say which)."""


class WrongComponents(Broken):
    def components(self, game, level):
        return {"lines": Fraction(1, 4)}  # the analysis gives 1/3


class ComponentsNotSummingToRtp(Broken):
    def analyse(self, game, level):
        result = super().analyse(game, level)
        return dataclasses.replace(result, components={**result.components, "bonus": Fraction(1, 10)})


class AcceptsAnyOption(Broken):
    def check(self, game):  # the options are not checked at all
        pass


class FiguresOfAnotherGame(Broken):
    def figures(self, game, level, reel_set="base", needed=None):
        return {"rtp": Fraction(1, 2)}


class SamplerOfWrongShape(Broken):
    def round_sampler(self, game, level):
        sampler = super().round_sampler(game, level)

        class Short:
            args = sampler.args
            event_names = sampler.event_names

            @staticmethod
            def kernel(rng, n, *args):
                wins, events = sampler.kernel(rng, n, *args)[:2]
                return wins[:-1], events  # one round short

        return Short()


class SamplerPayingDouble(Broken):
    def round_sampler(self, game, level):
        sampler = super().round_sampler(game, level)

        class Double:
            args = sampler.args
            event_names = sampler.event_names

            @staticmethod
            def kernel(rng, n, *args):
                wins, events = sampler.kernel(rng, n, *args)[:2]
                return wins * 2, events

        return Double()


class SamplerPartsOff(Broken):
    def round_sampler(self, game, level):
        sampler = super().round_sampler(game, level)

        class HalfParts:
            args = sampler.args
            event_names = sampler.event_names
            part_names = sampler.part_names

            @staticmethod
            def kernel(rng, n, *args):
                wins, events, parts = sampler.kernel(rng, n, *args)
                return wins, events, parts / 2  # parts that do not add up to the win

        return HalfParts()


class LevelsOffTheMap(Broken):
    def equivalent_levels(self, game):
        return {lv: 99 for lv in game.levels}


@pytest.mark.parametrize(
    "broken, where",
    [
        (WrongComponents, "WrongComponents.components"),
        (ComponentsNotSummingToRtp, "ComponentsNotSummingToRtp.analyse: components sum"),
        (AcceptsAnyOption, "AcceptsAnyOption.check: accepts an option key"),
        (FiguresOfAnotherGame, "FiguresOfAnotherGame.figures: rtp"),
        (SamplerOfWrongShape, "SamplerOfWrongShape.round_sampler: kernel returned wins of shape"),
        (SamplerPayingDouble, "SamplerPayingDouble.round_sampler"),
        (SamplerPartsOff, "SamplerPartsOff.round_sampler: the parts of a round's win do not add up"),
        (LevelsOffTheMap, "LevelsOffTheMap.equivalent_levels"),
    ],
)
def test_broken_rules_fail_the_check(broken, where):
    game = load_game("video20")
    with pytest.raises(ConformanceError) as err:
        check_rules(broken(), game, rounds=20_000)
    assert str(err.value).startswith(where), str(err.value)


def test_a_rules_without_analysis_fails():
    class Nothing(Rules):
        pass

    with pytest.raises(NotImplementedError):
        check_rules(Nothing(), load_game("fruit_classic"))


# --------------------------------------------------------------------- registry
@pytest.mark.parametrize("name", ["nosuch.sub", "../x", "__init__", "par", "linegame", "contract"])
def test_unknown_rules_name_the_registered_ones(tiny, name):
    with pytest.raises(GameFileError) as err:
        load_game(tiny(rules=name))
    assert err.value.field == "rules"
    assert "known rules: grand_spinn_superpot, lines, piggy_bankin_superlock" in err.value.problem


def test_an_imported_module_is_not_rules(tiny):
    """Importing a module ``slotmath.rules.<name>`` does not make ``<name>`` rules."""
    import slotmath.rules.figures  # noqa: F401

    with pytest.raises(GameFileError, match="unknown rules 'figures'"):
        load_game(tiny(rules="figures"))


def test_register_adds_and_takes_precedence(tiny, registered):
    class Thirds(LineRules):
        options = frozenset({"house_note"})

    registered("thirds", Thirds)
    game = load_game(tiny(rules="thirds", options={"house_note": "x"}))
    assert isinstance(rules_for(game), Thirds)
    assert "thirds" in registry.known_rules()
    registered("lines", Thirds)  # a registered rules shadows the built-in one
    assert isinstance(get_rules("lines"), Thirds)
    registry.unregister("lines")
    assert type(get_rules("lines")) is LineRules


@pytest.mark.parametrize("bad", [object(), LineRules.analyse, int])
def test_register_refuses_what_is_not_rules(bad):
    with pytest.raises(TypeError):
        registry.register("bad_rules", bad)
    with pytest.raises(TypeError):
        registry.register("not a name", LineRules)
    with pytest.raises(UnknownRules):
        get_rules("bad_rules")


# ---------------------------------------------------------------------- options
@pytest.mark.parametrize(
    "options, field, problem",
    [
        ({"free_gmaes": {}}, "options.free_gmaes", "unknown option (did you mean 'free_games'?"),
        ({"lockit": {"symbols": ["A"]}}, "options.lockit.trigger", "is required"),  # lines play a lock-it
        (
            {"free_games": {"symbol": "A", "reels": "nosuchset", "awards": {3: {"games": 5}}}},
            "options.free_games.reels",
            "unknown reel set 'nosuchset'",
        ),
        ({"arrow": "A"}, "options.arrow", "unknown option"),
        ({"free_games": {"colour": 1}}, "options.free_games.colour", "unknown key (allowed: awards,"),
    ],
)
def test_lines_refuse_options_they_do_not_read(tiny, options, field, problem):
    with pytest.raises(GameFileError) as err:
        load_game(tiny(options=options))
    assert err.value.field == field
    assert err.value.problem.startswith(problem), err.value.problem


def test_features_are_checked_by_their_own_parser(tiny, registered):
    """A rules that plays free games gets the feature's own field errors."""

    class WithFreeGames(LineRules):
        options = frozenset({"free_games"})

    registered("with_free_games", WithFreeGames)
    spec = {"symbol": "A", "reels": "nosuchset", "awards": {3: {"games": 5}}}
    with pytest.raises(GameFileError) as err:
        load_game(tiny(rules="with_free_games", options={"free_games": spec}))
    assert err.value.field == "options.free_games.reels"
    assert "unknown reel set 'nosuchset'" in err.value.problem
    spec.update(reels="base", multiplier=-3)
    with pytest.raises(GameFileError) as err:
        load_game(tiny(rules="with_free_games", options={"free_games": spec}))
    assert err.value.field == "options.free_games.multiplier"


def test_seed_games_refuse_a_feature_they_do_not_play(tmp_path):
    """Grand Spinn Superpot reads its own keys only; Piggy plays no free
    key of Grand Spinn's."""
    for name, key in (("grand_spinn_superpot", "free_games"), ("piggy_bankin_superlock", "arrow")):
        folder = tmp_path / name
        shutil.copytree(GAMES / name, folder)
        data = yaml.safe_load((folder / "game.yaml").read_text())
        data["options"][key] = {"symbol": "X"} if key == "free_games" else "X"
        (folder / "game.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
        with pytest.raises(GameFileError) as err:
            load_game(folder)
        assert err.value.field == f"options.{key}", err.value
        assert f"rules {name!r} read" in err.value.problem


# ------------------------------------------------------------------ entry points
def documented_rules_module() -> str:
    """The example rules module of docs/rules-packages.md (its first Python block)."""
    text = (ROOT / "docs" / "rules-packages.md").read_text(encoding="utf-8")
    return re.search(r"```python\n(.*?)```", text, re.S).group(1)


@pytest.fixture
def installed(tmp_path):
    """A distribution installed in a folder of its own (``my_rules`` in the
    entry-point group ``slotmath.rules``), and the environment that sees it."""
    site = tmp_path / "site"
    (site / "my_rules_pkg-0.1.dist-info").mkdir(parents=True)
    (site / "my_rules_pkg-0.1.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: my-rules-pkg\nVersion: 0.1\n"
    )
    (site / "my_rules_pkg-0.1.dist-info" / "entry_points.txt").write_text(
        "[slotmath.rules]\nmy_rules = myrules:MyRules\n"
    )
    (site / "myrules.py").write_text(documented_rules_module())
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)])}
    return site, env


def slotmath_in(env, *args):
    return subprocess.run(
        [sys.executable, "-m", "slotmath", *map(str, args)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )


def test_entry_point_rules_validate_and_analyse(tiny, installed):
    site, env = installed
    game = tiny(rules="my_rules", options={"bonus": 2})
    proc = slotmath_in(env, "validate", game)
    assert proc.returncode == 0, proc.stderr
    assert ": ok: " in proc.stdout
    proc = slotmath_in(env, "par", game, "--json")
    assert proc.returncode == 0, proc.stderr
    par = json.loads(proc.stdout)
    # lines 1/3 (see TINY) plus the bonus of 2 x total bet on every spin
    assert par["rtp_exact"] == "7/3"
    assert par["components_exact"] == {"lines": "1/3", "bonus": "2/1"}
    assert par["hit_frequency"] == 1.0  # every spin pays the bonus
    # the rules' own field check, and the registry's list, as one line each
    bad = slotmath_in(env, "validate", tiny(rules="my_rules", options={"bonus": -1}))
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1
    assert "options.bonus: must be a whole number >= 0, got -1" in bad.stderr
    bad = slotmath_in(env, "validate", tiny(rules="my_rules", options={"bonsu": 1}))
    assert bad.returncode == 2
    assert "options.bonsu: unknown option (did you mean 'bonus'? rules 'my_rules' read bonus)" in bad.stderr
    bad = slotmath_in(env, "validate", tiny(rules="my_rulez"))
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1
    assert "known rules: grand_spinn_superpot, lines, my_rules, piggy_bankin_superlock" in bad.stderr


def test_entry_point_rules_pass_the_conformance_check(tiny, installed, monkeypatch):
    site, _ = installed
    monkeypatch.syspath_prepend(str(site))
    registry.forget_installed()
    try:
        game = load_game(tiny(rules="my_rules", options={"bonus": 1}))
        result = check_rules(rules_for(game), game)
        assert result.rtp == Fraction(4, 3)
    finally:
        registry.forget_installed()
        sys.modules.pop("myrules", None)


def test_a_broken_entry_point_is_one_line(tiny, installed):
    site, env = installed
    (site / "my_rules_pkg-0.1.dist-info" / "entry_points.txt").write_text(
        "[slotmath.rules]\nmy_rules = myrules:NoSuchClass\n"
    )
    proc = slotmath_in(env, "validate", tiny(rules="my_rules"))
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
    assert "rules: rules 'my_rules' do not load" in proc.stderr


def test_rules_are_documented():
    """Every public method of the contract has a docstring with its units or return."""
    for name in dir(Rules):
        attr = getattr(Rules, name)
        if callable(attr) and not name.startswith("_"):
            assert attr.__doc__ and len(attr.__doc__) > 40, name
    assert Path(ROOT / "docs" / "rules-packages.md").is_file()


def test_line_rules_delegate_to_the_line_game_functions(monkeypatch):
    """``LineRules`` calls the functions of ``slotmath.rules.linegame`` (so a
    change to the line round reaches every caller through the contract)."""
    from slotmath.rules import linegame

    game = load_game("fruit_classic")
    calls = []
    for name in ("analyse", "round_sampler", "check", "simulate"):
        monkeypatch.setattr(linegame, name, lambda *args, _n=name, **kwargs: calls.append(_n) or _n)
    rules = LineRules()
    assert rules.analyse(game, 1) == "analyse"
    assert rules.round_sampler(game, 1) == "round_sampler"
    assert rules.simulate(game, 1, 10, 0) == "simulate"
    rules.check(game)
    assert calls == ["analyse", "round_sampler", "simulate", "check"]


def test_no_caller_asks_which_rules_a_game_has():
    """Outside the registry, no module compares a game's ``rules`` with a
    name or looks a rules hook up by name."""
    pattern = re.compile(r"\.rules\s*[!=]=|rules_module|getattr\(rules|tuning_figures\b|figure_hook")
    found = []
    for path in sorted((ROOT / "slotmath").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if "/grand_spinn_superpot/" in rel or "/piggy_bankin_superlock/" in rel:
            continue  # a game's own package names its own functions
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if pattern.search(line):
                found.append(f"{rel}:{i}: {line.strip()}")
    assert not found, "\n".join(found)


def test_schema_lists_each_feature_parsers_keys():
    """The game file's schema and the feature parsers name the same keys, so
    a key is refused (or accepted) the same way by both."""
    import json
    from importlib import resources

    from slotmath.features.holdspin import SPEC_KEYS
    from slotmath.features.options import FREE_GAMES_KEYS
    from slotmath.features.registry import feature_keys
    from slotmath.features.wildmult import KEYS as WILD_KEYS

    text = resources.files("slotmath").joinpath("io/schema/game.schema.json").read_text()
    options = json.loads(text)["properties"]["options"]["properties"]
    assert set(feature_keys()) <= set(options)
    assert set(options["free_games"]["properties"]) == set(FREE_GAMES_KEYS)
    assert set(options["hold_and_spin"]["properties"]) == set(SPEC_KEYS)
    assert set(options["wild_multipliers"]["properties"]) == set(WILD_KEYS)
