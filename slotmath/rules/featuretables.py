"""PAR tables of each feature of a round: what a test lab reads per feature.

Built from the round's figures (:attr:`slotmath.features.round.RoundLaw.figures`)
and the feature declarations, by each declared feature's own ``tables``
(:class:`~slotmath.features.kinds.FeatureKind`, in the registry's order;
shared rows in :mod:`slotmath.features.sheetrows`); every table's title
starts with the feature's title and every column carries its unit
(``[x total bet]``, ``[1 in N rounds]``, ``[% of RTP]``, ``[probability]``).
``slotmath par`` prints them and the PAR sheet shows them in its features
section.

:func:`feature_of` names the feature a table belongs to (the PAR sheet gives
each feature a section of its own).
"""

from __future__ import annotations

from slotmath.features.registry import feature_kinds
from slotmath.model import Game

__all__ = ["TITLES", "feature_tables", "feature_of"]

#: Feature names (RTP components) as table titles start: each feature's title, capitalised.
TITLES = {k.component: k.title[0].upper() + k.title[1:] for k in feature_kinds() if k.component is not None}


def feature_tables(game: Game, figures: dict, rtp: float, level: int | None = None) -> dict:
    """{title: DataFrame} of every declared feature (its kind's ``tables``)
    from ``figures`` (the round's feature figures), ``rtp`` the round's RTP
    [x total bet], ``level`` the bet level (default the lowest; the
    lock-it's award tables are per level).  A row naming a progressive
    jackpot (``figures["progressive"]``) is labelled so, a jackpots table
    valuing it at its meter's mean at a win
    (:func:`~slotmath.features.sheetrows.progressive_rows`)."""
    from slotmath.features.registry import declared_kinds
    from slotmath.features.sheetrows import progressive_rows

    meters = {k: f["reference"]["expected_jackpot"] for k, f in figures.get("progressive", {}).items()}
    out: dict = {}
    for kind in declared_kinds(game):
        tables = kind.tables(game, figures, rtp, game.bet(level).level)
        out.update({title: progressive_rows(t, meters, rtp) for title, t in tables.items()})
    return out


def feature_of(title: str) -> str | None:
    """The feature a table belongs to, by the name its title starts with
    (:data:`TITLES`: ``Free games: rules`` -> ``free_games``); None for a
    table of no single feature."""
    for name, words in TITLES.items():
        for w in (words, name.replace("_", " ").capitalize()):  # the JSON figures' title too
            if title == w or title.startswith((f"{w}:", f"{w} ")):
                return name
    return None
