"""The random feature games of the tuning bench (slotmath.tuning.randgame)."""

from __future__ import annotations

import pytest

from slotmath.io.gamefile import load_game
from slotmath.rules.linegame import components
from slotmath.tuning.randgame import game_yaml, random_game


@pytest.mark.parametrize("features", [("free",), ("hold",), ("free", "hold")])
def test_feature_draft_near_its_target(tmp_path, features):
    # the draft is scaled to target - gap: lines, scatters, free games and coin values scale with
    # the pays, the jackpots do not (RTP ~ a x factor + b, one secant step); coin values rounded
    # to tenths of the total bet leave the draft within about 1.5 pp of 94.5 %, below the target
    path = random_game(tmp_path / "g", 301, target=0.96, gap=0.015, features=features)
    parts = components(load_game(path), 1)
    assert abs(float(sum(parts.values())) - 0.945) < 0.015
    for name in {"free": "free_games", "hold": "hold_and_spin"}.values():
        assert (name in parts) == (name[:4] in "".join(features))
        assert name not in parts or parts[name] > 0


def test_features_refused_where_not_built():
    with pytest.raises(ValueError, match="free games need the scatter"):
        game_yaml(1, scatter=False, features=("free",))
    with pytest.raises(ValueError, match="hold-and-spin 5 reels"):
        game_yaml(1, reels=3, features=("hold",))
    with pytest.raises(ValueError):
        game_yaml(1, features=("nudge",))
