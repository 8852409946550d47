"""A bought round of free games whose wilds draw multipliers that do not fit
as stops (``modes.NAME.buy: {feature: free_games}`` beside
``options.wild_multipliers``): the mode's PAR and sampler play the free
spins' law from the draw profiles of their windows, as the base round's free
games do, instead of refusing the mode because the rewrite does not fit.

The game is ``tests/test_drawn_base.py``'s "plain" case (3 reels x 2 rows,
3 lines, total bet 3 coins; free games at x2, retriggered to ``max_games``
3; W draws x2 / x3 / x5 at weights 2 / 1 / 1 on both reel sets), with a mode
buying 2 free games at 5 x total bet.  The brute force plays every free
window and every draw of its wilds literally
(:func:`test_drawn_free.brute_spin`), game after game
(:func:`infree_brute.games_law`), in Fractions.
"""

from __future__ import annotations

from fractions import Fraction as F
from pathlib import Path

import pytest
from infree_brute import games_law
from test_drawn_base import BET, CASES, TABLE, assert_round, drawn_game
from test_drawn_free import brute_spin

from slotmath.io.gamefile import load_game
from slotmath.rules.linegame import drawn_law_refusal, drawn_too_large

COST = 5  # x total bet
GAMES = 2
MODES = f"modes:\n  buy: {{cost: {COST}, buy: {{feature: free_games, games: {GAMES}}}}}\n"


# the rewrite refused: a written stop may weigh at most 2 (test_drawn_base's fixture)
pytestmark = pytest.mark.usefixtures("refused")


def bought_game(write_game, combine: str):
    """The "plain" game of ``tests/test_drawn_base.py`` with the mode ``buy``."""
    path = Path(drawn_game(write_game, "plain", combine).source)
    path.write_text(path.read_text(encoding="utf-8") + MODES, encoding="utf-8")
    return load_game(path)


def brute_bought(game, combine: str) -> dict:
    """Law ``{round win [x total bet]: P}`` of the bought round: no base spin,
    ``GAMES`` free games played literally (each every window and draw of
    the free reels, its S count adding that count's games, at most
    ``max_games`` played), all at the multiplier."""
    _, _, again, mult, cap = CASES["plain"]
    strips = [s.symbols for s in game.strips("free")]
    per_game: dict = {}
    for (win, count), p in brute_spin(strips, combine, TABLE).items():
        at = (win, again.get(count, (0, 0))[1])
        per_game[at] = per_game.get(at, 0) + p
    return {F(mult * y, BET): q for y, q in games_law(per_game, GAMES, cap).items()}


@pytest.mark.parametrize("combine", ["add", "multiply"])
def test_the_bought_round_with_drawn_free_wilds_is_the_brute_force(write_game, combine):
    # before: `par --mode buy` refused the mode ("reel set 'free' with its
    # drawn multipliers written as stops has cycle ...") although the base
    # round of the same free games is computed from the draw profiles
    from slotmath.rules.modepar import mode_par

    game = bought_game(write_game, combine)
    assert drawn_too_large(game) and drawn_law_refusal(game) is None
    law = brute_bought(game, combine)
    result = mode_par(game, "buy")
    assert_round(result.par, law)  # RTP exact, the law win by win, hit frequency, SD
    assert result.rtp == sum((w * p for w, p in law.items()), F(0)) / COST
    assert set(result.par.components) == {"free_games"}


def test_the_bought_round_with_drawn_free_wilds_is_sampled(write_game):
    # before: `simulate --mode buy` refused the mode (the rewrite does not
    # fit); the sampler draws each W in the window, its mean and hit
    # frequency against the brute force's, |z| < 4 over 200,000 rounds
    from test_drawn_law import sampled_wins, z_of

    from slotmath.rules.modepar import buy_sampler
    from slotmath.rules.modes import mode_game, mode_of

    game = bought_game(write_game, "add")
    law = brute_bought(game, "add")
    x = sampled_wins(buy_sampler(mode_game(game, "buy"), mode_of(game, "buy"), 1), 200_000, 7)
    assert abs(z_of(x, float(sum(w * p for w, p in law.items())))) < 4
    hit = float(sum(p for w, p in law.items() if w > 0))
    assert 0 < hit < 1 and abs(z_of((x > 0).astype(float), hit)) < 4
