"""Variable reel heights benchmark: exact RTP and law of a ways game whose
reel heights are drawn per spin (``grid.heights``), and its growth.

Times (medians after a warm-up, numba compilation excluded, memoised
results cleared before every run) of the full exact PAR (combination table,
RTP by component, the law of the round's win) of ``data/games/megaways_heights``
(6 reels, heights 2-7, target: under 30 s), then of generated games with
R = 3..6 reels and heights 2..Hmax (the same symbols and strips) to show the
growth with reels and heights; ``--plot FILE`` draws it (log scale).
``--top`` times a copy of the game with a top reel over reels 2-5
(``grid.top_reel``, :data:`TOP_STRIP`; the committed game is unchanged).

Usage: ``python benchmarks/bench_reel_heights.py [--repeat N] [--growth] [--plot FILE] [--top]``
"""

from __future__ import annotations

import argparse
import copy
from pathlib import Path

import yaml

from slotmath.io.gamefile import GAMES_DIR, build_game, load_game
from slotmath.rules.par import par

from timing import forget_cached_results, median_time

GAME = "megaways_heights"


def growth_game(reels: int, top: int):
    """``megaways_heights`` cut to ``reels`` reels and heights 2..``top``
    (weights as in the game, truncated), without its free games."""
    data = yaml.safe_load((Path(GAMES_DIR) / GAME / "game.yaml").read_text())
    data = copy.deepcopy(data)
    data["grid"] = {
        "reels": reels,
        "rows": top,
        "heights": {"weights": [p for p in data["grid"]["heights"]["weights"] if p[0] <= top]},
    }
    data["reels"] = {"base": data["reels"]["base"][:reels]}
    data["pays"] = [p for p in data["pays"] if p["count"] <= reels]
    data["scatters"] = [s for s in data.get("scatters", []) if s["count"] <= reels]
    data.pop("options", None)
    return build_game(data, Path(f"{GAME}_{reels}x{top}.yaml"), f"{GAME}_{reels}x{top}")


#: the top reel of the ``--top`` copy: 24 stops (every paying symbol, two
#: WILDs, one SCATTER, BRICKs); its free strip has one BRICK more a WILD
TOP_STRIP = (
    "LION BRICK TIGER ACE BEAR BRICK WILD ACE TIGER BRICK BEAR SCATTER "
    "ACE LION BRICK TIGER BEAR ACE BRICK WILD TIGER BEAR BRICK ACE"
).split()


def top_reel_game():
    """``megaways_heights`` with a top reel over reels 2-5 (:data:`TOP_STRIP`
    on the base reels; on the free reels its first BRICK a WILD)."""
    data = copy.deepcopy(yaml.safe_load((Path(GAMES_DIR) / GAME / "game.yaml").read_text()))
    free = list(TOP_STRIP)
    free[free.index("BRICK")] = "WILD"
    data["grid"]["top_reel"] = {"over": [2, 3, 4, 5], "strips": {"base": list(TOP_STRIP), "free": free}}
    return build_game(data, Path(f"{GAME}_top.yaml"), f"{GAME}_top")


def timed(game, repeat: int) -> tuple:
    """(median seconds of the full exact PAR, its result)."""
    par(game)  # warm-up: compile

    def run():
        forget_cached_results()
        return par(game)

    return median_time(run, repeat), par(game)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--growth", action="store_true", help="time the generated games too")
    ap.add_argument("--plot", help="write the growth plot here (with --growth)")
    ap.add_argument("--top", action="store_true", help="time the copy with a top reel only")
    args = ap.parse_args(argv)
    if args.top:
        game = top_reel_game()
        seconds, result = timed(game, args.repeat)
        print(f"{game.name}: cycle {result.cycle:.6g}, RTP {float(result.rtp):.6%} = {result.rtp}")
        print(f"  {', '.join(f'{k} {float(v):.6%}' for k, v in result.components.items())}")
        print(f"  full exact PAR (RTP and law): {seconds:.2f} s (target 30 s)")
        return
    game = load_game(GAME)
    seconds, result = timed(game, args.repeat)
    print(f"{GAME}: cycle {result.cycle:,}, RTP {float(result.rtp):.6%} = {result.rtp}")
    print(f"  full exact PAR (RTP and law): {seconds:.2f} s (target 30 s)")
    if not args.growth:
        return
    rows = []
    print(f"{'reels':>5} {'heights':>8} {'most ways':>10} {'cycle':>12} {'seconds':>8}")
    for reels in range(3, 7):
        for top in (3, 5, 7):
            g = growth_game(reels, top)
            s, r = timed(g, args.repeat)
            rows.append((reels, top, s))
            print(f"{reels:>5} {'2-' + str(top):>8} {g.ways_or_lines:>10,} {r.cycle:>12.3g} {s:>8.3f}")
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(6, 4))
        for top in (3, 5, 7):
            pts = [(r, s) for r, t, s in rows if t == top]
            ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-", label=f"heights 2-{top}")
        ax.set_yscale("log")
        ax.set_xlabel("reels")
        ax.set_ylabel("full exact PAR [s]")
        ax.legend()
        fig.tight_layout()
        fig.savefig(args.plot)


if __name__ == "__main__":
    main()
