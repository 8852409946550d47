"""slotmath: exact slot-game mathematics.

The public API lives in its modules (imported on demand, so the command line
starts fast):

* :func:`slotmath.gamefile.load_game` reads and validates a game file into a
  :class:`slotmath.model.Game`;
* :func:`slotmath.par.par` gives its exact PAR figures (:class:`slotmath.par.ParResult`);
* :func:`slotmath.simulate.simulate` and :func:`slotmath.montecarlo.simulate`
  cross-check them by simulation;
* :func:`slotmath.tune.tune` tunes reel strips to targets;
* a game with its own rules names a module of :mod:`slotmath.games`.
"""

# The package version: the one place it is written (pyproject.toml reads it
# from here, see tool.setuptools.dynamic; CHANGELOG.md names its releases).
__version__: str = "0.1.0"
