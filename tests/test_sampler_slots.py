"""Each feature's sampler slot is named by its kind, and the compiled round
iterates the slots without naming a feature (slotmath.montecarlo.slots)."""

from __future__ import annotations

import ast
import pickle
from pathlib import Path

import numba as nb
import numpy as np

from slotmath.features.registry import feature_kinds
from slotmath.montecarlo import roundsim
from slotmath.montecarlo.slots import (
    MAX_SLOTS,
    SamplerSlot,
    SlotRef,
    load_slot,
    slot_at,
    slot_play,
    slot_play_free,
    slot_start,
)

SLOTTED = [k for k in feature_kinds() if k.slot is not None]


def test_the_slotted_kinds_are_the_features_the_sampler_plays_in_a_slot():
    """The registry's order is the round's play order; each slot is checked
    by the conformance check (slotmath.testing.featurecheck, "slot")."""
    assert [k.key for k in SLOTTED] == ["hold_and_spin", "lockit", "wheel", "selection"]
    assert len(SLOTTED) <= MAX_SLOTS
    for kind in SLOTTED:
        assert isinstance(load_slot(kind.slot), SamplerSlot)
        assert kind.component in roundsim.COMPONENTS


def test_a_slot_ref_pickles_by_name_and_types_by_name():
    ref = SlotRef("slotmath.montecarlo.prizesim:WHEEL_SLOT")
    again = pickle.loads(pickle.dumps(ref))
    assert again.ref == ref.ref
    assert nb.typeof(again) == nb.typeof(ref)
    assert nb.typeof(ref) != nb.typeof(SlotRef("slotmath.montecarlo.prizesim:SELECTION_SLOT"))


# A toy slot, defined only here: it starts when reel 0 stops below 2, pays
# 1 + that stop [x total bet], counts one event and awards no free games.
@nb.njit
def _toy_start(stop, args):
    return stop[0] if stop[0] < args[0][0] else -1


@nb.njit
def _toy_play(rng, key, args, events):
    events[args[1][0]] += 1
    return 1.0 + key, 0, 0.0


@nb.njit
def _toy_free(rng, fstop, args, events):
    return 0.0


TOY = SamplerSlot(
    lambda game, level, at, free: ((np.array([2]), np.array([at])), ("toy starts",)),
    _toy_start,
    _toy_play,
    _toy_free,
    lambda args: args,
)


@nb.njit
def _toy_kernel(slots, stops):
    """The round kernel's use of the slots: unpacked once, each started and
    played into its column."""
    comp = np.zeros(4)
    events = np.zeros(2, dtype=np.int64)
    r0, a0, c0 = slot_at(slots, 0)
    r1, a1, c1 = slot_at(slots, 1)
    for i in range(stops.shape[0]):
        key = slot_start(r0, stops[i], a0)
        if key >= 0:
            comp[c0] += slot_play(r0, None, key, a0, events)[0]
        key = slot_start(r1, stops[i], a1)  # the empty place: never starts
        if key >= 0:
            comp[0] += 100.0
        comp[3] += slot_play_free(r1, None, stops[i], a1, events)
    return comp, events


def test_a_toy_slot_plays_through_the_slot_calls():
    """Hand-worked: stops of reel 0 = 0, 1, 2, 5 start the toy at 0 and 1,
    paying (1 + 0) + (1 + 1) = 3 in its column 2, two events."""
    args, names = TOY.args(None, 1, 1, None)
    assert names == ("toy starts",)
    stops = np.array([[0, 0], [1, 3], [2, 0], [5, 1]], dtype=np.int64)
    ref = SlotRef(f"{__name__}:TOY")
    comp, events = _toy_kernel(((ref, args, np.int64(2)),), stops)
    assert comp.tolist() == [0.0, 0.0, 3.0, 0.0]
    assert events.tolist() == [0, 2]


def test_the_round_kernel_names_no_slotted_feature():
    """roundsim's code (docstrings and comments aside) names no slotted
    feature, none of its functions and imports none of their modules."""
    tree = ast.parse(Path(roundsim.__file__).read_text())
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.FunctionDef | ast.ClassDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.Attribute):
            names.add(node.attr)
        elif isinstance(node, ast.ImportFrom):
            names.add(node.module or "")
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            names.add(node.value)
    for name in names:
        for word in ("hold", "lockit", "wheel", "selection", "prizesim"):
            assert word not in name.lower(), (word, name)
