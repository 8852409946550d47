"""Feature-level and output-level cases of the bad-input corpus (called by
``make_corpus.py``): features that can never start, colours that are not
colours, numbers beyond what the exact code and the samplers hold, and
declarations whose exact method would run past its bound.

Each case starts from :data:`FEATURE` (a valid 3-reel, 1-row game with free
games, an expanding wild, a wheel and a selection), Piggy Bankin' Superlock
or a small hold-and-spin game, and breaks one thing; ``validate`` must refuse
it in one line naming the field.
"""

from __future__ import annotations

import copy
from pathlib import Path

HERE = Path(__file__).resolve().parent
PIGGY = HERE.parent.parent.parent / "data" / "games" / "piggy_bankin_superlock"

STRIP = ["A", "A", "S", "X", "W"]
FEATURE = {
    "name": "bad_feature",
    "grid": {"reels": 3, "rows": 1},
    "bet": {"levels": [1]},
    "symbols": [
        {"name": "A"},
        {"name": "X", "kind": "blank"},
        {"name": "S", "kind": "scatter"},
        {"name": "W", "kind": "wild", "substitutes": "all"},
    ],
    "reels": {"base": [list(STRIP) for _ in range(3)], "free": [["A", "W", "S", "X"] for _ in range(3)]},
    "paylines": [[0, 0, 0]],
    "pays": [{"symbol": "A", "count": 3, "pay": 8}],
    "options": {
        "free_games": {
            "symbol": "S",
            "reels": "free",
            "multiplier": 2,
            "awards": {3: {"games": 2}},
            "retrigger": False,
            "nudge": "W",
        },
        "jackpots": {"MAJOR": 200},
        "wheel": {
            "symbol": "S",
            "trigger": 2,
            "segments": [{"prize": 1, "weight": 5}, {"prize": "MAJOR", "weight": 1}],
        },
        "selection": {
            "symbol": "S",
            "trigger": 2,
            "policy": "uniform",
            "choices": [
                {"name": "cash", "prize": 10},
                {"name": "spins", "free_games": 5},
                {"name": "wheel", "wheel": 2},
            ],
        },
    },
}


def edits(*fns):
    """One edit doing each of ``fns`` in turn."""

    def edit(d):
        for f in fns:
            f(d)

    return edit


def opt(path: str, value):
    """Set ``options.<path>`` (dotted) to ``value`` (None: delete it)."""

    def edit(d):
        keys = path.split(".")
        node = d["options"]
        for k in keys[:-1]:
            node = node[k]
        if value is None:
            node.pop(keys[-1], None)
        else:
            node[keys[-1]] = copy.deepcopy(value)

    return edit


def add_symbol(spec):
    return lambda d: d["symbols"].append(dict(spec))


def base_reel(r, strip):
    return lambda d: d["reels"]["base"].__setitem__(r, strip)


def free_reels(strip):
    return lambda d: d["reels"].__setitem__("free", [list(strip) for _ in range(3)])


def no_s_on_reel3(d):
    d["reels"]["base"][2] = ["A", "A", "X", "X", "W"]


def s_weight_zero_on_reel3(d):
    d["reels"]["base"][2] = {"symbols": list(STRIP), "weights": [1, 1, 0, 1, 1]}


def no_s_on_base(d):
    d["reels"]["base"] = [["A", "A", "X", "X", "W"] for _ in range(3)]


def only(*features):
    """Keep only ``features`` (and jackpots) under options."""

    def edit(d):
        keep = set(features) | {"jackpots"}
        d["options"] = {k: v for k, v in d["options"].items() if k in keep}
        if "wheel" not in keep:
            d["options"].pop("jackpots", None)

    return edit


def piggy_sub(old, new):
    def edit(text):
        assert old in text, old
        return text.replace(old, new, 1)

    return edit


def build_features(case) -> None:
    def feature(cid, edit, field):
        case(cid, edit, field, base=FEATURE)

    # --- a feature that can never start (validate names the feature field and the symbol)
    T = {"name": "T", "kind": "scatter"}
    feature(
        "fg_symbol_absent", edits(add_symbol(T), opt("free_games.symbol", "T")), "options.free_games.symbol"
    )
    feature("fg_symbol_not_on_base", edits(no_s_on_base, only("free_games")), "options.free_games.symbol")
    feature("fg_award_unreachable", edits(no_s_on_reel3, only("free_games")), "options.free_games.awards.3")
    feature(
        "fg_award_weight_zero",
        edits(s_weight_zero_on_reel3, only("free_games")),
        "options.free_games.awards.3",
    )
    feature(
        "fg_retrigger_award_unreachable",  # the free reels show at most 2 S: a retrigger on 3 never happens
        edits(
            only("free_games"),
            opt("free_games.retrigger", True),
            opt("free_games.retrigger_awards", {3: {"games": 1}}),
            lambda d: d["reels"]["free"].__setitem__(2, ["A", "W", "X", "X"]),
        ),
        "options.free_games.retrigger_awards.3",
    )
    no_coin = hold_and_spin_game(3, 3)  # the respins played on a set that shows no coin
    no_coin["reels"]["respin"] = [["A", "B", "A", "B", "A"]] * 3
    no_coin["pays"].append({"symbol": "B", "count": 3, "pay": 2})
    no_coin["options"]["hold_and_spin"]["reels"] = "respin"
    feature("hs_respin_set_without_coin", replaced(no_coin), "options.hold_and_spin.reels")
    shared = hold_and_spin_game(3, 3)  # the free games played on the hold-and-spin's respin set
    shared["symbols"].append({"name": "S", "kind": "scatter"})
    shared["reels"] = {"base": [["COIN", "A", "S", "B", "A"]] * 3, "respin": [["COIN", "S", "A", "B"]] * 3}
    shared["options"]["hold_and_spin"]["reels"] = "respin"
    shared["options"]["free_games"] = {"symbol": "S", "reels": "respin", "awards": {3: {"games": 2}}}
    feature("fg_reels_are_the_respin_set", replaced(shared), "options.free_games.reels")
    feature(
        "fg_second_award_unreachable",
        edits(
            no_s_on_reel3, only("free_games"), opt("free_games.awards", {2: {"games": 1}, 3: {"games": 2}})
        ),
        "options.free_games.awards.3",
    )
    # --- free games by trigger count and by reel condition
    fg3 = {3: {"games": 2, "multiplier": 3}}
    feature(
        "fg_count_multiplier_zero",
        opt("free_games.awards", {3: {"games": 2, "multiplier": 0}}),
        "options.free_games.awards.3.multiplier",
    )
    feature(
        "fg_retrigger_award_multiplier",
        edits(opt("free_games.retrigger", True), opt("free_games.retrigger_awards", fg3)),
        "options.free_games.retrigger_awards.3.multiplier",
    )
    feature(
        "fg_count_multiplier_choice_without",
        opt("free_games.awards", fg3),
        "options.selection.choices[1].multiplier",
    )
    # --- a reel set by trigger count
    feature(
        "fg_count_reels_unknown",
        opt("free_games.awards", {3: {"games": 2, "reels": "free6"}}),
        "options.free_games.awards.3.reels",
    )
    feature(
        "fg_retrigger_award_reels",
        edits(
            opt("free_games.retrigger", True),
            opt("free_games.retrigger_awards", {3: {"games": 2, "reels": "free"}}),
        ),
        "options.free_games.retrigger_awards.3.reels",
    )
    feature(
        "fg_count_reels_sticky",
        edits(opt("free_games.sticky", "W"), opt("free_games.awards", {3: {"games": 2, "reels": "base"}})),
        "options.free_games.sticky",
    )
    only_fg = only("free_games")
    feature(
        "fg_trigger_payline_not_true",
        edits(only_fg, opt("free_games.trigger", {"payline": 1})),
        "options.free_games.trigger.payline",
    )
    feature(
        "fg_trigger_payline_count_above_reels",
        edits(
            only_fg, opt("free_games.trigger", {"payline": True}), opt("free_games.awards", {4: {"games": 2}})
        ),
        "options.free_games.awards.4",
    )
    feature(
        "fg_trigger_payline_and_reels",
        edits(only_fg, opt("free_games.trigger", {"payline": True, "reels": [1, 2]})),
        "options.free_games.trigger.reels",
    )
    feature(
        "fg_trigger_reel_beyond_grid",
        edits(only_fg, opt("free_games.trigger", {"reels": [1, 4]})),
        "options.free_games.trigger.reels[1]",
    )
    feature(
        "fg_trigger_reel_zero",
        edits(only_fg, opt("free_games.trigger", {"reels": [0, 1]})),
        "options.free_games.trigger.reels[0]",
    )
    feature(
        "fg_trigger_reel_twice",
        edits(only_fg, opt("free_games.trigger", {"reels": [1, 1]})),
        "options.free_games.trigger.reels[1]",
    )
    feature(
        "fg_trigger_reels_not_a_list",
        edits(only_fg, opt("free_games.trigger", {"reels": 3})),
        "options.free_games.trigger.reels",
    )
    feature(
        "fg_trigger_unknown_key",
        edits(only_fg, opt("free_games.trigger", {"reels": [1], "rows": [1]})),
        "options.free_games.trigger.rows",
    )
    feature(
        "fg_trigger_reel_never_shows",
        edits(only_fg, no_s_on_reel3, opt("free_games.trigger", {"reels": [1, 3]})),
        "options.free_games.trigger.reels",
    )
    feature(
        "fg_trigger_count_below_reels",
        edits(
            only_fg,
            opt("free_games.awards", {2: {"games": 1}, 3: {"games": 2}}),
            opt("free_games.trigger", {"reels": [1, 2, 3]}),
        ),
        "options.free_games.awards.2",
    )
    feature(
        "fg_trigger_with_selection_games",
        opt("free_games.trigger", {"reels": [1, 2, 3]}),
        "options.selection.choices[1].free_games",
    )
    feature(
        "fg_trigger_payline_with_selection_games",
        opt("free_games.trigger", {"payline": True}),
        "options.selection.choices[1].free_games",
    )
    feature("fg_nudge_on_no_free_reel", free_reels(["A", "S", "X", "A"]), "options.free_games.nudge")
    feature(
        "fg_sticky_on_no_free_reel",
        edits(free_reels(["A", "S", "X", "A"]), opt("free_games.nudge", None), opt("free_games.sticky", "W")),
        "options.free_games.sticky",
    )
    feature("wheel_symbol_absent", edits(add_symbol(T), opt("wheel.symbol", "T")), "options.wheel.symbol")
    feature("wheel_symbol_not_on_base", edits(no_s_on_base, only("wheel")), "options.wheel.symbol")
    feature(
        "wheel_trigger_unreachable",
        edits(no_s_on_reel3, only("wheel"), opt("wheel.trigger", 3)),
        "options.wheel.trigger",
    )
    feature(
        "wheel_trigger_weight_zero",
        edits(s_weight_zero_on_reel3, only("wheel"), opt("wheel.trigger", 3)),
        "options.wheel.trigger",
    )
    feature(
        "selection_symbol_absent",
        edits(add_symbol(T), opt("selection.symbol", "T")),
        "options.selection.symbol",
    )
    feature(
        "selection_trigger_unreachable",
        edits(no_s_on_reel3, opt("free_games.awards", None), opt("selection.trigger", 3)),
        "options.selection.trigger",
    )
    feature(
        "selection_trigger_weight_zero",
        edits(s_weight_zero_on_reel3, opt("free_games.awards", None), opt("selection.trigger", 3)),
        "options.selection.trigger",
    )
    W2 = {"name": "W2", "kind": "wild", "substitutes": "all"}
    feature(
        "wild_multiplier_on_no_reel",
        edits(
            add_symbol(W2),
            only(),
            lambda d: d["options"].update(wild_multipliers={"symbol": "W2", "table": [[2, 1]]}),
        ),
        "options.wild_multipliers.symbol",
    )
    case(
        "piggy_selection_count_unreachable",
        piggy_sub(
            "      5: {prize: 100, lockit: {spins: 10, awards: selection_5}",
            "      14: {prize: 100, lockit: {spins: 10, awards: selection_5}",
        ),
        "options.selection.awards.14",
        piggy=True,
    )
    case(
        "piggy_free_games_count_unreachable",
        piggy_sub("      5: {prize: 100, games: 25}", "      14: {prize: 100, games: 25}"),
        "options.free_games.awards.14",
        piggy=True,
    )

    # --- colours: validate checks them (a report would fail drawing the strips)
    for cid, colour in (
        ("colour_word", "blood"),
        ("colour_hex_5_digits", "#12345"),
        ("colour_hex_not_hex", "#ggg"),
        ("colour_html_tag", "<svg onload=alert(1)>"),
        ("colour_css_url", "url(http://x.invalid/a.png)"),
        ("colour_css_function", "rgb(1, 2, 3)"),
        ("colour_empty", ""),
        ("colour_typo", "bluee"),
        ("colour_tableau_unknown", "tab:nope"),
        ("colour_escape_sequence", "\x1b[31mred"),
        ("colour_grey_level", "0.5"),
        ("colour_long", "#" + "f" * 10000),
    ):
        feature(cid, edits(lambda d, c=colour: d["symbols"][0].update(color=c)), "symbols[0].color")


LOCKIT = HERE.parent / "lockit_tiny"


def hold_and_spin_game(n_reels: int, rows: int, **spec) -> dict:
    """A ``n_reels`` x ``rows`` line game with a hold-and-spin on COIN."""
    strip = ["COIN", "A", "B", "B", "A", "COIN", "B", "A", "B", "A"][: max(rows, 3) + 2]
    hs = {
        "symbol": "COIN",
        "trigger": 1,
        "respins": 3,
        "rule": "reset",
        "respin": "cells",
        "reels": "base",
        "values": [{"prize": 1, "weight": 3}, {"prize": 4, "weight": 1}],
    }
    hs.update(spec)
    return {
        "name": "bad_hold_and_spin",
        "grid": {"reels": n_reels, "rows": rows},
        "bet": {"levels": [1]},
        "symbols": [{"name": "A"}, {"name": "B"}, {"name": "COIN"}],
        "reels": {"base": [list(strip) for _ in range(n_reels)]},
        "paylines": [[0] * n_reels],
        "pays": [{"symbol": "A", "count": 3, "pay": 5}],
        "options": {"jackpots": {"GRAND": 10}, "hold_and_spin": {**hs, "full_screen": "GRAND"}},
    }


def replaced(game: dict):
    """An edit replacing the whole game by ``game``."""

    def edit(d):
        d.clear()
        d.update(copy.deepcopy(game))

    return edit


def build_costs(case) -> None:
    """Declarations whose exact method would run past its bound, and numbers
    beyond what the exact code and the samplers hold."""

    def feature(cid, edit, field):
        case(cid, edit, field, base=FEATURE)

    hs = "options.hold_and_spin"
    probs9 = [[f"1/{k + 2}"] * 9 for k in range(9)]  # row-dependent landing
    for cid, game, field in (
        ("hs_9x9_reels", hold_and_spin_game(9, 9, respin="reels"), f"{hs}.respin"),
        (
            "hs_9x9_probabilities_by_row",
            hold_and_spin_game(9, 9, reels=None, probabilities=probs9, respins=10**9, rule="countdown"),
            f"{hs}.probabilities",
        ),
        (
            "hs_respins_1e9_countdown",
            hold_and_spin_game(3, 1, respins=10**9, rule="countdown"),
            f"{hs}.respins",
        ),
        ("hs_respins_1e30", hold_and_spin_game(3, 1, respins=10**30), f"{hs}.respins"),
        ("hs_respins_1e6_reset", hold_and_spin_game(3, 1, respins=10**6), f"{hs}.respins"),
        ("hs_4x5_respins_1e5", hold_and_spin_game(5, 4, respins=10**5), f"{hs}.respins"),
        (
            "hs_value_1e300",
            hold_and_spin_game(3, 1, values=[{"prize": 1e300, "weight": 1}]),
            f"{hs}.values[0].prize",
        ),
        (
            "hs_value_denominator",
            hold_and_spin_game(3, 1, values=[{"prize": "1/10000019", "weight": 1}]),
            f"{hs}.values[0].prize",
        ),
        (
            "hs_value_weights_2_63",
            hold_and_spin_game(
                3, 1, values=[{"prize": 1, "weight": 2**62 + 1}, {"prize": 4, "weight": 2**62 - 1}]
            ),
            f"{hs}.values",
        ),
        (
            "hs_value_weights_2_62",
            hold_and_spin_game(3, 1, values=[{"prize": 1, "weight": 2**62 - 1}, {"prize": 4, "weight": 2}]),
            f"{hs}.values",
        ),
        (
            "hs_start_value_weights_2_62",
            hold_and_spin_game(
                3, 1, start_values=[{"prize": 1, "weight": 2**62 + 1}, {"prize": 2, "weight": 3}]
            ),
            f"{hs}.start_values",
        ),
    ):
        for key in [k for k, v in game["options"]["hold_and_spin"].items() if v is None]:
            del game["options"]["hold_and_spin"][key]
        case(cid, replaced(game), field, base=FEATURE)
    big_jackpot = hold_and_spin_game(3, 1)
    big_jackpot["options"]["jackpots"]["GRAND"] = 1e300
    case("hs_jackpot_1e300", replaced(big_jackpot), "options.jackpots.GRAND", base=FEATURE)

    # lock-it spins: the chain is stepped once per spin
    for cid, spins in (
        ("lockit_spins_1e9", 10**9),
        ("lockit_spins_1e30", 10**30),
        ("lockit_spins_1e7", 10**7),
    ):
        case(
            cid,
            piggy_sub("base_game: {spins: 2,", f"base_game: {{spins: {spins},"),
            "options.lockit.sources.base_game.spins",
            seed=LOCKIT,
        )
    case(
        "lockit_wheel_weights_2_63",
        piggy_sub("{prize: 5, weight: 3}", f"{{prize: 5, weight: {2**63 + 1}}}"),
        "options.wheel.segments",
        seed=LOCKIT,
    )

    # capped free games: G**2 x (K + 1) updates, times the sticky masks
    fg = "options.free_games"
    for cid, edit in (
        (
            "fg_max_games_1e6_retrigger",
            edits(opt("free_games.retrigger", True), opt("free_games.max_games", 10**6)),
        ),
        ("fg_max_games_1e30", edits(opt("free_games.retrigger", True), opt("free_games.max_games", 10**30))),
        (
            "fg_retrigger_always_max_games_1e6",
            edits(
                lambda d: d["reels"].__setitem__("free", [["S"] * 4 for _ in range(3)]),
                opt("free_games.nudge", None),
                opt("free_games.retrigger", True),
                opt("free_games.max_games", 10**6),
            ),
        ),
        (
            "fg_sticky_max_games_1e6",
            edits(
                opt("free_games.nudge", None),
                opt("free_games.sticky", "W"),
                opt("free_games.retrigger", True),
                opt("free_games.max_games", 10**6),
            ),
        ),
        (
            "fg_sticky_max_games_1e5",
            edits(
                opt("free_games.nudge", None),
                opt("free_games.sticky", "W"),
                opt("free_games.retrigger", True),
                opt("free_games.max_games", 10**5),
            ),
        ),
    ):
        feature(cid, edit, f"{fg}.max_games")

    # numbers at the edges: prizes, caps and multipliers stay exact in small units
    for cid, edit, field in (
        ("round_cap_1e_300", lambda d: d["options"].update(round_cap=1e-300), "options.round_cap"),
        ("round_cap_denominator", lambda d: d["options"].update(round_cap="1/3000001"), "options.round_cap"),
        ("round_cap_1e300", lambda d: d["options"].update(round_cap=1e300), "options.round_cap"),
        ("jackpot_1e300", opt("jackpots.MAJOR", 1e300), "options.jackpots.MAJOR"),
        ("jackpot_denominator", opt("jackpots.MAJOR", "200/10000001"), "options.jackpots.MAJOR"),
        (
            "fg_prize_1e300",
            opt("free_games.awards", {3: {"games": 2, "prize": 1e300}}),
            f"{fg}.awards.3.prize",
        ),
        ("fg_multiplier_1e300", opt("free_games.multiplier", 1e300), f"{fg}.multiplier"),
        ("fg_multiplier_denominator", opt("free_games.multiplier", "1/7000001"), f"{fg}.multiplier"),
        (
            "wheel_prize_1e300",
            opt("wheel.segments", [{"prize": 1e300, "weight": 1}]),
            "options.wheel.segments[0].prize",
        ),
        (
            "wheel_coprime_denominators",
            opt("wheel.segments", [{"prize": f"1/{p}", "weight": 1} for p in (999983, 999979, 999961)]),
            "options.wheel.segments",
        ),
        (
            "wheel_weights_2_63",
            opt("wheel.segments", [{"prize": 1, "weight": 2**62 + 1}, {"prize": 2, "weight": 2**62 - 1}]),
            "options.wheel.segments",
        ),
        (
            "selection_prize_1e300",
            lambda d: d["options"]["selection"]["choices"][0].update(prize=1e300),
            "options.selection.choices[0].prize",
        ),
        (
            "selection_multiplier_1e300",
            lambda d: d["options"]["selection"]["choices"][1].update(multiplier=1e300),
            "options.selection.choices[1].multiplier",
        ),
    ):
        feature(cid, edit, field)


def build_modes(case, base) -> None:
    """Bet modes (``modes:``) that ``validate`` refuses in one line: an
    unknown key, a cost that is not a positive number, a buy of a feature
    the game does not declare or that cannot be bought, a reel set that does
    not exist, a name clash with the base mode, a broken option of the
    mode's game; ``base`` is the corpus's plain game (no options)."""

    def mode(cid, spec, field, name="ante", game=None):
        def edit(d):
            d["modes"] = {name: spec}

        case(cid, edit, field, base=FEATURE if game is None else game)

    mode("mode_unknown_key", {"cost": 2, "colour": "red"}, "modes.ante")
    mode("mode_cost_zero", {"cost": 0}, "modes.ante.cost")
    mode("mode_cost_negative", {"cost": -1.5}, "modes.ante.cost")
    mode("mode_cost_not_a_number", {"cost": "cheap"}, "modes.ante.cost")
    mode("mode_cost_bool", {"cost": True}, "modes.ante.cost")
    mode("mode_cost_missing", {"label": "no price"}, "modes.ante")
    mode("mode_name_base", {"cost": 2}, "modes.base", name="base")
    mode("mode_reel_set_unknown", {"cost": 2, "reels": {"base": "nope"}}, "modes.ante.reels.base")
    mode("mode_reel_set_unknown_key", {"cost": 2, "reels": {"bonus": "free"}}, "modes.ante.reels")
    mode("mode_round_cap_zero", {"cost": 2, "round_cap": 0}, "modes.ante.round_cap")
    mode(
        "mode_round_cap_in_options", {"cost": 2, "options": {"round_cap": 50}}, "modes.ante.options.round_cap"
    )
    mode("mode_options_unknown_key", {"cost": 2, "options": {"free_game": {}}}, "modes.ante")
    mode(
        "mode_options_unknown_symbol",
        {"cost": 2, "options": {"free_games": {**FEATURE["options"]["free_games"], "symbol": "Q"}}},
        "modes.ante",
    )
    buy = {"feature": "free_games", "games": 10}
    mode("mode_buy_undeclared", {"cost": 100, "buy": buy}, "modes.buy.buy.feature", name="buy", game=base)
    mode(
        "mode_buy_not_buyable",
        {"cost": 100, "buy": {**buy, "feature": "wheel"}},
        "modes.buy.buy.feature",
        "buy",
    )
    mode("mode_buy_games_zero", {"cost": 100, "buy": {**buy, "games": 0}}, "modes.buy.buy.games", "buy")
    mode("mode_buy_no_games", {"cost": 100, "buy": {"feature": "free_games"}}, "modes.buy.buy", "buy")
    held, hs_game = {"feature": "hold_and_spin", "coins": 1}, hold_and_spin_game(3, 1)
    for cid, change, field in (
        ("mode_buy_hs_coins_negative", {"coins": -1}, "modes.buy.buy.coins"),
        ("mode_buy_hs_coins_beyond_cells", {"coins": 4}, "modes.buy.buy.coins"),
        ("mode_buy_hs_with_games", {"games": 3}, "modes.buy.buy.games"),
    ):
        mode(cid, {"cost": 50, "buy": {**held, **change}}, field, "buy", game=hs_game)


def build_tumbles(case) -> None:
    """Tumble declarations (``options.tumble``) the engine does not compute or
    that are malformed: each refused in one line naming its field."""

    def tumble(cid, value, field, *more):
        plain = edits(only("free_games"), opt("free_games.nudge", None), opt("tumble", value), *more)
        case(cid, plain, field, base=FEATURE)

    tumble("tumble_fresh_refill", {"refill": "fresh"}, "options.tumble.draws")
    tumble("tumble_multiplier_zero", {"multipliers": [1, 0]}, "options.tumble.multipliers[1]")
    tumble("tumble_multipliers_empty", {"multipliers": []}, "options.tumble.multipliers")
    tumble("tumble_reset_per_feature", {"reset": "feature"}, "options.tumble.reset")
    tumble("tumble_triggers_whole_sequence", {"triggers": "whole_sequence"}, "options.tumble.triggers")
    tumble("tumble_unknown_key", {"cascade": True}, "options.tumble.cascade")
    tumble(
        "tumble_free_progression_on_base",
        {"free_multipliers": [2]},
        "options.tumble.free_multipliers",
        opt("free_games.reels", "base"),
    )
    tumble("tumble_with_nudge", {"multipliers": [1, 2]}, "options.tumble", opt("free_games.nudge", "W"))
    board = {"symbol": "M", "values": [{"value": 2, "weight": 3}], "in": ["base"]}

    def add_m(d):
        d["symbols"].append({"name": "M"})

    for cid, change, field in (
        ("tumble_board_unknown_symbol", {"symbol": "BOMB"}, "options.tumble.multiplier_symbols.symbol"),
        ("tumble_board_paying_symbol", {"symbol": "A"}, "options.tumble.multiplier_symbols.symbol"),
        ("tumble_board_blank_symbol", {"symbol": "X"}, "options.tumble.multiplier_symbols.symbol"),
        (
            "tumble_board_weight_zero",
            {"values": [{"value": 2, "weight": 0}]},
            "options.tumble.multiplier_symbols.values[0].weight",
        ),
        (
            "tumble_board_value_2_63",
            {"values": [{"value": 2**63, "weight": 1}]},
            "options.tumble.multiplier_symbols.values",
        ),
        ("tumble_board_in_bonus", {"in": ["bonus"]}, "options.tumble.multiplier_symbols.in"),
    ):
        tumble(cid, {"multiplier_symbols": {**board, **change}}, field, add_m)


#: a valid 3x3 tumble game (tests/data/tumble_tiny without its free games)
TUMBLE = {
    "name": "bad_tumble",
    "grid": {"reels": 3, "rows": 3},
    "bet": {"levels": [1]},
    "symbols": [
        {"name": "WILD", "kind": "wild", "substitutes": "all"},
        {"name": "SCATTER", "kind": "scatter"},
        {"name": "A"},
        {"name": "B"},
        {"name": "C"},
    ],
    "reels": {
        "base": [
            ["A", "B", "C", "SCATTER", "A", "C"],
            ["B", "A", "WILD", "C", "SCATTER", "B", "C"],
            ["A", "C", "B", "SCATTER", "A", "B"],
        ],
        "free": [
            ["A", "B", "C", "SCATTER", "B", "C"],
            ["C", "A", "WILD", "C", "SCATTER", "B", "C"],
            ["A", "C", "B", "A", "SCATTER", "C"],
        ],
    },
    "paylines": [[0, 0, 0], [1, 1, 1], [2, 2, 2]],
    "pays": [
        {"symbol": "A", "count": 3, "pay": 4},
        {"symbol": "B", "count": 3, "pay": 2},
        {"symbol": "C", "count": 2, "pay": 1},
    ],
    "scatters": [{"symbol": "SCATTER", "count": 3, "pay": 2}],
    "options": {
        "tumble": {"multipliers": [1, 2, 3], "free_multipliers": [2, 4]},
        "free_games": {"symbol": "SCATTER", "reels": "free", "awards": {3: {"games": 3}}},
    },
}

#: FEATURE's wheel with a progressive GRAND beside a fixed MINI
PROGRESSIVE = {
    "jackpots": {"MINI": 20, "GRAND": {"seed": 100, "contribution": "1/100", "reset": 50}},
    "wheel": {
        "symbol": "S",
        "trigger": 2,
        "segments": [
            {"prize": 1, "weight": 5},
            {"prize": "MINI", "weight": 1},
            {"prize": "GRAND", "weight": 1},
        ],
    },
}


def build_audit(case, piggy_case) -> None:
    """Issue 24's re-audit of the newer declarations (bet modes, tumbles, pays
    anywhere, reel heights, free games by trigger, progressive jackpots, drawn
    wild multipliers): hostile or careless values ``validate`` refuses in one
    line naming the field.  ``piggy_case(cid, edit, field)`` writes a case
    from Piggy Bankin' Superlock's game file text."""

    def feature(cid, edit, field, base=FEATURE):
        case(cid, edit, field, base=base)

    def mode(cid, spec, field, *more):
        feature(cid, edits(*more, lambda d: d.update(modes={"ante": spec})), field)

    def tumble(cid, value, field):
        feature(cid, lambda d: d["options"]["tumble"].update(value), field, base=TUMBLE)

    def progressive(*more):
        def add(d):
            d["options"].update(copy.deepcopy(PROGRESSIVE))

        return edits(only("free_games"), opt("free_games.nudge", None), add, *more)

    # bet modes: costs past the bound, buys past the award bound, too many modes,
    # reel sets on which a declared feature can never start
    mode("mode_cost_1e300", {"cost": 1e300}, "modes.ante.cost")
    mode("mode_cost_2_63", {"cost": 2**63}, "modes.ante.cost")
    mode("mode_cost_1e_300", {"cost": 1e-300}, "modes.ante.cost")
    mode("mode_round_cap_1e300", {"cost": 2, "round_cap": 1e300}, "modes.ante")
    buy = {"feature": "free_games", "games": 2**63}
    feature(
        "mode_buy_games_2_63",
        lambda d: d.update(modes={"buy": {"cost": 100, "buy": buy}}),
        "modes.buy.buy.games",
    )
    feature(
        "mode_buy_games_1e9",
        lambda d: d.update(modes={"buy": {"cost": 100, "buy": {**buy, "games": 10**9}}}),
        "modes.buy.buy.games",
    )
    feature("modes_40", lambda d: d.update(modes={f"m{i}": {"cost": 1 + i} for i in range(40)}), "modes")
    mode(
        "mode_reels_without_trigger_symbol",
        {"cost": 2, "reels": {"base": "plain"}},
        "modes.ante",
        lambda d: d["reels"].update(plain=[["A", "A", "X", "X", "W"] for _ in range(3)]),
        only("free_games"),
    )
    mode(
        "mode_reels_without_drawn_wild",
        {"cost": 2, "reels": {"base": "plain", "free": "plain"}},
        "modes.ante",
        lambda d: d["reels"].update(plain=[["A", "A", "S", "X", "X"] for _ in range(3)]),
        only("free_games"),
        opt("free_games.nudge", None),
        opt("wild_multipliers", {"symbol": "W", "table": [[2, 3], [3, 1]]}),
    )
    # free games: one award's games past the bound
    feature(
        "fg_award_games_5000",
        opt("free_games.awards", {3: {"games": 5000}}),
        "options.free_games.awards.3.games",
    )
    feature(
        "fg_award_multiplier_2_63",
        opt("free_games.awards", {3: {"games": 2, "multiplier": 2**63}}),
        "options.free_games.awards.3.multiplier",
    )
    # tumbles: a progression whose spin leaves exact arithmetic, one not whole
    tumble("tumble_multiplier_2_63", {"multipliers": [1, 2**63]}, "options.tumble.multipliers")
    tumble("tumble_free_multiplier_2_63", {"free_multipliers": [2**63]}, "options.tumble.free_multipliers")
    tumble("tumble_multiplier_1e300", {"multipliers": [1e300]}, "options.tumble.multipliers[0]")
    # progressive jackpots: absurd contributions, too many, never won
    feature(
        "progressive_contributions_above_1",
        progressive(
            lambda d: d["options"]["jackpots"].update(
                {f"J{i}": {"seed": 1, "contribution": "1/2"} for i in range(3)}
            ),
            lambda d: d["options"]["wheel"]["segments"].extend(
                {"prize": f"J{i}", "weight": 1} for i in range(3)
            ),
        ),
        "options.jackpots",
    )
    feature(
        "progressive_40",
        progressive(
            lambda d: d["options"]["jackpots"].update(
                {f"J{i}": {"seed": 1, "contribution": "1/1000"} for i in range(40)}
            ),
            lambda d: d["options"]["wheel"]["segments"].extend(
                {"prize": f"J{i}", "weight": 1} for i in range(40)
            ),
        ),
        "options.jackpots",
    )
    feature(
        "progressive_on_weight_zero_only",
        progressive(
            lambda d: d["options"]["wheel"]["segments"].__setitem__(2, {"prize": "GRAND", "weight": 0})
        ),
        "options.jackpots.GRAND",
    )
    feature(
        "progressive_contribution_1e_300",
        progressive(lambda d: d["options"]["jackpots"]["GRAND"].update(contribution=1e-300)),
        "options.jackpots.GRAND.contribution",
    )
    # a lock-it wheel's before prize drawn with a denominator the sampler cannot hold
    piggy_case(
        "piggy_wheel_before_1e_300",
        piggy_sub('probability: "1/500"', "probability: 1e-300"),
        "options.wheel.before.probability",
    )
