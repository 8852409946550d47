"""Grand Spinn Superpot: the game file's ``options`` and the rule-specific
checks (light: imported when a game file is validated)."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from slotmath.errors import did_you_mean
from slotmath.features.progressive import Progressive
from slotmath.io.gamefile import GameFileError, not_an_integer
from slotmath.model import Game

#: Component names of the RTP, in report order (then one per jackpot).
LANDING, NUDGES, ARROWS = "line wins (landing)", "nudge re-pays", "arrow re-pays"


@dataclass(frozen=True)
class Jackpot:
    """One jackpot: its name, symbol and coin award per bet level (None = progressive)."""

    name: str
    symbol: str
    pay_per_level: int | None


@dataclass(frozen=True)
class Network:
    """Assumptions for the Super's network figures."""

    players: int
    seconds_per_spin: float
    window_seconds: float
    reference_bet: float


@dataclass(frozen=True)
class Options:
    """The game's ``options:`` mapping, validated."""

    arrow: str
    arrow_becomes: str
    jackpots: tuple
    progressive: Progressive
    coin_values: tuple
    network: Network

    @property
    def progressive_jackpot(self) -> Jackpot | None:
        return next((j for j in self.jackpots if j.pay_per_level is None), None)


def _fail(game, fieldname, problem):
    raise GameFileError(game.source, fieldname, problem)


def _number(game, value, fieldname, positive=True, integer=False):
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        _fail(game, fieldname, f"must be a number, got {value!r}")
    try:
        x = Fraction(str(value))
    except (ValueError, ZeroDivisionError):
        _fail(game, fieldname, f"must be a number, got {value!r}")
    if integer and (x.denominator != 1 or not isinstance(value, int)):
        _fail(game, fieldname, not_an_integer(value))
    if positive and x <= 0:
        _fail(game, fieldname, f"must be positive, got {value!r}")
    if not positive and x < 0:
        _fail(game, fieldname, f"must not be negative, got {value!r}")
    return x


def _mapping(game, value, fieldname):
    if not isinstance(value, dict):
        _fail(game, fieldname, "must be a mapping (key: value pairs)")
    return value


def _known_keys(game, spec, fieldname, allowed):
    for key in spec:
        if key not in allowed:
            _fail(
                game,
                f"{fieldname}.{key}",
                f"unknown option ({did_you_mean(key, allowed)}allowed: {', '.join(allowed)})",
            )


def _symbol(game, name, fieldname, kinds):
    if not isinstance(name, str) or name not in game.symbol_index:
        _fail(game, fieldname, f"unknown symbol {name!r}")
    kind = game.symbol(name).kind
    if kind not in kinds:
        _fail(game, fieldname, f"{name!r} is of kind {kind!r}; need {' or '.join(kinds)}")
    return name


#: The keys of ``options`` the rules read (in the order the docs list them).
OPTION_NAMES = ("arrow", "arrow_becomes", "jackpots", "progressive", "coin_values", "network")
OPTION_KEYS = frozenset(OPTION_NAMES)


def parse_options(game: Game) -> Options:
    """Validate ``game.options`` (GameFileError naming ``options.<field>``)."""
    opts = _mapping(game, game.options, "options")
    _known_keys(game, opts, "options", OPTION_NAMES)
    for key in ("arrow", "arrow_becomes", "jackpots", "progressive"):
        if key not in opts:
            _fail(game, f"options.{key}", "is required by the grand_spinn_superpot rules")
    arrow = _symbol(game, opts["arrow"], "options.arrow", ("special",))
    blank = _symbol(game, opts["arrow_becomes"], "options.arrow_becomes", ("blank",))

    jps = opts["jackpots"]
    if not isinstance(jps, list) or not jps:
        _fail(game, "options.jackpots", "must be a non-empty list, lowest jackpot first")
    jackpots, seen = [], set()
    for i, spec in enumerate(jps):
        f = f"options.jackpots[{i}]"
        spec = _mapping(game, spec, f)
        _known_keys(game, spec, f, ("name", "symbol", "pay_per_level", "progressive"))
        if "symbol" not in spec:
            _fail(game, f"{f}.symbol", "is required")
        sym = _symbol(game, spec["symbol"], f"{f}.symbol", ("special",))
        if sym == arrow:
            _fail(game, f"{f}.symbol", "the up arrow cannot be a jackpot symbol")
        if sym in seen:
            _fail(game, f"{f}.symbol", f"{sym!r} is already a jackpot symbol")
        seen.add(sym)
        progressive = spec.get("progressive", False)
        if not isinstance(progressive, bool):
            _fail(game, f"{f}.progressive", "must be true or false")
        if progressive == ("pay_per_level" in spec):
            _fail(game, f, "give exactly one of 'pay_per_level' (fixed) and 'progressive: true'")
        pay = (
            None
            if progressive
            else int(_number(game, spec["pay_per_level"], f"{f}.pay_per_level", integer=True))
        )
        jackpots.append(Jackpot(str(spec.get("name", sym)), sym, pay))
    if sum(j.pay_per_level is None for j in jackpots) > 1:
        _fail(game, "options.jackpots", "at most one jackpot may be progressive")
    fixed = [j.pay_per_level for j in jackpots if j.pay_per_level is not None]
    if fixed != sorted(fixed) or len(set(fixed)) != len(fixed):
        _fail(
            game,
            "options.jackpots",
            "fixed jackpots must be listed lowest first, with increasing pay_per_level",
        )
    if any(j.pay_per_level is None for j in jackpots[:-1]):
        _fail(game, "options.jackpots", "the progressive jackpot must be the highest (listed last)")

    prog_spec = _mapping(game, opts["progressive"], "options.progressive")
    _known_keys(game, prog_spec, "options.progressive", ("meter_rate", "reserve_rate", "reseed", "currency"))
    for key in ("meter_rate", "reserve_rate", "reseed"):
        if key not in prog_spec:
            _fail(game, f"options.progressive.{key}", "is required")
    meter = _number(game, prog_spec["meter_rate"], "options.progressive.meter_rate", positive=False)
    reserve = _number(game, prog_spec["reserve_rate"], "options.progressive.reserve_rate", positive=False)
    if meter + reserve >= 1:
        _fail(game, "options.progressive", "meter_rate + reserve_rate must be below 1")
    reseed = _number(game, prog_spec["reseed"], "options.progressive.reseed", positive=False)
    currency = str(prog_spec.get("currency", "EUR"))
    progressive = Progressive(meter, reserve, reseed, currency)

    coins = opts.get("coin_values", [1])
    if not isinstance(coins, list) or not coins:
        _fail(game, "options.coin_values", "must be a non-empty list of coin values")
    coin_values = tuple(_number(game, c, f"options.coin_values[{i}]") for i, c in enumerate(coins))

    net = _mapping(game, opts.get("network", {}), "options.network")
    _known_keys(
        game, net, "options.network", ("players", "seconds_per_spin", "window_seconds", "reference_bet")
    )
    network = Network(
        int(_number(game, net.get("players", 1000), "options.network.players", integer=True)),
        float(_number(game, net.get("seconds_per_spin", 4), "options.network.seconds_per_spin")),
        float(_number(game, net.get("window_seconds", 30), "options.network.window_seconds")),
        float(_number(game, net.get("reference_bet", 1), "options.network.reference_bet")),
    )
    return Options(arrow, blank, tuple(jackpots), progressive, coin_values, network)


def check(game: Game) -> None:
    """Rule-specific checks of a Grand Spinn Superpot game file.

    Raises GameFileError for: invalid ``options``; fewer than 2 rows (the
    nudge needs a top row and a row below it); a pay entry that is not ``n``
    of one regular symbol (the nudge needs one winning symbol per line win);
    a wild that substitutes for the arrow, a blank or a jackpot symbol; and
    a strip that shows one paying symbol at every stop, on which a nudge
    would never end.
    """
    opts = parse_options(game)
    if game.rows < 2:
        _fail(game, "grid.rows", "the nudge needs at least 2 rows (a top row and one below)")
    for i, lp in enumerate(game.line_pays):
        names = {n for pos in lp.positions for n in pos}
        if lp.anywhere is not None or len(names) != 1 or game.symbol(next(iter(names))).kind != "regular":
            _fail(
                game,
                f"pays[{i}]",
                "grand_spinn_superpot pays n of one regular symbol "
                "(symbol + count); the nudge follows that symbol",
            )
    special = {opts.arrow, opts.arrow_becomes} | {j.symbol for j in opts.jackpots}
    for s in game.symbols:
        if s.wild and s.wild.substitutes & special:
            bad = sorted(s.wild.substitutes & special)[0]
            _fail(
                game,
                f"symbols[{game.symbol_index[s.name]}]",
                f"wild {s.name!r} may not substitute for {bad!r} (rule R4)",
            )
    paying = {next(iter(lp.positions[0])) for lp in game.line_pays}
    for set_name, strips in game.reel_sets.items():
        for r, strip in enumerate(strips):
            if len(set(strip.symbols)) == 1 and strip.symbols[0] in paying:
                _fail(
                    game,
                    f"reels.{set_name}[{r}]",
                    f"every stop shows {strip.symbols[0]!r}: a nudge on {strip.symbols[0]!r} "
                    "would never end (the strip needs another symbol)",
                )
