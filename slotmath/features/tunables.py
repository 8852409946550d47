"""What a feature lets a mathematician tune: its weighted tables (:class:`Tunable`).

Each :class:`~slotmath.features.kinds.FeatureKind` states, by its
``tunables(game)``, every weight table its exact method reads from the game
file: hold-and-spin coin ``values`` and ``start_values``, wheel
``segments``, a player's ``selection.choices``, the drawn wild multiplier
``table``, lock-it award tables.  The tuner (:mod:`slotmath.tuning.tablespace`)
offers these and nothing else: a list of weighted rows no feature reads is
never a variable.

A table is declared *inline* under ``options`` as ``{..., weight}`` rows or
``[value, weight]`` pairs; a table read from a CSV file is not a tunable.
Each :class:`Tunable` names the RTP components [x total bet] moving its
weights can change (a conformance check,
:func:`slotmath.testing.featurecheck.feature_checks` ``"tunables"``, moves
it on the feature's example game and refuses any other component that
moves) and ``degree``: the round's figures are polynomials of at most this
degree in the table's draw probabilities ``weight / total`` (1: each draw
pays once, so the RTP is linear in them; a product of ``k`` independent
draws, e.g. multiplying drawn wild multipliers, is of degree ``k``).
Under a round cap (``options.round_cap``) the round pays ``min(win, cap)``
of a win summed over many draws, which is no polynomial of a degree the
feature knows: ``degree`` is then None (no exact derivative, no joint
reach: :mod:`slotmath.tuning.sensitivity`, :mod:`slotmath.tuning.jointtune`).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Tunable", "inline_table", "entry_weight"]


def entry_weight(entry) -> int | None:
    """The integer draw weight of a table row (``{..., weight}`` or
    ``[value, weight]``), or None when it is not a weighted row."""
    if isinstance(entry, dict):
        w = entry.get("weight")
    elif isinstance(entry, list) and len(entry) == 2:
        w = entry[1]
    else:
        return None
    return w if isinstance(w, int) and not isinstance(w, bool) and w >= 0 else None


def _label(entry, i: int) -> str:
    if isinstance(entry, dict):
        for key in ("name", "prize", "value", "multiplier"):
            if key in entry:
                return str(entry[key])
        return str(i)
    return f"x{entry[0]}"


@dataclass(frozen=True)
class Tunable:
    """One weight table a feature reads.

    Attributes
    ----------
    path : str
        Its place in the game file, ``options.hold_and_spin.values``.
    labels : tuple of str
        Each row's prize, name or value.
    weights : tuple of int
        The draw weights in the game file.
    pairs : bool
        Rows are ``[value, weight]`` pairs (else ``{..., weight}`` mappings).
    components : tuple of str
        The RTP components [x total bet] its weights move (``hold_and_spin``).
    degree : int or None
        The figures are polynomials of at most this degree in the table's
        draw probabilities (1: linear); None: no such degree is known (a
        round cap).
    levels : tuple of int or None
        The bet levels whose figures it moves (None: every level).
    """

    path: str
    labels: tuple
    weights: tuple
    pairs: bool
    components: tuple
    degree: int | None = 1
    levels: tuple | None = None

    @property
    def keys(self) -> tuple:
        """The keys under ``options`` leading to the table."""
        return tuple(self.path.split(".")[1:])


def inline_table(
    options, keys: tuple, components, degree: int = 1, levels: tuple | None = None
) -> Tunable | None:
    """The :class:`Tunable` at ``options[keys[0]][keys[1]]...``, or None when
    there is none there or its rows are not all weighted (a CSV file's name,
    a missing key); its ``degree`` None under a round cap."""
    node = options
    for key in keys:
        if not isinstance(node, dict) or key not in node:
            return None
        node = node[key]
    if not isinstance(node, list) or not node or any(entry_weight(e) is None for e in node):
        return None
    return Tunable(
        ".".join(("options", *map(str, keys))),
        tuple(_label(e, i) for i, e in enumerate(node)),
        tuple(entry_weight(e) for e in node),
        not isinstance(node[0], dict),
        tuple(components),
        None if options.get("round_cap") is not None else degree,
        levels,
    )
