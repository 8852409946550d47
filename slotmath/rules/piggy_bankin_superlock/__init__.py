"""Piggy Bankin' Superlock (``rules: piggy_bankin_superlock``).

:mod:`.check` holds the game file checks (imported with the package);
:mod:`.analysis` is the exact analysis and the Monte Carlo sampler.  :mod:`.rules` puts
the game on the rules contract (:mod:`slotmath.rules.contract`); the
analysis's names are also looked up in :mod:`.analysis`, imported when first
asked for.

Generic modules the package is built on
---------------------------------------
* declarations: every feature is parsed by :mod:`slotmath.features.options`
  (lock-it, free games, selection, wheel, jackpots, award tables);
* lines: line RTP (:mod:`slotmath.engine.multilinear`), line moments and
  the no-win count (:mod:`slotmath.engine.moments`), the spin's win
  distribution (:func:`slotmath.engine.joint.spin_distribution`), prefix
  tables of the pay table (:mod:`slotmath.engine.lines`), combination table;
* lock-it: the Markov chain over held masks (:mod:`slotmath.features.lockit`,
  built by ``options.lockit_chain``), shape packing and shape counts
  (:mod:`slotmath.features.shapes`), the wheel (:mod:`slotmath.features.wheel`);
* free games: the round distribution of retriggered free games
  (:func:`slotmath.features.freegames.fourier_distribution`), the expanding
  WILD_3 (``expanding.nudged_game``);
* Monte Carlo: stop draw, line evaluation, the expanding wild of the free
  reels and weighted draws (:mod:`slotmath.montecarlo.linesim`,
  :mod:`slotmath.montecarlo.roundsim`), :class:`~slotmath.montecarlo.run.RoundSampler`;
* caching: :mod:`slotmath.engine.cache` (results keyed by the strips they
  read); merged stops of equal windows (:func:`slotmath.engine.reels.window_game`);
  lock-it prize moments by shape counts (:func:`slotmath.features.shapes.shape_prize_moments`).

What stays here, and why
------------------------
* the round (:mod:`.rtp`, :mod:`.screens`): what a base screen leads to
  depends on *where* its PIGGY land (shape packing of the final mask), on
  the WHEEL flag and on the BONUS count, and the selection offers two
  whole features (lock-it or free games with a lock-it inside each free
  spin).  The generic round (:mod:`slotmath.features.round`) values a
  feature by a count key; Piggy's key is (mask, flag, BONUS), 2**15 x 2 x 16
  values.  Its joint law with the line win is :func:`.screens.screens`, a
  walk over the feature-starting stop combinations only; the generic keyed
  forward pass (:func:`slotmath.engine.joint.spin_key_distribution`) carries
  every screen, and was slower even with a coarser key (per-reel PIGGY
  counts: 3.4 s against 1.0 s for the walk, base reels);
* the free spin's (win, extra games) table (:func:`.screens.free_spin_table`):
  a free spin's win includes a lock-it, which the generic free spin
  (:mod:`slotmath.features.freeround`, line and scatter win only) has not;
  its retrigger law is then the generic one;
* tuning (:mod:`.rtp`): value functions of the lock-it chains times the
  base screen counts, and the suffix-table walk for the round's moments
  (:func:`.rtp.round_moments`), so a base-reel change costs tens of ms;
* the sampler's round (:mod:`.sampler`): the order of the features, the
  lock-it respins on reel sets switched by the WHEEL mark, per-shape award
  tables with jackpot labels, the wheel (the stop draw, line evaluation
  and shape packing are the generic ones);
* pictures and tables of one lock-it played step by step (:mod:`.steps`).
"""

import importlib

from slotmath.rules.piggy_bankin_superlock.check import check

__all__ = ["check"]


_SUBMODULES = ("analysis", "cache", "check", "rtp", "rules", "sampler", "screens", "steps", "structure")


def __getattr__(name: str):
    if name.startswith("__") or name in _SUBMODULES:  # imported as modules, not looked up
        raise AttributeError(name)
    return getattr(importlib.import_module(f"{__name__}.analysis"), name)
