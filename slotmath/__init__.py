"""slotmath: exact slot-game mathematics.

The public API lives in its modules (imported on demand, so the command line
starts fast):

* :func:`slotmath.io.gamefile.load_game` reads and validates a game file into a
  :class:`slotmath.model.Game`;
* :func:`slotmath.rules.par.par` gives its exact PAR figures (:class:`slotmath.rules.par.ParResult`);
* :func:`slotmath.montecarlo.results.simulate_lines` and
  :func:`slotmath.analysis.simulation.simulate_game`
  cross-check them by simulation;
* :func:`slotmath.tuning.tune.tune` tunes reel strips to targets;
* a game names its rules by a registered name
  (:func:`slotmath.rules.registry.rules_for`, :class:`slotmath.rules.contract.Rules`).
"""

# The package version: the one place it is written (pyproject.toml reads it
# from here, see tool.setuptools.dynamic; CHANGELOG.md names its releases).
__version__: str = "0.1.0"
