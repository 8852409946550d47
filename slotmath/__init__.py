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

# Exact figures are Fractions whose numerators and denominators can run to
# thousands of digits (a hold-and-spin on 64 cells: about 8,000); they are
# written out in full (``rtp_exact``), so Python's default limit of 4,300
# digits on int-to-text conversion is lifted for the process.
import sys as _sys

if hasattr(_sys, "set_int_max_str_digits"):
    _sys.set_int_max_str_digits(0)
