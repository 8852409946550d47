"""Rules of games: the PAR dispatch (:mod:`.par`), plain line games
(:mod:`.linegame`) and one package per game whose play goes beyond lines and
scatters.

The rules contract: the module :func:`slotmath.io.rulenames.rules_module_name`
names for ``rules: <name>`` provides ``analyse(game, level) -> ParResult``,
``simulate(game, level, spins, seed) -> SimulationResult``, ``check(game)``
(raises :class:`slotmath.io.gamefile.GameFileError`) and optionally
``round_sampler`` and the tuning hooks.  A game package's ``__init__`` holds
only ``check``; the rest is imported from its ``analysis`` module when first
used, so validating a game file stays light.
"""
