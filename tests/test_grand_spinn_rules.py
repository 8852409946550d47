"""Grand Spinn Superpot: the worked examples of docs/games/grand_spinn_superpot.md.

Every example is a toy game with the real game's symbols, pays, lines and
options but short strips that make one screen; the working is in the
comments (pays at bet level 1 unless stated, for 3 of a kind: SEVEN 250,
BAR 100, BELL 50, MELON 30, GRAPES 20, PLUM 15, ORANGE 10, LEMON 8, CHERRY 5
coins, and CHERRY CHERRY from reel 1 1 coin; lines 1 middle, 2 top, 3 bottom,
4 (0,1,2), 5 (2,1,0), 6 (0,1,0), 7 (2,1,2), 8 (1,0,1), 9 (1,2,1), 10 (0,2,0)).
Each example is checked three ways: the step-by-step player (:func:`play_steps`), the exact path's round
(:func:`play_round`) and the simulator's literal round (:func:`play_stops`).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import yaml

from slotmath.io.gamefile import GAMES_DIR, GameFileError, load_game
from slotmath.rules.grand_spinn_superpot import analysis as gs

REAL = GAMES_DIR / "grand_spinn_superpot" / "game.yaml"


def toy_game(tmp_path: Path, reels: list, name: str = "toy", **changes):
    """The real game with ``reels`` (lists of symbol names) as its strips."""
    data = yaml.safe_load(REAL.read_text())
    data["reels"] = {"base": reels}
    data["name"] = name
    for key, value in changes.items():
        data[key] = value
    folder = tmp_path / name
    folder.mkdir(exist_ok=True)
    (folder / "game.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    return load_game(folder)


def exact_round(game, level, stops):
    """(landing, nudges, arrow pays, jackpot name, path, winning symbol) from the exact path."""
    rules = gs.compile_rules(game, level)
    w0, u, a, jp, path, x = gs.play_round(np.array(stops, dtype=np.int64), *rules.round_args)
    opts = rules.options
    return (
        int(w0),
        int(u),
        int(a),
        opts.jackpots[jp].name if jp >= 0 else None,
        int(path),
        game.symbol_names[x] if x >= 0 else None,
    )


def literal(game, level, stops):
    """(win, landing, pays, jackpot name, without win) from the simulator's round."""
    sampler = gs.round_sampler(game, level)
    win, landing, pays, _arrows, jp, without = gs.play_stops(sampler, [stops])[0]
    names = [j.name for j in gs.parse_options(game).jackpots]
    return int(win), int(landing), int(pays), names[jp] if jp >= 0 else None, bool(without)


def screen(steps, i=0):
    """Window of step ``i`` as rows (top, middle, bottom) of symbol names."""
    return [list(row) for row in np.asarray(steps[i].window).T]


def kinds(steps):
    return [(s.kind, s.reel) for s in steps]


def check_all(game, level, stops, total, landing, pays, jackpot=None):
    """The three implementations agree on the round's total."""
    steps = gs.play_steps(game, level, stops)
    assert steps[-1].total == total
    w0, u, a, jp, _, _ = exact_round(game, level, stops)
    jp_coins = 0
    if jp is not None:
        j = next(j for j in gs.parse_options(game).jackpots if j.name == jp)
        jp_coins = 0 if j.pay_per_level is None else j.pay_per_level * level
    assert (w0, 1 + u + a, jp) == (landing, pays, jackpot)
    assert w0 * (1 + u + a) + jp_coins == total
    assert literal(game, level, stops)[:4] == (total, landing, pays, jackpot)
    return steps


# ---------------------------------------------------------------- R10-R12
def test_example_1_nudges_repay_the_landing_win(tmp_path):
    """A1/A6: each nudge pays the whole landing win again, reels 1, 2, 3 in turn."""
    game = toy_game(
        tmp_path,
        [
            ["LEMON", "CHERRY", "CHERRY", "CHERRY", "BLANK", "PLUM"],
            ["BLANK", "CHERRY", "BLANK", "PLUM"],
            ["ORANGE", "CHERRY", "CHERRY", "BLANK", "PLUM"],
        ],
    )
    stops = (2, 0, 1)
    steps = gs.play_steps(game, 1, stops)
    assert screen(steps) == [
        ["CHERRY", "BLANK", "CHERRY"],
        ["CHERRY", "CHERRY", "CHERRY"],
        ["BLANK", "BLANK", "BLANK"],
    ]
    # line 1 (middle) C C C = 5, line 6 (0,1,0) C C C = 5, line 4 (0,1,2) C C - = 2
    # cherries = 1: W0 = 11, X = CHERRY.
    # Reel 1: CHERRY on top twice above the window -> 2 nudges (LEMON stops it);
    # reel 2: BLANK on top; reel 3: one CHERRY above -> 1 nudge (ORANGE stops it).
    # 1 + 2 + 1 = 4 pays of 11 = 44 coins.
    assert kinds(steps) == [("land", None), ("nudge", 0), ("nudge", 0), ("nudge", 2), ("end", None)]
    assert [s.pay for s in steps] == [11, 11, 11, 11, 0]
    # After reel 1's first nudge the screen shows C C C on line 5 (2,1,0) too, which
    # re-evaluation would pay as well; the rule pays the landing win, 11.
    after = steps[1].window
    assert [after[0, 2], after[1, 1], after[2, 0]] == ["CHERRY"] * 3
    check_all(game, 1, stops, total=44, landing=11, pays=4)


# ---------------------------------------------------------------- R1-R3
def test_example_1_at_bet_level_3(tmp_path):
    """R2-R3: a line win is the pay times the bet level; total bet 10 x level."""
    game = toy_game(
        tmp_path,
        [
            ["LEMON", "CHERRY", "CHERRY", "CHERRY", "BLANK", "PLUM"],
            ["BLANK", "CHERRY", "BLANK", "PLUM"],
            ["ORANGE", "CHERRY", "CHERRY", "BLANK", "PLUM"],
        ],
    )
    # (5 + 5 + 1) x 3 = 33 coins landing, 4 pays = 132 coins; total bet 30 coins.
    check_all(game, 3, (2, 0, 1), total=132, landing=33, pays=4)
    assert game.bet(3).total_bet == 30
    # at a coin value of 0.05 EUR: 132 coins = 6.60 EUR for a 1.50 EUR bet
    assert 132 * 0.05 == pytest.approx(6.6) and 30 * 0.05 == pytest.approx(1.5)


# ---------------------------------------------------------------- R9
def test_example_2_highest_line_win_picks_the_symbol(tmp_path):
    """A4: CHERRY (5) and BELL (50) both win: BELL, the highest line win, drives the nudge."""
    game = toy_game(
        tmp_path,
        [
            ["CHERRY", "BELL", "CHERRY", "BLANK", "LEMON"],
            ["BELL", "BELL", "CHERRY", "BLANK"],
            ["BLANK", "BELL", "CHERRY", "BLANK", "CHERRY"],
        ],
    )
    steps = gs.play_steps(game, 1, (1, 1, 1))
    assert screen(steps)[:2] == [["BELL", "BELL", "BELL"], ["CHERRY", "CHERRY", "CHERRY"]]
    # W0 = 50 (line 2) + 5 (line 1) = 55, X = BELL.  Reel 1: BELL on top, CHERRY above
    # it -> 1 nudge (the CHERRY then on top does not nudge: it is not X); reel 2: BELL,
    # BELL -> 2 nudges; reel 3: 1 nudge.  5 pays x 55 = 275.
    assert exact_round(game, 1, (1, 1, 1))[5] == "BELL"
    assert kinds(steps)[1:-1] == [("nudge", 0), ("nudge", 1), ("nudge", 1), ("nudge", 2)]
    check_all(game, 1, (1, 1, 1), total=275, landing=55, pays=5)


def test_example_3_tie_goes_to_the_entry_listed_first(tmp_path):
    """A5: ORANGE x3 (10) ties WILD CHERRY CHERRY (5 x 2 = 10): ORANGE is listed first."""
    game = toy_game(
        tmp_path,
        [
            ["ORANGE", "ORANGE", "BLANK", "WILD", "BLANK"],
            ["CHERRY", "ORANGE", "BLANK", "CHERRY"],
            ["BLANK", "ORANGE", "BLANK", "CHERRY"],
        ],
    )
    steps = gs.play_steps(game, 1, (1, 1, 1))
    assert screen(steps) == [
        ["ORANGE", "ORANGE", "ORANGE"],
        ["BLANK", "BLANK", "BLANK"],
        ["WILD", "CHERRY", "CHERRY"],
    ]
    # line 2: O O O = 10; line 3: W C C = 5 x 2 = 10; W0 = 20, X = ORANGE.
    # Reel 1: ORANGE, ORANGE above the top -> 2 nudges; reel 2: 1 (CHERRY above);
    # reel 3: 1.  5 pays x 20 = 100.
    assert exact_round(game, 1, (1, 1, 1))[5] == "ORANGE"
    check_all(game, 1, (1, 1, 1), total=100, landing=20, pays=5)


# ---------------------------------------------------------------- R4-R8, A7
def test_example_4_wild_on_top_is_not_the_winning_symbol(tmp_path):
    """A7: a multiplier wild on top does not nudge a CHERRY win."""
    game = toy_game(
        tmp_path,
        [
            ["BLANK", "WILD", "CHERRY", "BLANK"],
            ["BLANK", "CHERRY", "CHERRY", "BLANK"],
            ["BLANK", "BLANK", "CHERRY", "BLANK"],
        ],
    )
    steps = gs.play_steps(game, 1, (1, 1, 1))
    # line 1: C C C = 5; line 8 (1,0,1): C C C = 5; lines 2, 4, 6 start W C: two
    # cherries with one wild, 1 x 2 = 2 each; W0 = 16, X = CHERRY (the highest, 5).
    # Reel 1 shows WILD on top: no nudge; reel 2 nudges once; reel 3 has BLANK on
    # top.  2 x 16 = 32.
    assert screen(steps)[0] == ["WILD", "CHERRY", "BLANK"]
    assert kinds(steps)[1:-1] == [("nudge", 1)]
    check_all(game, 1, (1, 1, 1), total=32, landing=16, pays=2)


def test_example_11_wilds_do_not_pay_on_their_own(tmp_path):
    """A2/A3: WILD WILD WILD pays as the best symbol, SEVEN x 8 = 2,000 coins."""
    game = toy_game(tmp_path, [["BLANK", "WILD", "BLANK", "LEMON"]] * 3)
    # only line 1 shows W W W: 250 x 2**3 = 2000 = 200 x the total bet of 10; X = SEVEN;
    # the tops are BLANK: no nudge.
    check_all(game, 1, (0, 0, 0), total=2000, landing=2000, pays=1)
    assert exact_round(game, 1, (0, 0, 0))[5] == "SEVEN"
    # one wild doubles, two wilds quadruple: W C C = 10, W C W = 20
    game2 = toy_game(
        tmp_path,
        [["BLANK", "WILD", "BLANK"], ["BLANK", "CHERRY", "BLANK"], ["BLANK", "CHERRY", "WILD"]],
        name="toy2",
    )
    check_all(game2, 1, (0, 0, 0), total=10, landing=10, pays=1)
    # reel 3 at stop 1 shows (CHERRY, WILD, BLANK): line 1 W C W = 20; its top CHERRY
    # then nudges once (a BLANK comes on top): 2 x 20 = 40
    check_all(game2, 1, (0, 0, 1), total=40, landing=20, pays=2)


def test_example_5_a_reel_nudges_on_the_top_row(tmp_path):
    """A8: the nudge looks at the top row, whichever line won."""
    game = toy_game(
        tmp_path,
        [
            ["BLANK", "BLANK", "PLUM", "LEMON"],
            ["BLANK", "BLANK", "PLUM", "LEMON"],
            ["LEMON", "PLUM", "BLANK", "PLUM", "BLANK"],
        ],
    )
    steps = gs.play_steps(game, 1, (0, 0, 1))
    # line 3 (bottom) P P P = 15.  Reel 3's top row shows PLUM: it nudges once, though
    # its bottom PLUM then leaves line 3; the landing win is paid again: 2 x 15 = 30.
    assert screen(steps) == [
        ["BLANK", "BLANK", "PLUM"],
        ["BLANK", "BLANK", "BLANK"],
        ["PLUM", "PLUM", "PLUM"],
    ]
    assert screen(steps, 1)[2] == ["PLUM", "PLUM", "BLANK"]
    check_all(game, 1, (0, 0, 1), total=30, landing=15, pays=2)


# ---------------------------------------------------------------- R13-R15
def test_example_6_arrow_sends_the_reel_back_through_its_stack(tmp_path):
    """A9/A10: nudges, then the up arrow: back to the bottom of the 4-MELON stack."""
    game = toy_game(
        tmp_path,
        [
            ["BLANK", "ARROW", "MELON", "MELON", "MELON", "MELON", "BLANK", "LEMON"],
            ["BLANK", "MELON", "MELON", "BLANK"],
            ["BLANK", "BLANK", "MELON", "BLANK"],
        ],
    )
    steps = gs.play_steps(game, 1, (3, 1, 1))
    # line 1: M M M = 30, line 8 (1,0,1): M M M = 30: W0 = 60, X = MELON.
    # Reel 1: 2 nudges (positions 2, 1 come to the top), then ARROW on top with MELON
    # below: the stack is positions 2-5 (4 MELON, 1 of them below the window); the reel
    # moves so position 5 is in the middle row (1 pay) and nudges up through the stack
    # (3 pays) until the arrow, now a blank, is on top: the arrow adds 4 = stack length.
    # Reel 2: 1 nudge.  1 + 2 + 4 + 1 = 8 pays x 60 = 480.
    assert kinds(steps)[1:-1] == [
        ("nudge", 0),
        ("nudge", 0),
        ("arrow", 0),
        ("nudge", 0),
        ("nudge", 0),
        ("nudge", 0),
        ("nudge", 1),
    ]
    arrow_step = steps[3]
    assert arrow_step.stops[0] == 4 and list(arrow_step.window[0]) == ["MELON", "MELON", "BLANK"]
    assert list(steps[-1].window[0]) == ["BLANK", "MELON", "MELON"]  # the arrow is a blank
    assert exact_round(game, 1, (3, 1, 1))[:3] == (60, 3, 4)  # nudges 2 + 1, arrow 4
    check_all(game, 1, (3, 1, 1), total=480, landing=60, pays=8)
    # the next spin still has the arrow (the blank lasts for the spin only)
    assert game.strips()[0].symbols[1] == "ARROW"
    again = gs.play_steps(game, 1, (3, 1, 1))
    assert again[-1].total == 480


def test_example_7_arrow_needs_a_stack_below_it(tmp_path):
    """A11: an arrow on top fires without nudges when X is below it; without X below
    it does nothing."""
    game = toy_game(
        tmp_path,
        [
            ["BLANK", "ARROW", "CHERRY", "CHERRY", "BLANK"],
            ["BLANK", "ARROW", "BLANK", "CHERRY"],
            ["BLANK", "BLANK", "CHERRY", "CHERRY"],
        ],
    )
    steps = gs.play_steps(game, 1, (1, 1, 1))
    assert screen(steps) == [
        ["ARROW", "ARROW", "BLANK"],
        ["CHERRY", "BLANK", "CHERRY"],
        ["CHERRY", "CHERRY", "CHERRY"],
    ]
    # line 3 (bottom) C C C = 5, line 9 (1,2,1) C C C = 5: W0 = 10, X = CHERRY.
    # Reel 1: ARROW on top, CHERRY below: stack of 2 -> 2 pays (move, 1 nudge).
    # Reel 2: ARROW on top, BLANK below: nothing.  3 x 10 = 30.
    assert kinds(steps)[1:-1] == [("arrow", 0), ("nudge", 0)]
    assert list(steps[-1].window[1]) == ["ARROW", "BLANK", "CHERRY"]
    check_all(game, 1, (1, 1, 1), total=30, landing=10, pays=3)


# ---------------------------------------------------------------- R16-R17
CAPPED = ["BLANK", "CHERRY", "CHERRY", "BLANK"]


def capped(cap):
    return [cap, "CHERRY", "CHERRY", "BLANK"]


@pytest.mark.parametrize(
    "caps, jackpot, coins",
    [
        (("SUPER", "SUPER", "SUPER"), "Super", 0),  # 3 Super -> the Super
        (("SUPER", "SUPER", "MIDI"), "Midi", 200),  # 2 Super + 1 Midi -> the Midi
        (("SUPER", "MIDI", "MINI"), "Mini", 40),  # Super, Midi, Mini -> the Mini
    ],
)
def test_example_8_lowest_jackpot_on_top_of_the_stacks(tmp_path, caps, jackpot, coins):
    """R16-R17 with the rules text's three examples."""
    game = toy_game(tmp_path, [capped(c) for c in caps])
    # stop 1 shows (CHERRY, CHERRY, BLANK) on every reel: lines 1, 2, 6 and 8 pay
    # C C C = 5 each, line 4 (0,1,2) two cherries = 1: W0 = 21.  Every reel nudges
    # once (its cap then on top of the CHERRY stack): 4 pays = 84 coins, plus the
    # lowest jackpot shown.
    steps = check_all(game, 1, (1, 1, 1), total=84 + coins, landing=21, pays=4, jackpot=jackpot)
    assert steps[-2].kind == "jackpot" and steps[-2].pay == coins
    assert exact_round(game, 1, (1, 1, 1))[4] == gs.PATH_NUDGE


def test_example_8_every_reel_must_cap_its_stack(tmp_path):
    """A12: a jackpot symbol over a reel without X below it does not count."""
    game = toy_game(
        tmp_path, [capped("SUPER"), capped("SUPER"), ["MINI", "LEMON", "CHERRY", "CHERRY", "BLANK"]]
    )
    # reel 3 at stop 2 shows (CHERRY, CHERRY, BLANK): the same 21 coins as above;
    # it nudges once, LEMON is then on top: no stack cap on reel 3, no jackpot.
    check_all(game, 1, (1, 1, 2), total=84, landing=21, pays=4, jackpot=None)
    # a jackpot symbol on top with LEMON below (not the winning symbol) is no cap either
    game2 = toy_game(
        tmp_path,
        [capped("SUPER"), capped("SUPER"), ["BLANK", "MINI", "LEMON", "CHERRY", "CHERRY"]],
        name="toy2",
    )
    steps = gs.play_steps(game2, 1, (1, 1, 1))
    assert list(steps[-1].window[2]) == ["MINI", "LEMON", "CHERRY"]
    assert steps[-1].total == steps[0].total * 3 and steps[-2].kind != "jackpot"


# ---------------------------------------------------------------- R18
def test_example_9_jackpot_symbols_on_a_line_without_a_win(tmp_path):
    """R18: no line win and a jackpot symbol on every reel of a line: the lowest."""
    game = toy_game(
        tmp_path, [["BLANK", "MINI", "BLANK"], ["BLANK", "MIDI", "BLANK"], ["BLANK", "SUPER", "BLANK"]]
    )
    # line 1 shows MINI MIDI SUPER -> the Mini, 40 coins; nothing else pays.
    steps = check_all(game, 1, (0, 0, 0), total=40, landing=0, pays=1, jackpot="Mini")
    assert exact_round(game, 1, (0, 0, 0))[4] == gs.PATH_LINE
    assert literal(game, 1, (0, 0, 0))[4] is True
    assert steps[-1].kind == "jackpot"


def test_example_9_two_jackpot_lines_take_the_higher_offer(tmp_path):
    """A13: line 2 offers the Midi, line 3 the Mini: the round takes the Midi."""
    game = toy_game(tmp_path, [["MIDI", "BLANK", "MINI", "LEMON"]] * 3)
    check_all(game, 1, (0, 0, 0), total=200, landing=0, pays=1, jackpot="Midi")


def test_example_9_wilds_do_not_stand_in_for_jackpot_symbols(tmp_path):
    """R4: MINI WILD MINI is neither a line win nor a jackpot line."""
    game = toy_game(
        tmp_path, [["BLANK", "MINI", "BLANK"], ["BLANK", "WILD", "BLANK"], ["BLANK", "MINI", "BLANK"]]
    )
    check_all(game, 1, (0, 0, 0), total=0, landing=0, pays=1, jackpot=None)


def test_example_10_jackpot_line_with_a_line_win_does_not_count(tmp_path):
    """A14: with a line win only the stack rule can award a jackpot."""
    game = toy_game(tmp_path, [["MINI", "CHERRY", "BLANK", "LEMON"]] * 3)
    # stop 0: line 2 MINI MINI MINI, line 1 C C C = 5.  The line win takes the nudge
    # route: tops are MINI (not CHERRY): no nudge; MINI on top of CHERRY on every reel
    # -> the Mini after all, by R16 (40 coins): 5 + 40 = 45.
    check_all(game, 1, (0, 0, 0), total=45, landing=5, pays=1, jackpot="Mini")
    assert exact_round(game, 1, (0, 0, 0))[4] == gs.PATH_NUDGE
    # MINI on line 2 but the win on line 3 (no CHERRY under the MINI): no jackpot
    game2 = toy_game(tmp_path, [["MINI", "BLANK", "CHERRY", "LEMON"]] * 3, name="toy2")
    check_all(game2, 1, (0, 0, 0), total=5, landing=5, pays=1, jackpot=None)


# ---------------------------------------------------------------- validation
def test_a_strip_of_one_symbol_is_rejected(tmp_path):
    """R12: a nudge on a strip of only CHERRY would never end."""
    with pytest.raises(GameFileError) as err:
        toy_game(tmp_path, [["CHERRY"] * 5, CAPPED, CAPPED])
    assert err.value.field == "reels.base[0]" and "never end" in err.value.problem


@pytest.mark.parametrize(
    "path, value, field",
    [
        (("arrow",), "LEMON", "options.arrow"),
        (("arrow_becomes",), "ARROW", "options.arrow_becomes"),
        (("jackpots", 0, "symbol"), "NOPE", "options.jackpots[0].symbol"),
        (("jackpots", 1, "pay_per_level"), 20, "options.jackpots"),
        (("progressive", "meter_rate"), "abc", "options.progressive.meter_rate"),
        (("network", "players"), -3, "options.network.players"),
        (("colour",), "red", "options.colour"),
    ],
)
def test_bad_options_name_the_field(tmp_path, path, value, field):
    data = yaml.safe_load(REAL.read_text())
    opts = data["options"]
    target = opts
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    with pytest.raises(GameFileError) as err:
        toy_game(tmp_path, [CAPPED] * 3, options=opts)
    assert err.value.field == field


def test_cli_rejects_an_endless_nudge(tmp_path, capsys):
    from slotmath.cli import main

    toy_game(tmp_path, [CAPPED] * 3)
    path = tmp_path / "toy" / "game.yaml"
    data = yaml.safe_load(path.read_text())
    data["reels"]["base"][1] = ["LEMON"] * 4
    path.write_text(yaml.safe_dump(data))
    assert main(["par", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "reels.base[1]" in err and "never end" in err
