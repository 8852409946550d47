"""The sampler slot of a feature: how the compiled round plays it.

A feature the round sampler (:mod:`slotmath.montecarlo.roundsim`) plays is
one :class:`SamplerSlot`, defined beside its compiled play (e.g.
:data:`slotmath.montecarlo.holdspinsim.HOLD_AND_SPIN_SLOT`) and named by its
:class:`~slotmath.features.kinds.FeatureKind` (``slot = "module:NAME"``: the
features are a layer below, importable without numba).  The round kernel
takes the slots of the registry (:func:`slot_args`, in the round's order)
as one tuple, unpacks them once into :data:`MAX_SLOTS` places
(:func:`slot_at`; the places past the last hold the empty slot, which never
starts) and calls each through :func:`slot_start`, :func:`slot_play` and
:func:`slot_play_free`, so it names none of them.

A slot is passed to the kernel as ``(SlotRef, args, column)``: a
:class:`SlotRef` is typed :class:`SlotType` keyed by the slot's name, so
the calls are resolved at compile time (static, ``start`` inlined) and the
compiled kernel is cached and reloaded across processes like any other.
Two alternatives fail: a dispatcher passed as an argument is typed by its
identity, so the kernel is recompiled in every process (and numba warns
that first-class functions are experimental); ``numba.literal_unroll``
over the slots reserves a stack slot per element and iteration
(``typed_getitem``), overflowing the stack after some thousand rounds.
A slot taken out of the tuple inside the round loop, or its args passed to a
function that is not inlined, costs a reference count update per array and
round (10 times the base spin's time on ``data/games/hold_and_spin``):
unpacked before the loop, with only the inlined ``start`` run every round
and ``play`` called when it starts, it costs none.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

import numba as nb
import numpy as np
from numba.core import types
from numba.core.imputils import lower_constant
from numba.extending import NativeValue, models, overload, register_model, typeof_impl, unbox

__all__ = [
    "SamplerSlot",
    "FreeReels",
    "SlotRef",
    "SlotType",
    "load_slot",
    "slot_args",
    "slot_start",
    "slot_play",
    "slot_play_free",
    "slot_at",
    "MAX_SLOTS",
    "symbol_count",
    "symbol_counts",
    "pick",
]


class FreeReels(NamedTuple):
    """The free games' reel set as their spins read it: its name and the
    symbols of its window at every stop, shape (reels, stops, rows) (a
    ``nudge`` wild filling its reel)."""

    reels: str
    windows: np.ndarray


@dataclass(frozen=True, eq=False)
class SamplerSlot:
    """One feature's part of the compiled round (:mod:`slotmath.montecarlo.roundsim`).

    Attributes
    ----------
    args : callable
        ``args(game, level, at, free) -> (args, names)``: a tuple of arrays
        the njit functions read, and the names of the events they count
        (from index ``at`` of the round's events); ``free`` is the
        :class:`FreeReels` of the game's free games, or None.  A game not
        declaring the feature gets arrays of the same numba types that never
        start it, and no events, so one compiled kernel serves every game.
    start : numba dispatcher
        njit ``start(stop, args) -> int``: its key read off the base window
        at ``stop`` (the stop per reel), -1 when it does not start.  Inlined
        in the kernel's loop (``inline="always"``): it runs every round.
    play : numba dispatcher
        njit ``play(rng, key, args, events) -> (award, games, multiplier)``:
        plays it from ``key``, adds its events to ``events``; its award [x
        total bet], and the free games it awards (0: none), played by the
        kernel on the declared free reels at ``multiplier`` and paid in its
        component.
    play_free : numba dispatcher
        njit ``play_free(rng, fstop, args, events) -> float``: its start and
        play inside a free game whose window is at ``fstop``: its award [x
        total bet], 0.0 when it does not start there.
    silent : callable
        ``silent(args) -> args``: the args of a bought round's base spin,
        which starts none (the free games may).
    """

    args: Callable[..., tuple]
    start: Any
    play: Any
    play_free: Any
    silent: Callable[[tuple], tuple]


def load_slot(ref: str) -> SamplerSlot:
    """The :class:`SamplerSlot` named ``"module:NAME"``."""
    module, name = ref.split(":")
    slot = getattr(importlib.import_module(module), name)
    if not isinstance(slot, SamplerSlot):
        raise TypeError(f"{ref} is not a SamplerSlot")
    return slot


class SlotRef:
    """A slot passed to a compiled kernel, by its name ``"module:NAME"``
    (pickles as its name)."""

    def __init__(self, ref: str) -> None:
        self.ref = ref

    def __reduce__(self):
        return (SlotRef, (self.ref,))

    def __repr__(self) -> str:
        return f"SlotRef({self.ref!r})"


class SlotType(types.Type):
    """The numba type of a :class:`SlotRef`: no data, keyed by the slot's name."""

    def __init__(self, ref: str) -> None:
        self.ref = ref
        super().__init__(name=f"SamplerSlot({ref})")

    def __reduce__(self):
        return (SlotType, (self.ref,))


@typeof_impl.register(SlotRef)
def _typeof_slot(val, c):
    return SlotType(val.ref)


register_model(SlotType)(models.OpaqueModel)


@unbox(SlotType)
def _unbox_slot(typ, obj, c):
    return NativeValue(c.context.get_dummy_value())


@lower_constant(SlotType)
def _constant_slot(context, builder, ty, pyval):
    return context.get_dummy_value()


def slot_start(slot, stop, args):
    """njit: ``start`` of the slot typed by ``slot``."""
    raise NotImplementedError("compiled kernels only")


def slot_play(slot, rng, key, args, events):
    """njit: ``play`` of the slot typed by ``slot``."""
    raise NotImplementedError("compiled kernels only")


def slot_play_free(slot, rng, fstop, args, events):
    """njit: ``play_free`` of the slot typed by ``slot``."""
    raise NotImplementedError("compiled kernels only")


@overload(slot_start, inline="always")
def _start(slot, stop, args):
    if slot.ref == NO_SLOT:
        return lambda slot, stop, args: -1
    fn = load_slot(slot.ref).start

    def impl(slot, stop, args):
        return fn(stop, args)

    return impl


@overload(slot_play, inline="always")
def _play(slot, rng, key, args, events):
    if slot.ref == NO_SLOT:
        return lambda slot, rng, key, args, events: (0.0, 0, 0.0)
    fn = load_slot(slot.ref).play

    def impl(slot, rng, key, args, events):
        return fn(rng, key, args, events)

    return impl


@overload(slot_play_free, inline="always")
def _play_free(slot, rng, fstop, args, events):
    if slot.ref == NO_SLOT:
        return lambda slot, rng, fstop, args, events: 0.0
    fn = load_slot(slot.ref).play_free

    def impl(slot, rng, fstop, args, events):
        return fn(rng, fstop, args, events)

    return impl


def slot_args(kinds, game, level: int, at: int, free: FreeReels | None) -> tuple:
    """``((SlotRef, args) per kind of ``kinds`` with a ``slot``, event
    names)``: each slot's :attr:`SamplerSlot.args` for ``game`` at bet
    ``level``, its events counted after the previous one's, from ``at``."""
    out: list = []
    names: tuple = ()
    for kind in kinds:
        if kind.slot is None:
            continue
        args, own = load_slot(kind.slot).args(game, level, at + len(names), free)
        out.append((SlotRef(kind.slot), args))
        names += tuple(own)
    return tuple(out), names


def symbol_counts(game, sym: np.ndarray, symbol: str) -> np.ndarray:
    """Count of ``symbol`` in the window at every stop, shape (reels, stops),
    of the windows ``sym`` (reels, stops, rows): the ``trig`` of :func:`symbol_count`."""
    return (sym == game.symbol_index[symbol]).sum(axis=2).astype(np.int64)


@nb.njit(cache=True, inline="always")
def symbol_count(stop, trig):
    """Sum over reels of ``trig[r, stop[r]]`` (a symbol's count in the window at ``stop``)."""
    c = 0
    for r in range(stop.shape[0]):
        c += trig[r, stop[r]]
    return c


@nb.njit(cache=True)
def pick(rng, cum):
    """Index drawn with the cumulative probabilities ``cum``."""
    i = np.searchsorted(cum, rng.random() * cum[-1], side="right")
    return min(i, cum.shape[0] - 1)


#: The most slots a kernel plays (:func:`slot_at`): the round kernel unpacks
#: this many before its loop (a slot taken out of the tuple inside the loop
#: costs a reference count update per array and round).
MAX_SLOTS = 6
#: The empty slot: never starts, awards nothing (the places past the last slot).
NO_SLOT = ""


def slot_at(slots, i):
    """njit: ``(SlotRef, args, column)`` of ``slots[i]`` (``i`` a constant),
    or the empty slot :data:`NO_SLOT` past the last one."""
    raise NotImplementedError("compiled kernels only")


@overload(slot_at, inline="always", prefer_literal=True)
def _slot_at(slots, i):
    if not isinstance(i, types.IntegerLiteral):
        return None
    if i.literal_value < len(slots):
        k = i.literal_value

        def impl(slots, i):
            return slots[k]

        return impl
    empty = SlotRef(NO_SLOT)

    def none(slots, i):
        return (empty, (np.zeros(1, dtype=np.int64),), np.int64(0))

    return none
