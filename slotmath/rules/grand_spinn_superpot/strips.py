"""Grand Spinn Superpot reel strips: the designer's draft and the tuning run.

The committed strips (``data/games/grand_spinn_superpot/reels.csv``) are the
output of one run of the generic reel tuner (:mod:`slotmath.tuning.tune`) from the
draft ``data/games/grand_spinn_superpot/draft/reels.csv``; the command and its
targets are :data:`TUNE_ARGS` (docs/games/grand_spinn_superpot.md, section 8).

Draft layout (hand-made, :data:`LAYOUT`): classic fruit reels, mostly
cherries, lemons, oranges and plums in stacks of 2 and 3, the higher symbols
in pairs, blanks between blocks; up arrows and jackpot symbols sit directly
on top of stacks (an arrow or a jackpot symbol only acts on top of the
winning symbol's stack): Minis over low-fruit stacks, Midis over grapes,
melons and bells, one Super per reel over a pair of sevens; three lone
multiplier wilds per reel.  Draft weights (hand-made,
:func:`initial_weights`): a weight per symbol, stacks under a Mini weighted
up, the stops around the Super at most :data:`SUPER_WEIGHT`, each reel
scaled to :data:`REEL_WEIGHT`.

Tuning: the tuner moves the stop weights of the paying symbols, wilds and
blanks (the arrows and jackpot symbols keep their draft weights, so the
Super stays rare) until the exact RTP is 96.21 % at every bet level and the
hit frequency and jackpot odds are in their bands.  It reads the game's
exact per-stop coefficients from :func:`tuning_stop_values` (with the other
reels held, every figure here is linear in one reel's weights), so each
reel's integer programme is exact.

``python -m slotmath.rules.grand_spinn_superpot.strips`` writes the draft
from the layout and then runs the documented tuning command.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from slotmath.io.files import write_text_atomic
from slotmath.io.gamefile import GAMES_DIR
from slotmath.io.gamewriter import strips_csv
from slotmath.rules.grand_spinn_superpot.enumeration import JACKPOT, compile_rules, play_outcomes, stop_sums

GAME = "grand_spinn_superpot"
DRAFT = Path("draft") / "reels.csv"  # inside the game folder

#: Reel strips as blocks separated by a blank; symbols within a block are
#: adjacent ("SYMBOL*k" is a stack of k) and a cap (ARROW, MINI, MIDI,
#: SUPER) sits directly on top of the stack that follows it.
LAYOUT = (
    "MINI CHERRY*3 LEMON | ORANGE*2 CHERRY | LEMON*3 | PLUM*2 CHERRY | WILD | "
    "MIDI GRAPES*2 LEMON | CHERRY*2 ORANGE | MELON*2 | MINI LEMON*2 CHERRY | BELL*2 | ORANGE*3 | "
    "BAR CHERRY | MINI ORANGE*2 LEMON | SEVEN*2 | CHERRY*2 PLUM | SUPER SEVEN*2 | "
    "LEMON*2 ORANGE | ARROW PLUM*3 | WILD | CHERRY LEMON | MIDI MELON*2 | ORANGE CHERRY | "
    "ARROW GRAPES*2 | MINI PLUM*2 | CHERRY*3 | LEMON ORANGE | MIDI BELL*2 | CHERRY LEMON*2 | "
    "BAR*2 | "
    "GRAPES ORANGE | WILD",
    "CHERRY*3 | LEMON*2 ORANGE | MINI LEMON*3 | CHERRY PLUM*2 | MIDI MELON*2 | WILD | "
    "ORANGE*2 CHERRY | ARROW GRAPES*2 | MINI CHERRY*2 LEMON | BELL*2 | LEMON ORANGE*2 | SEVEN*2 | "
    "CHERRY*2 | MINI ORANGE*3 | BAR | PLUM*2 LEMON | SUPER SEVEN*2 | CHERRY LEMON | MINI PLUM*2 | "
    "WILD | GRAPES*2 CHERRY | MIDI BELL*2 | ORANGE CHERRY*2 | LEMON*2 | MIDI GRAPES*2 | "
    "CHERRY ORANGE | ARROW MELON*2 | LEMON CHERRY | BAR*2 | PLUM ORANGE | WILD",
    "MINI CHERRY*2 LEMON | ORANGE*2 | ARROW PLUM*2 | CHERRY*2 LEMON | WILD | MIDI GRAPES*2 | "
    "LEMON*3 | MINI LEMON*2 ORANGE | CHERRY*2 | BELL*2 | CHERRY*3 | ORANGE*2 PLUM | SEVEN*2 | "
    "LEMON CHERRY | BAR*2 | SUPER SEVEN*2 | MINI ORANGE*2 CHERRY | PLUM*2 | WILD | MIDI MELON*2 | "
    "LEMON*2 CHERRY | ARROW GRAPES*2 | MINI PLUM*2 | ORANGE LEMON | MIDI BELL*2 | CHERRY*2 | "
    "MELON*2 | "
    "ORANGE CHERRY | BAR | LEMON ORANGE",
)

#: Total stop weight of each reel (the cycle is REEL_WEIGHT ** 3).
REEL_WEIGHT = 1024
#: Largest weight of a stop (the tuning run's ``--weight`` limit).
MAX_WEIGHT = 48
#: Largest draft weight of the stops around a Super (the Super, its stack
#: and the two stops above it, which show the Super in the window).
SUPER_WEIGHT = 8

#: The documented tuning run: ``slotmath tune`` arguments after the game.
TUNE_ARGS = (
    "--draft",
    f"data/games/{GAME}/{DRAFT.as_posix()}",
    "--target-rtp",
    "96.21%",
    "--hit-frequency",
    "23.5%:24.5%",
    "--figure",
    "rtp:Mini=0.8%:0.96%",
    "--figure",
    "rtp:Midi=0.38%:0.48%",
    "--figure",
    "feature:super.hit_probability=2.5e-7:4.5e-7",
    "--free",
    "ARROW",
    "--free",
    "MINI",
    "--free",
    "MIDI",
    "--free",
    "SUPER",
    "--count",
    f"SUPER=1:{SUPER_WEIGHT}",
    "--weight",
    f"1:{MAX_WEIGHT}",
    "--shape",
    "off",
    "--out",
    f"data/games/{GAME}/game.yaml",
)


def parse_layout(layout=LAYOUT) -> list:
    """Symbol names of every reel's strip (a blank after every block)."""
    reels = []
    for text in layout:
        strip = []
        for block in text.split("|"):
            for tok in block.split():
                name, _, k = tok.partition("*")
                strip += [name] * int(k or 1)
            strip.append("BLANK")
        reels.append(strip)
    return reels


def weight_bounds(strip: list) -> list:
    """(lowest, highest) draft weight of every stop."""
    n = len(strip)
    bounds = [(1, MAX_WEIGHT)] * n
    for p, s in enumerate(strip):
        if s != "SUPER":
            continue
        near = {(p + d) % n for d in (-2, -1, 0)}
        q = p + 1
        while strip[q % n] == strip[(p + 1) % n]:
            near.add(q % n)
            q += 1
        for i in near:
            bounds[i] = (1, SUPER_WEIGHT)
    return bounds


def initial_weights(strip: list) -> list:
    """Hand-made starting weights, scaled to :data:`REEL_WEIGHT`."""
    base = {
        "CHERRY": 24,
        "LEMON": 18,
        "ORANGE": 14,
        "PLUM": 12,
        "GRAPES": 12,
        "MELON": 12,
        "BELL": 9,
        "BAR": 8,
        "SEVEN": 8,
        "WILD": 10,
        "BLANK": 8,
        "ARROW": 6,
        "MINI": 24,
        "MIDI": 10,
    }
    bounds = weight_bounds(strip)
    w = [base.get(s, 14) for s in strip]
    for p, s in enumerate(strip):  # stacks under a Mini land more often
        if s == "MINI":
            q = p + 1
            while strip[q % len(strip)] == strip[(p + 1) % len(strip)]:
                w[q % len(strip)] = round(1.5 * w[q % len(strip)])
                q += 1
    w = [min(max(x, lo), hi) for x, (lo, hi) in zip(w, bounds, strict=True)]
    free = [p for p, (lo, hi) in enumerate(bounds) if hi == MAX_WEIGHT]
    rest = REEL_WEIGHT - sum(w[p] for p in range(len(w)) if p not in set(free))
    scale = rest / sum(w[p] for p in free)
    for p in free:
        w[p] = max(1, min(MAX_WEIGHT, round(w[p] * scale)))
    diff = REEL_WEIGHT - sum(w)
    i = 0
    while diff:
        p = free[i % len(free)]
        step = 1 if diff > 0 else -1
        if 1 <= w[p] + step <= MAX_WEIGHT:
            w[p] += step
            diff -= step
        i += 1
    return w


def stop_values(rules) -> dict:
    """Per-stop coefficients of every figure: ``out[name][r][s]`` is the
    sum over the other reels' stops of their weight product times the
    figure's value in the round, for stop ``s`` of reel ``r``.

    Figures: ``rtp`` (coin win / total bet, the progressive excluded),
    ``hit_frequency`` (win > 0) and per jackpot its probability."""
    out = play_outcomes(rules, keep=True)
    jp = out.table[:, JACKPOT]
    win = out.win(rules.jp_coins)
    metrics = {"rtp": win / rules.total_bet, "hit_frequency": (win > 0) * 1.0}
    for k, j in enumerate(rules.options.jackpots):
        metrics[j.name] = (jp == k) * 1.0
    values = np.stack(list(metrics.values()), axis=1)
    sums = stop_sums(out.codes.ravel(), rules.weights.astype(np.float64), rules.lengths, values)
    R = rules.game.reels
    return {name: [sums[r, : rules.lengths[r], m] for r in range(R)] for m, name in enumerate(metrics)}


def tuning_stop_values(game, level: int, reel_set: str = "base") -> dict:
    """Exact per-stop coefficients of the tuned figures (the reel tuner's
    ``tuning_stop_values`` hook, see docs/tuning.md).

    Returns ``{figure: [a_0, a_1, a_2]}``: with the other reels held, the
    part of the figure that depends on reel ``r``'s weights ``x`` is
    ``a_r . x / prod_q sum(x_q)``.  Figures: ``rtp`` (coin win; the Super's
    contribution is a constant), ``hit_frequency``, ``rtp:<jackpot>`` of the
    fixed jackpots and ``feature:super.hit_probability``.
    """
    if reel_set != "base":
        raise ValueError("Grand Spinn Superpot has one reel set, base")
    rules = compile_rules(game, level)
    values = stop_values(rules)
    out = {"rtp": values["rtp"], "hit_frequency": values["hit_frequency"]}
    for k, j in enumerate(rules.options.jackpots):
        if j.pay_per_level is None:
            out[f"feature:{j.name.lower()}.hit_probability"] = values[j.name]
        else:
            coins = float(rules.jp_coins[k]) / rules.total_bet
            out[f"rtp:{j.name}"] = [a * coins for a in values[j.name]]
    return out


def draft_csv() -> str:
    """The draft reel set as CSV (the layout with its hand-made weights)."""
    from slotmath.model import Strip

    strips = parse_layout()
    return strips_csv([Strip(tuple(s), tuple(initial_weights(s))) for s in strips])


def main(argv=None) -> int:
    """Write the draft, then run the documented tuning command."""
    import subprocess

    folder = GAMES_DIR / GAME
    (folder / DRAFT).parent.mkdir(exist_ok=True)
    write_text_atomic(folder / DRAFT, draft_csv())
    return subprocess.call([sys.executable, "-m", "slotmath", "tune", GAME, *TUNE_ARGS])


if __name__ == "__main__":
    sys.exit(main())
