"""The registry of features: every :class:`~slotmath.features.kinds.FeatureKind`
the line (and ways) round plays, in the order the round plays them.

Consumers iterate :func:`feature_kinds` (or :func:`declared_kinds` for one
game) and never branch on a feature's name; a new feature is one module and
one line of :data:`KINDS` (see :mod:`slotmath.features.kinds`).
"""

from __future__ import annotations

from slotmath.features.freeround import FREE_GAMES
from slotmath.features.holdspin_free import HOLD_AND_SPIN
from slotmath.features.infree import register_kinds
from slotmath.features.kinds import FeatureKind
from slotmath.features.lockit_round import LOCKIT
from slotmath.features.options import ROUND_CAP
from slotmath.features.pick import PICK
from slotmath.features.prizes import JACKPOTS, SELECTION, WHEEL
from slotmath.features.wildmult import WILD_MULTIPLIERS
from slotmath.model import Game

__all__ = ["KINDS", "feature_kinds", "declared_kinds", "feature_keys", "bought_kind", "schema_with_features"]

#: Every feature, in the order the round plays the ones that start.
KINDS: tuple[FeatureKind, ...] = (
    FREE_GAMES,
    HOLD_AND_SPIN,
    LOCKIT,
    WHEEL,
    SELECTION,
    PICK,
    JACKPOTS,
    ROUND_CAP,
    WILD_MULTIPLIERS,
)
register_kinds(KINDS)  # the free games ask which feature their windows play


def feature_kinds() -> tuple[FeatureKind, ...]:
    """Every registered feature, in the round's order."""
    return KINDS


def feature_keys() -> tuple[str, ...]:
    """The ``options`` key of every registered feature."""
    return tuple(kind.key for kind in KINDS)


def declared_kinds(game: Game) -> list[FeatureKind]:
    """The features ``game`` declares under ``options``, in the round's order."""
    return [kind for kind in KINDS if kind.declared(game)]


def bought_kind(key: str) -> FeatureKind:
    """The feature a bet mode buys by its key (``modes.NAME.buy.feature``);
    the game-file reader has refused a key that is not for sale."""
    for kind in KINDS:
        if kind.key == key and kind.buy is not None:
            return kind
    raise KeyError(f"{key!r} is not a feature for sale")


def schema_with_features(schema: dict) -> dict:
    """The game file's JSON schema ``schema`` with ``options.<key>`` set to
    each feature's own fragment (:attr:`FeatureKind.schema`, where given)."""
    out = dict(schema)
    options = dict(out["properties"]["options"])
    props = dict(options["properties"])
    props.update({kind.key: kind.schema for kind in KINDS if kind.schema is not None})
    options["properties"] = props
    out["properties"] = {**out["properties"], "options": options}
    return out


def main() -> None:
    """Write the features' fragments into ``slotmath/io/schema/game.schema.json``."""
    import json
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "io" / "schema" / "game.schema.json"
    schema = schema_with_features(json.loads(path.read_text()))
    text = json.dumps(schema, indent=2, ensure_ascii=False) + "\n"
    tmp = path.with_suffix(".tmp")
    tmp.write_text(text)
    tmp.replace(path)


if __name__ == "__main__":
    main()
