"""Rules modules of games whose play goes beyond lines and scatters.

A game file with ``rules: <name>`` is analysed by ``slotmath.games.<name>``,
which provides ``analyse(game, level) -> ParResult``,
``simulate(game, level, spins, seed) -> SimulationResult`` and
``check(game)`` (raises :class:`slotmath.gamefile.GameFileError`).
"""
