"""Grand Spinn Superpot: a round step by step (pictures of the nudges)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from slotmath.engine.lines import compile_pays, line_pay
from slotmath.model import Game
from slotmath.pictures.frames import Frame, draw_frames
from slotmath.rules.grand_spinn_superpot.enumeration import compile_rules, play_all
from slotmath.rules.grand_spinn_superpot.options import parse_options


# ===========================================================================
# step by step (pictures)
# ===========================================================================
@dataclass(frozen=True)
class Step:
    """One step of a round as the player sees it.

    Attributes
    ----------
    kind : str
        ``land``, ``nudge``, ``arrow``, ``jackpot`` or ``end``.
    reel : int or None
        Reel moved (0-based).
    stops : tuple
        Stop of every reel after the step.
    window : ndarray of str, shape (R, H)
        Symbols shown (a used arrow shows as the blank).
    pay : int
        Coins paid by this step.
    total : int
        Coins paid so far in the round.
    text : str
    highlight : ndarray of bool, shape (R, H)
    """

    kind: str
    reel: int | None
    stops: tuple
    window: np.ndarray
    pay: int
    total: int
    text: str
    highlight: np.ndarray

    def frame(self) -> Frame:
        return Frame(self.window, self.text, self.highlight)


def play_steps(game: Game, level: int, stops) -> list:
    """Play a round from landing ``stops`` step by step, for display.

    A plain-Python reading of the rules (the reels actually move, the arrow
    is blanked in place); the totals agree with :func:`play_round`.
    """
    opts = parse_options(game)
    idx = game.symbol_index
    strips = [s.symbols for s in game.strips()]
    R, H = game.reels, game.rows
    cp = compile_pays(game, level)
    bet = game.bet(level)
    stops = [int(s) % len(strips[r]) for r, s in enumerate(stops)]
    blanked = [None] * R
    jp_of = {j.symbol: k for k, j in enumerate(opts.jackpots)}

    def cell(r, pos):
        pos %= len(strips[r])
        return opts.arrow_becomes if blanked[r] == pos else strips[r][pos]

    def window():
        return np.array([[cell(r, stops[r] + k) for k in range(H)] for r in range(R)], dtype=object)

    def mask(cells):
        m = np.zeros((R, H), dtype=bool)
        for r, k in cells:
            m[r, k] = True
        return m

    win0 = window()
    line_results = []
    for line_no, line in enumerate(game.paylines):
        x = np.array([idx[win0[r, line[r]]] for r in range(R)], dtype=np.int64)
        w, e, m = line_pay(x, cp.arrays)
        if w > 0:
            line_results.append((line_no, int(w), int(e), int(m)))
    landing = sum(w for _, w, _, _ in line_results)
    steps = []
    if landing == 0:
        best = -1
        best_line = None
        for line_no, line in enumerate(game.paylines):
            cells = [win0[r, line[r]] for r in range(R)]
            if all(c in jp_of for c in cells):
                low = min(jp_of[c] for c in cells)
                if low > best:
                    best, best_line = low, line_no
        steps.append(Step("land", None, tuple(stops), win0, 0, 0, "landing: no line win", mask([])))
        if best >= 0:
            j = opts.jackpots[best]
            coins = 0 if j.pay_per_level is None else j.pay_per_level * bet.level
            cells = [(r, game.paylines[best_line][r]) for r in range(R)]
            steps.append(
                Step(
                    "jackpot",
                    None,
                    tuple(stops),
                    win0,
                    coins,
                    coins,
                    f"{j.name} jackpot: 3 jackpot symbols on line {best_line + 1}",
                    mask(cells),
                )
            )
        return steps
    # winning symbol: highest line win, then first pay entry, then lowest line
    top_line = min(line_results, key=lambda t: (-t[1], t[2], t[0]))
    x = next(iter(game.line_pays[top_line[2]].positions[0]))
    cells = [(r, game.paylines[line_no][r]) for line_no, *_ in line_results for r in range(R)]
    total = landing
    desc = ", ".join(
        f"line {line_no + 1}: {game.line_pays[e].name}{f' x{m}' if m > 1 else ''} = {w}"
        for line_no, w, e, m in line_results
    )
    steps.append(
        Step(
            "land",
            None,
            tuple(stops),
            win0,
            landing,
            total,
            f"landing: {desc}; winning symbol {x}",
            mask(cells),
        )
    )
    for r in range(R):
        n = len(strips[r])
        guard = 0
        while True:
            guard += 1
            if guard > 2 * n + 2:
                raise RuntimeError(f"reel {r + 1}: the nudge does not end")
            top = cell(r, stops[r])
            if top == x:
                stops[r] = (stops[r] - 1) % n
                total += landing
                steps.append(
                    Step(
                        "nudge",
                        r,
                        tuple(stops),
                        window(),
                        landing,
                        total,
                        f"reel {r + 1} nudges down: pays {landing} again",
                        mask([(r, k) for k in range(H) if cell(r, stops[r] + k) == x]),
                    )
                )
            elif top == opts.arrow and cell(r, stops[r] + 1) == x:
                blanked[r] = stops[r] % n
                bottom = stops[r] + 1
                while cell(r, bottom + 1) == x:
                    bottom += 1
                stops[r] = (bottom - 1) % n
                total += landing
                steps.append(
                    Step(
                        "arrow",
                        r,
                        tuple(stops),
                        window(),
                        landing,
                        total,
                        f"reel {r + 1} up arrow: back to the bottom of the {x} stack, pays {landing} again",
                        mask([(r, k) for k in range(H) if cell(r, stops[r] + k) == x]),
                    )
                )
            else:
                break
    final = window()
    ranks = []
    for r in range(R):
        t, below = final[r, 0], final[r, 1]
        ranks.append(jp_of[t] if t in jp_of and below == x else None)
    if all(k is not None for k in ranks):
        j = opts.jackpots[min(ranks)]
        coins = 0 if j.pay_per_level is None else j.pay_per_level * bet.level
        total += coins
        steps.append(
            Step(
                "jackpot",
                None,
                tuple(stops),
                final,
                coins,
                total,
                f"{j.name} jackpot: a jackpot symbol on top of every {x} stack",
                mask([(r, 0) for r in range(R)]),
            )
        )
    steps.append(Step("end", None, tuple(stops), final, 0, total, f"round pays {total} coins", mask([])))
    return steps


def steps_frame(steps: list) -> pd.DataFrame:
    """The steps of a round as a table (step, kind, reel, stops, pay, total, text)."""
    return pd.DataFrame(
        [
            {
                "step": i + 1,
                "kind": s.kind,
                "reel": None if s.reel is None else s.reel + 1,
                "stops": s.stops,
                "pay [coins]": s.pay,
                "total [coins]": s.total,
                "what happens": s.text,
            }
            for i, s in enumerate(steps)
        ]
    )


EXAMPLES = ("any", "win", "nudge", "arrow", "jackpot", "max win")


def example_stops(game: Game, level: int, kind: str = "any", seed: int = 0) -> tuple:
    """Stops of a round drawn with the game's stop weights, given that it is
    of ``kind`` (:data:`EXAMPLES` or a jackpot name such as ``"Mini"``).

    ``"any"`` is a plain seeded spin; the others draw among the stop
    combinations with that outcome (from the enumeration), weighted.
    """
    rules = compile_rules(game, level)
    rounds = play_all(rules)
    names = [j.name for j in rules.options.jackpots]
    masks = {
        "any": np.ones(rounds.win.shape, dtype=bool),
        "win": rounds.win > 0,
        "nudge": rounds.nudges > 0,
        "arrow": rounds.arrow_pays > 0,
        "jackpot": rounds.jackpot >= 0,
        "max win": rounds.win == rounds.win.max(),
    }
    for k, name in enumerate(names):
        masks[name] = rounds.jackpot == k
    if kind not in masks:
        raise ValueError(f"unknown example {kind!r} (choose from {', '.join(masks)})")
    idx = np.argwhere(masks[kind] & (rounds.weight > 0))
    if not len(idx):
        raise ValueError(f"no round of kind {kind!r}")
    w = rounds.weight[tuple(idx.T)].astype(np.float64)
    pick = np.random.default_rng(seed).choice(len(idx), p=w / w.sum())
    return tuple(int(v) for v in idx[pick])


def draw_round(game: Game, level: int, stops, ncols: int = 4):
    """Every step of the round from ``stops`` as a figure (see :mod:`slotmath.pictures.frames`)."""
    steps = play_steps(game, level, stops)
    frames = [
        Frame(
            s.window,
            f"{i + 1}. {s.text}" if len(s.text) < 60 else f"{i + 1}. {s.kind}: {s.pay} (total {s.total})",
            s.highlight,
        )
        for i, s in enumerate(steps)
    ]
    return draw_frames(game, frames, ncols=ncols, title=f"{game.title}: stops {tuple(stops)}")
