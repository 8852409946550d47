"""Bounded memory (issue 14, point 3): ``slotmath par`` on Grand Spinn
Superpot with every strip repeated four times (460/440/420 stops, 85 million
stop combinations) stays under 1 GB of resident memory.

The enumeration keeps the total weight of each distinct outcome, not the
rounds; before, it kept eight int64 arrays of the 85 million rounds and
peaked at 6.2 GB.  The run takes 10-20 s; its figures are those of the
original game (repeating a weighted strip leaves every probability as it
was), which shows the run did the whole analysis.  Peak memory of every
example game: ``benchmarks/bench_memory.py``.
"""

from __future__ import annotations

import json
import sys

from conftest import ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))
from bench_memory import peak_rss
from stress_games import stress_game

LIMIT_MB = 1024


def test_grand_spinn_with_reels_four_times_longer_stays_under_1_gb(tmp_path):
    game = stress_game("grand_spinn_x4", tmp_path)
    assert [len(s) for s in game.strips()] == [460, 440, 420]
    with open(tmp_path / "x4.json", "wb") as out:
        status, _, peak_mb = peak_rss(["par", tmp_path / "grand_spinn_x4", "--json"], stdout=out)
    assert status == 0
    assert peak_mb < LIMIT_MB, f"peak RSS {peak_mb:.0f} MB"
    with open(tmp_path / "base.json", "wb") as out:
        assert peak_rss(["par", "grand_spinn_superpot", "--json"], stdout=out)[0] == 0
    x4, base = (json.loads((tmp_path / f"{n}.json").read_text()) for n in ("x4", "base"))
    assert x4["cycle"] == 4**3 * base["cycle"]
    for key in ("rtp_exact", "hit_frequency", "max_win"):
        assert x4[key] == base[key], key
