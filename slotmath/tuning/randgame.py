"""Random but plausible line games for the tuning bench and tests (seeded).

:func:`random_game` writes a game folder (``game.yaml``) with a pay table of
high, medium and low symbols, a wild on the middle reels, optionally a
scatter that pays anywhere, and strips (weighted or not) on which low
symbols are common and high ones rare.  Line pays are scaled so that the
draft's RTP sits a chosen distance from a target, which is what a designer
hands to ``slotmath tune``.  Everything follows from the seed.

Feature games (``features``): ``"free"`` adds free games (3+ scatters
anywhere award 8-12 games on the base reels at x2 or x3, retriggered;
needs the scatter), ``"hold"`` a value-per-coin hold-and-spin (6+ COIN
anywhere, 3 resetting respins, every empty cell respinning on a reel set
``feature`` of COIN and BLANK, coin values from a weighted table with
MINI / MINOR / MAJOR and a GRAND for a full screen).
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import numpy as np

# payline patterns (row per reel), the first ones are the common ones
LINES_5 = [
    [1, 1, 1, 1, 1],
    [0, 0, 0, 0, 0],
    [2, 2, 2, 2, 2],
    [0, 1, 2, 1, 0],
    [2, 1, 0, 1, 2],
    [0, 0, 1, 2, 2],
    [2, 2, 1, 0, 0],
    [1, 0, 0, 0, 1],
    [1, 2, 2, 2, 1],
    [0, 1, 1, 1, 0],
    [2, 1, 1, 1, 2],
    [1, 0, 1, 2, 1],
    [1, 2, 1, 0, 1],
    [0, 1, 0, 1, 0],
    [2, 1, 2, 1, 2],
    [1, 1, 0, 1, 1],
    [1, 1, 2, 1, 1],
    [0, 2, 0, 2, 0],
    [2, 0, 2, 0, 2],
    [1, 0, 2, 0, 1],
    [1, 2, 0, 2, 1],
    [0, 0, 2, 0, 0],
    [2, 2, 0, 2, 2],
    [0, 2, 2, 2, 0],
    [2, 0, 0, 0, 2],
]
LINES_3 = [[1, 1, 1], [0, 0, 0], [2, 2, 2], [0, 1, 2], [2, 1, 0], [0, 1, 0], [2, 1, 2], [1, 0, 1], [1, 2, 1]]

# symbol, relative frequency on a strip, pays for 3/4/5 of a kind [line bet]
SYMBOLS = [
    ("H1", 2, (50, 200, 1000)),
    ("H2", 3, (30, 120, 500)),
    ("M1", 4, (20, 60, 240)),
    ("M2", 5, (16, 50, 200)),
    ("L1", 7, (10, 30, 100)),
    ("L2", 7, (10, 30, 100)),
    ("L3", 8, (8, 20, 80)),
    ("L4", 8, (8, 20, 80)),
]
PAY_SCALE = 10  # pays are written x10 so that scaling them rounds finely
#: the features :func:`game_yaml` can add
FEATURES = ("free", "hold")
# the hold-and-spin's coin values [x total bet] or jackpots, and their weights
COIN_VALUES = [
    (0.5, 300),
    (1, 400),
    (2, 250),
    (3, 150),
    (5, 80),
    (10, 30),
    ("MINI", 12),
    ("MINOR", 4),
    ("MAJOR", 1),
]
JACKPOTS = "{MINI: 10, MINOR: 25, MAJOR: 100, GRAND: 1000}"


def _strip(rng, names, freq, length):
    """A strip of ``length`` stops drawn with relative frequencies ``freq``
    (every symbol at least once), no symbol next to itself where avoidable."""
    p = np.asarray(freq, float) / np.sum(freq)
    counts = np.maximum(1, np.floor(p * length).astype(int))
    while counts.sum() < length:
        counts[rng.choice(len(names), p=p)] += 1
    while counts.sum() > length:
        counts[int(np.argmax(counts))] -= 1
    pool = [n for n, c in zip(names, counts, strict=True) for _ in range(c)]
    rng.shuffle(pool)
    for i in range(1, len(pool)):  # break neighbouring pairs by swapping forward
        if pool[i] == pool[i - 1]:
            for j in range(i + 1, len(pool)):
                if pool[j] != pool[i] and pool[j] != pool[i - 1]:
                    pool[i], pool[j] = pool[j], pool[i]
                    break
    return pool


def game_yaml(
    seed: int,
    reels: int = 5,
    lines: int = 25,
    weighted: bool = True,
    scatter: bool = True,
    length: int = 40,
    pay_factor: float = 1.0,
    features: tuple = (),
) -> str:
    """The text of a random game file (see the module notes)."""
    unknown = set(features) - set(FEATURES)
    if unknown or ("free" in features and not scatter) or ("hold" in features and reels != 5):
        raise ValueError(
            f"features {features!r}: each of {FEATURES}, free games need the scatter, "
            "the hold-and-spin 5 reels"
        )
    rng = np.random.default_rng(seed)
    names = [s for s, _, _ in SYMBOLS]
    freq = [f * rng.uniform(0.8, 1.25) for _, f, _ in SYMBOLS]
    pays_of = {s: p for s, _, p in SYMBOLS}
    kinds = range(3, reels + 1)
    out = [
        f"# Random plausible game, seed {seed} (slotmath.tuning.randgame).",
        f"name: rand{seed}",
        f"title: Random {reels}x3 {lines}-line game {seed}",
        "description: generated for the tuning bench.",
        f"grid: {{reels: {reels}, rows: 3}}",
        "bet: {levels: [1, 2, 5]}",
        "symbols:",
    ]
    out += [f"  - {{name: {n}}}" for n in names]
    out.append("  - {name: WILD, kind: wild, substitutes: all}")
    if scatter:
        out.append("  - {name: SCAT, kind: scatter}")
    if "hold" in features:
        out += ["  - {name: COIN, kind: scatter}", "  - {name: BLANK, kind: blank}"]
    patterns = (LINES_5 if reels == 5 else LINES_3)[:lines]
    out.append("paylines:")
    out += [f"  - {p}" for p in patterns]
    out.append("pays:")
    for n in names:
        base = pays_of[n] if reels == 5 else (pays_of[n][1],)
        for k, pay in zip(kinds, base, strict=True):
            v = max(1, int(round(pay * PAY_SCALE * pay_factor)))
            out.append(f"  - {{symbol: {n}, count: {k}, pay: {v}}}")
    if scatter:
        out.append("scatters:")
        sp = (10, 50, 250) if reels == 5 else (25,)
        for k, pay in zip(kinds, sp, strict=True):
            # a feature game's scatter pays scale with its line pays (tenths of the total bet)
            tenths = max(1, round(pay * 10 * pay_factor)) if features else pay * 10
            out.append(f"  - {{symbol: SCAT, count: {k}, pay: '{Fraction(tenths, 10)}'}}")
    out += ["reels:", "  base:"]
    rare = ("H1", "H2", "WILD", "SCAT", "COIN")
    for r in range(reels):
        syms = list(names)
        f = list(freq)
        if 0 < r < reels - 1 or reels == 3:
            syms.append("WILD")
            f.append(1.0)
        if scatter:
            syms.append("SCAT")
            f.append(1.2)
        if "hold" in features:
            syms.append("COIN")
            f.append(float(rng.uniform(1.0, 2.0)))
        strip = _strip(rng, syms, f, length)
        if "hold" in features:  # one stack of three COIN a reel, as hold-and-spin strips carry
            at = strip.index("COIN")
            for k in range(at + 1, at + 3):
                if strip[k % length] not in ("WILD", "SCAT"):
                    strip[k % length] = "COIN"
        if weighted:
            w = [int(rng.integers(1, 4)) if s in rare else int(rng.integers(2, 9)) for s in strip]
            out.append(f"    - {{symbols: [{', '.join(strip)}], weights: {w}}}")
        else:
            out.append(f"    - [{', '.join(strip)}]")
    if "hold" in features:
        out.append("  feature:")
        for _ in range(reels):
            blanks = int(rng.integers(12, 19))
            out.append(f"    - [COIN, {', '.join(['BLANK'] * blanks)}]")
    out += _feature_options(rng, features, pay_factor)
    return "\n".join(out) + "\n"


def _feature_options(rng, features: tuple, pay_factor: float) -> list:
    """The ``options`` lines of ``features`` (module notes); the coin values
    [x total bet] scale with the pays (tenths), the jackpots do not."""
    if not features:
        return []
    out = ["options:"]
    if "free" in features:
        games, mult = int(rng.choice([8, 10, 12])), int(rng.choice([2, 3]))
        out += [
            "  free_games:",
            "    symbol: SCAT",
            "    reels: base",
            f"    multiplier: {mult}",
            f"    awards: {{3: {{games: {games}}}}}",
            "    retrigger: true",
        ]
    if "hold" in features:
        out += [
            f"  jackpots: {JACKPOTS}",
            "  hold_and_spin:",
            "    symbol: COIN",
            "    trigger: 6",
            "    respins: 3",
            "    rule: reset",
            "    respin: cells",
            "    reels: feature",
            "    values:",
        ]
        for v, w in COIN_VALUES:
            prize = v if isinstance(v, str) else f"'{Fraction(max(1, round(v * 10 * pay_factor)), 10)}'"
            out.append(f"      - {{prize: {prize}, weight: {w}}}")
        out.append("    full_screen: GRAND")
    return out


def random_game(folder, seed: int, target: float = 0.96, gap: float = 0.015, **kw) -> Path:
    """Write a random game into ``folder`` (``game.yaml``) whose draft RTP is
    about ``target - gap`` [x total bet]: line pays (on a feature game, the
    scatter pays and coin values too, so the features' parts scale with
    them; the jackpots do not) are scaled, then rounded, from a first
    draft.  Returns the path of the game file."""
    from slotmath.io.gamefile import load_game
    from slotmath.rules.linegame import components

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "game.yaml"
    path.write_text(game_yaml(seed, **kw))
    parts = {k: float(v) for k, v in components(load_game(path), 1).items()}
    scaled = sum(parts.pop(k, 0.0) for k in ("lines", "free_games", "scatters" if kw.get("features") else ""))
    scaled += parts.pop("hold_and_spin", 0.0)  # its jackpots do not scale: a secant step follows
    factor = max(0.05, (target - gap - sum(parts.values())) / scaled) if scaled > 0 else 1.0
    path.write_text(game_yaml(seed, pay_factor=factor, **kw))
    if kw.get("features") and factor != 1.0:  # RTP = a x factor + b (jackpots, rounding): one secant step
        rtp0 = scaled + sum(parts.values())
        rtp1 = float(sum(components(load_game(path), 1).values()))
        slope = (rtp0 - rtp1) / (1.0 - factor)
        if slope > 0:
            factor = max(0.05, factor + (target - gap - rtp1) / slope)
            path.write_text(game_yaml(seed, pay_factor=factor, **kw))
    return path
