"""Feature mechanics shared by games: lock-it chains, shapes, nudges, free games, the
wheel and progressive jackpots, and the feature options a game file declares."""
