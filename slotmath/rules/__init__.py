"""Rules of games: the rules contract (:mod:`.contract`: the base class
:class:`~slotmath.rules.contract.Rules` and ``rules: lines``), the registry of
rules names (:mod:`.registry`: built-in rules and those installed packages
register under the entry-point group ``slotmath.rules``), the PAR result
(:mod:`.par`), the fast tuning figures (:mod:`.figures`), plain line games
(:mod:`.linegame`) and one package per game whose play goes beyond lines and
scatters.  ``docs/rules-packages.md`` shows how to write rules of your own.
"""
