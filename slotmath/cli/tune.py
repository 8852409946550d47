"""``slotmath tune`` and ``slotmath sensitivities``: their arguments, parsed
into targets and bounds, and the commands (the tuning itself is
:mod:`slotmath.tuning.tune`)."""

from __future__ import annotations

import argparse
from fractions import Fraction

from slotmath.io.gamefile import load_game
from slotmath.io.jsontext import json_text
from slotmath.io.terminal import terminal_text
from slotmath.model import Game
from slotmath.tuning.reelspace import Bounds, BoundsError
from slotmath.tuning.targets import DEFAULT_COMPONENT_SHARE, DEFAULT_TOLERANCE, Targets
from slotmath.tuning.tune import TuningResult, draft_game, tune, tuned_reel_sets


def parse_fraction(text: str, what: str) -> Fraction:
    """``96.21%`` or ``0.9621`` as a Fraction."""
    t = text.strip()
    try:
        if t.endswith("%"):
            return Fraction(t[:-1].strip()) / 100
        return Fraction(t)
    except (ValueError, ZeroDivisionError):
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None


def parse_range(text: str, what: str, percent_ok: bool = True) -> tuple:
    """``LO:HI`` (either side may be empty) as a pair of floats or None."""
    if ":" not in text:
        raise argparse.ArgumentTypeError(f"expected LO:HI, got {text!r}")
    lo, hi = text.split(":", 1)
    conv = (lambda v: float(parse_fraction(v, what))) if percent_ok else (lambda v: float(Fraction(v)))
    try:
        out = (conv(lo) if lo.strip() else None, conv(hi) if hi.strip() else None)
    except (ValueError, ZeroDivisionError):
        raise argparse.ArgumentTypeError(f"not a number in {text!r}") from None
    if out[0] is not None and out[1] is not None and out[0] > out[1]:
        raise argparse.ArgumentTypeError(f"LO is above HI in {text!r}")
    return out


def parse_target_rtp(text: str) -> tuple:
    """``[MODE=]RTP`` -> (bet mode or None, Fraction): ``buy=96.2%``."""
    mode, sep, value = text.rpartition("=")
    mode = mode.strip()
    if sep and not mode.isidentifier():
        raise argparse.ArgumentTypeError(f"expected [MODE=]RTP with MODE a bet mode's name, got {text!r}")
    return (mode if sep else None), parse_fraction(value, "--target-rtp")


def _int_range(text: str, what: str) -> tuple:
    lo, hi = parse_range(text, what, percent_ok=False)
    if lo is None or (lo != int(lo)) or (hi is not None and hi != int(hi)):
        raise argparse.ArgumentTypeError(f"expected whole numbers LO:HI, got {text!r}")
    return int(lo), (None if hi is None else int(hi))


def parse_count_limit(text: str) -> tuple:
    """``[REEL:]SYMBOL=LO:HI`` -> ((reel0 or None, symbol), (lo, hi))."""
    if "=" not in text:
        raise argparse.ArgumentTypeError(f"expected [REEL:]SYMBOL=LO:HI, got {text!r}")
    left, rng = text.split("=", 1)
    reel = None
    if ":" in left:
        r, left = left.split(":", 1)
        if not r.isdigit() or int(r) < 1:
            raise argparse.ArgumentTypeError(f"reel must be a number from 1, got {r!r}")
        reel = int(r) - 1
    return (reel, left.strip()), _int_range(rng, "--count")


def parse_length_limit(text: str) -> tuple:
    """``[REEL=]LO:HI`` -> (reel0 or None, (lo, hi))."""
    reel = None
    if "=" in text:
        r, text = text.split("=", 1)
        if not r.isdigit() or int(r) < 1:
            raise argparse.ArgumentTypeError(f"reel must be a number from 1, got {r!r}")
        reel = int(r) - 1
    return reel, _int_range(text, "--length")


def parse_figure_band(text: str) -> tuple:
    if "=" not in text:
        raise argparse.ArgumentTypeError(f"expected NAME=LO:HI, got {text!r}")
    name, rng = text.split("=", 1)
    return name.strip(), parse_range(rng, "--figure")


def _plausible(value, what: str, upper: float = 2.0):
    """Reject ``94`` meant as 94 % (and any RTP outside 0 to ``upper``)."""
    if value is not None and not 0 <= float(value) <= upper:
        raise BoundsError(
            f"{what}: {float(value):g} ({float(value) * 100:g} %) is outside 0 to {upper:g} "
            f"({upper * 100:g} %); write it as a fraction (0.94) or with a percent sign (94%)"
        )


def mode_targets_from_args(args) -> tuple:
    """``(mode, rtp, {other mode: rtp})`` of ``--mode`` and the
    ``--target-rtp [MODE=]RTP`` given: a plain RTP is the tuned mode's;
    without ``--mode`` the tuned mode is the first one named (else the game
    as declared, mode None)."""
    mode, plain, named = args.mode, [], {}
    for name, value in args.target_rtp:
        _plausible(value, "--target-rtp")
        if float(value) == 0:
            raise BoundsError("--target-rtp: must be above 0")
        if name is None:
            plain.append(value)
        elif name in named:
            raise BoundsError(f"--target-rtp: two targets for bet mode {name!r}")
        else:
            named[name] = value
    if len(plain) > 1:
        raise BoundsError("--target-rtp: two targets without a mode (give MODE=RTP for another mode)")
    if mode is None and not plain:
        mode = next(iter(named))
    primary = mode if mode is not None else "base"
    if plain and primary in named:
        raise BoundsError(f"--target-rtp: two targets for bet mode {primary!r} (the plain one is its)")
    rtp = plain[0] if plain else named.pop(primary, None)
    if rtp is None:
        raise BoundsError(f"--target-rtp: no target for the bet mode tuned, {primary!r} (--mode)")
    return mode, rtp, named


def targets_from_args(args) -> Targets:
    mode, rtp, mode_rtp = mode_targets_from_args(args)
    _plausible(args.tolerance, "--tolerance", 0.5)
    for v in args.hit_frequency or ():
        _plausible(v, "--hit-frequency", 1.0)
    bands = {}
    if args.hit_frequency:
        bands["hit_frequency"] = args.hit_frequency
    if args.vi:
        bands["vi"] = args.vi
    for name, rng in args.figure or ():
        bands[name] = rng
    rtp_figs = ("rtp",) + tuple(args.rtp_figure or ())
    return Targets(
        rtp,
        float(args.tolerance),
        bands,
        rtp_figs,
        tuple(args.bet) if args.bet else None,
        mode=mode,
        mode_rtp=mode_rtp,
    )


def bounds_from_args(args, game: Game) -> Bounds:
    held = Bounds().held(game)
    fixed = (held | set(args.fix or ())) - set(args.free or ())
    unknown = (set(args.fix or ()) | set(args.free or ())) - set(game.symbol_names)
    if unknown:
        raise BoundsError(f"unknown symbol {sorted(unknown)[0]!r} in --fix/--free")
    counts = dict(args.count or ())
    lengths = dict(args.length or ())
    weights = args.weight or (1, None)
    free_shape = getattr(args, "shape", "on") == "off"
    return Bounds(
        tuple(sorted(fixed)),
        counts,
        lengths,
        weights,
        args.allow_new_symbols,
        weight_factor=None if free_shape else getattr(args, "weight_factor", 2.0),
        symbol_share=None if free_shape else getattr(args, "symbol_share", 0.5),
        max_run=getattr(args, "max_run", None),
        symmetric=not (free_shape or getattr(args, "asymmetric", False)),
    )


def component_share_from_args(args):
    """The component-share band of ``--component-share`` / ``--shape off``."""
    if getattr(args, "shape", "on") == "off":
        return None
    return getattr(args, "component_share", DEFAULT_COMPONENT_SHARE)


def _off_or_float(what: str, minimum: float):
    def parse(text: str):
        if text.strip().lower() in ("off", "none", "free"):
            return None
        try:
            v = float(parse_fraction(text, what))
        except argparse.ArgumentTypeError:
            raise argparse.ArgumentTypeError(f"expected a number or 'off', got {text!r}") from None
        if v < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum:g}, got {text!r}")
        return v

    return parse


def add_tune_arguments(p) -> None:
    p.add_argument("game", help="game folder, file or name in data/games")
    p.add_argument(
        "--target-rtp",
        required=True,
        action="append",
        type=parse_target_rtp,
        metavar="[MODE=]RTP",
        help="target RTP, e.g. 96.21%% or 0.9621 (of the mode tuned); MODE=RTP: a bet mode's "
        "RTP per unit of its cost, met at once (repeatable, e.g. base=96%% buy=96.2%%)",
    )
    p.add_argument(
        "--mode",
        metavar="NAME",
        help="the bet mode tuned (its figures per unit of cost; default: the first mode "
        "--target-rtp names, else the game as declared)",
    )
    p.add_argument(
        "--tolerance",
        default=Fraction(str(DEFAULT_TOLERANCE)),
        type=lambda v: parse_fraction(v, "--tolerance"),
        help="allowed |RTP - target| (default 0.005%%)",
    )
    p.add_argument(
        "--hit-frequency",
        type=lambda v: parse_range(v, "--hit-frequency"),
        metavar="LO:HI",
        help="hit frequency band, e.g. 30%%:34%%",
    )
    p.add_argument(
        "--vi",
        type=lambda v: parse_range(v, "--vi", percent_ok=False),
        metavar="LO:HI",
        help="90%% volatility index band [x total bet]",
    )
    p.add_argument(
        "--figure",
        action="append",
        type=parse_figure_band,
        metavar="NAME=LO:HI",
        help="band on any reported figure (repeatable); MODE/NAME: another bet mode's figure",
    )
    p.add_argument(
        "--rtp-figure",
        action="append",
        metavar="NAME",
        help="another figure that must equal the target RTP (repeatable)",
    )
    p.add_argument(
        "--reel-set",
        action="append",
        metavar="NAME",
        help="the reel set tuned (default base, or the one the --mode plays as its base spin); "
        "repeat it to tune several sets at once, or 'all': every set a bet mode judged plays; "
        "with --table, the strips and the tables move together",
    )
    p.add_argument(
        "--table",
        action="append",
        metavar="PATH",
        help="tune the weights of this weight table (repeatable; 'all': every "
        "one), e.g. options.hold_and_spin.values (coin values and jackpots), options.wheel.segments, "
        "options.selection.choices, options.wild_multipliers.table; each weight within --weight-factor, "
        "each table's total held; the strips held, unless --reel-set is given too: then the strips "
        "of that set and the tables move together",
    )
    p.add_argument(
        "--value",
        action="append",
        metavar="PATH[=LO:HI]",
        help="tune a selection choice's cash prize [x total bet] or wheel spins instead, e.g. "
        "options.selection.choices.cash.prize, options.selection.choices.NAME.wheel (repeatable; "
        "options.selection.choices: every numeric prize); within --weight-factor of its value (or LO:HI), "
        "a prize on a grid of 1/100 (or the file's finer decimal step); policy player or uniform",
    )
    p.add_argument(
        "--equal-values",
        action="store_true",
        help="with --value: every choice's mean value equal, their common value set by the target RTP",
    )
    p.add_argument(
        "--table-scale",
        type=int,
        default=1,
        metavar="K",
        help="with --table: multiply every weight of the tables by K first (the same draw law, "
        "steps K times finer; default 1)",
    )
    p.add_argument(
        "--draft",
        metavar="CSV",
        help="start from this reel CSV (the designer's draft) instead of the "
        "game file's strips of --reel-set; --out still rewrites the game file",
    )
    p.add_argument(
        "--bet",
        action="append",
        type=int,
        metavar="LEVEL",
        help="bet level the targets apply to (repeatable; default: every level)",
    )
    p.add_argument(
        "--fix",
        action="append",
        metavar="SYMBOL",
        help="hold a symbol's count/weights (scatter and special symbols are held by default)",
    )
    p.add_argument("--free", action="append", metavar="SYMBOL", help="release a held symbol")
    p.add_argument(
        "--count",
        action="append",
        type=parse_count_limit,
        metavar="[REEL:]SYMBOL=LO:HI",
        help="limits on a symbol's count (weighted reels: its total weight)",
    )
    p.add_argument(
        "--length",
        action="append",
        type=parse_length_limit,
        metavar="[REEL=]LO:HI",
        help="strip length (weighted reels: total weight) limits; default: unchanged",
    )
    p.add_argument(
        "--weight",
        type=lambda v: _int_range(v, "--weight"),
        metavar="LO:HI",
        help="stop weight limits on weighted reels (default 1:)",
    )
    p.add_argument(
        "--allow-new-symbols",
        action="store_true",
        help="let a symbol appear on a reel that does not carry it",
    )
    p.add_argument(
        "--weight-factor",
        type=_off_or_float("--weight-factor", 1.0),
        default=2.0,
        metavar="F|off",
        help="shape: each stop weight (count) within a factor F of its value, at least +-1 (default 2)",
    )
    p.add_argument(
        "--symbol-share",
        type=_off_or_float("--symbol-share", 0.0),
        default=argparse.SUPPRESS,  # 0.5 where unset (a table run refuses it given)
        metavar="B|off",
        help="shape: each tuned symbol's share of a reel within share x (1 +- B) (default 0.5 = 50%%)",
    )
    p.add_argument(
        "--component-share",
        type=_off_or_float("--component-share", 0.0),
        default=DEFAULT_COMPONENT_SHARE,
        metavar="B|off",
        help="shape: each RTP component's (lines, scatters, features) share of the RTP "
        "within share x (1 +- B) (default 0.25)",
    )
    p.add_argument(
        "--asymmetric",
        action="store_true",
        help="shape: tune every reel on its own (default: reels alike in the file, the same "
        "symbol counts, move together, the same change on each)",
    )
    p.add_argument(
        "--max-run",
        type=int,
        metavar="N",
        help="longest run of one symbol the layout may make (default: each symbol's longest "
        "run on the strip it starts from)",
    )
    p.add_argument(
        "--shape",
        choices=("on", "off"),
        default="on",
        help="off releases every shape bound (the three above and --asymmetric)",
    )
    p.add_argument(
        "--time-limit",
        type=float,
        metavar="SECONDS",
        help="wall-clock budget; the best candidate so far is reported",
    )
    p.add_argument(
        "--max-evaluations",
        type=int,
        default=400,
        help="budget of exact evaluations of candidates (default 400)",
    )
    p.add_argument("--out", help="write the tuned game file here (backs up an existing file)")
    p.add_argument("--keep-best", action="store_true", help="write --out even when the targets are not met")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout")
    p.add_argument(
        "--verbose",
        action="store_true",
        help="also print each solver step on stderr (a bar shows on a terminal for any run over 2 s)",
    )


def strips_json(strips) -> dict:
    """A reel set's strips: ``{reelN: symbols}`` or, weighted, ``{reelN: {symbols, weights}}``."""
    return {
        f"reel{r + 1}": list(s.symbols)
        if s.weights is None
        else {"symbols": list(s.symbols), "weights": list(s.weights)}
        for r, s in enumerate(strips)
    }


def result_json(res: TuningResult) -> dict:
    """The result as one object; ``reel_set`` and ``strips`` are those of
    the one set tuned, and with several sets ``reel_sets`` and
    ``strips_by_set`` (``{set: strips}``) replace them."""
    fig = res.figures
    sets = res.reel_sets
    by_set = (
        {"reel_set": res.reel_set, "strips": strips_json(res.tuned.strips(res.reel_set))}
        if len(sets) == 1
        else {
            "reel_sets": list(sets),
            "strips_by_set": {rs: strips_json(res.tuned.strips(rs)) for rs in sets},
        }
    )
    return {
        "game": res.game.name,
        "reel_set": res.reel_set if len(sets) == 1 else None,
        "targets_met": res.feasible,
        "target_rtp": float(res.targets.rtp),
        "mode": res.targets.primary if res.targets.modes else None,
        "mode_targets": {k: float(v) for k, v in res.targets.mode_rtp.items()},
        "tolerance": res.targets.tolerance,
        "bands": {k: list(v) for k, v in res.targets.bands.items()},
        "moves": res.moves.to_dict(orient="records"),
        "nothing_moved_why": res.nothing_moved_why,
        "figures": fig.where(fig.notna(), None).to_dict(orient="records"),
        **by_set,
        "evaluations": res.evaluations,
        "seconds": res.seconds,
        "stopped": res.stopped,
        "component_bands": {k: list(v) for k, v in (res.component_bands or {}).items()},
        "binding": res.binding.to_dict(orient="records") if not res.feasible else [],
        "feasibility": res.feasibility,
        "layout": res.strip_changes.to_dict(orient="records"),
        "reels_alike": [
            {"reel_set": res.space.reels[g[0]].reel_set, "reels": [res.space.reels[r].reel + 1 for r in g]}
            for g in res.space.tied(alike=True)
        ],
        "reels_released": res.untied is not None,
        "tied_best_rtp": {str(lv): float(v) for lv, v in (res.untied or {}).items()},
        "tied_stopped": res.untied_why,
    }


def _message(exc: Exception) -> str:
    return str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)


#: options of the reel tuner that a table run (``--table``) does not read
REEL_ONLY = (
    "reel_set",
    "draft",
    "fix",
    "free",
    "count",
    "length",
    "weight",
    "allow_new_symbols",
    "asymmetric",
    "max_run",
)


def cmd_tune_tables(args, game: Game) -> int:
    """``slotmath tune --table PATH``: tune weight tables, the strips held."""
    from slotmath.io.arguments import UsageError
    from slotmath.tuning.tabletune import tune_tables

    given = [f"--{name.replace('_', '-')}" for name in REEL_ONLY if getattr(args, name, None)]
    given += ["--symbol-share"] if "symbol_share" in vars(args) else []
    given += ["--verbose"] if getattr(args, "verbose", False) else []
    try:
        if given:
            raise BoundsError(
                f"--table: {', '.join(given)} {'is an option' if len(given) == 1 else 'are options'} of the "
                "strip tuner; with --table alone the strips are held (add --reel-set NAME to tune the "
                "strips of that reel set and the tables together)"
            )
        free_shape = args.shape == "off"
        res = tune_tables(
            game,
            targets_from_args(args),
            args.table,
            weight_factor=None if free_shape else args.weight_factor,
            component_share=component_share_from_args(args),
            max_evaluations=args.max_evaluations,
            time_limit=args.time_limit,
            scale=args.table_scale,
        )
    except (BoundsError, KeyError) as exc:
        raise UsageError(_message(exc)) from None
    return _report(args, res, res.json())


def _report(args, res, fields: dict) -> int:
    """Write the tuned game with ``--out`` (when met, or ``--keep-best``),
    print the result (``--json``: ``fields`` and where it was written) and
    give the exit status (0: targets met)."""
    written = res.write(args.out) if args.out and (res.feasible or args.keep_best) else None
    if args.json:
        print(json_text({**fields, "written": str(written) if written else None}))
    else:
        print(terminal_text(res.text(), lines=True))
        if args.out:
            print(
                f"\nwritten: {written}"
                if written
                else "\nnot written: the targets are not met (use --keep-best to write anyway)"
            )
    return 0 if res.feasible else 1


def cmd_tune_values(args, game: Game) -> int:
    """``slotmath tune --value PATH``: tune selection prizes, all else held."""
    from slotmath.io.arguments import UsageError
    from slotmath.tuning.valuetune import tune_values

    other = [*REEL_ONLY, "table", "hit_frequency", "vi", "figure", "rtp_figure", "mode"]
    given = [f"--{name.replace('_', '-')}" for name in other if getattr(args, name, None)]
    try:
        if not args.value:
            raise BoundsError("--equal-values: name the prizes tuned with --value options.selection.choices")
        if given:
            raise BoundsError(
                f"--value: {', '.join(given)} not with --value (it tunes the RTP by prizes alone)"
            )
        mode, rtp, named = mode_targets_from_args(args)
        if mode is not None or named:
            raise BoundsError("--value: the target is the game's RTP (no MODE=)")
        _plausible(args.tolerance, "--tolerance", 0.5)
        res = tune_values(
            game,
            rtp,
            args.value,
            tolerance=args.tolerance,
            level=args.bet[0] if args.bet else None,
            weight_factor=None if args.shape == "off" else args.weight_factor,
            equal_values=args.equal_values,
        )
    except (BoundsError, KeyError) as exc:
        raise UsageError(_message(exc)) from None
    return _report(args, res, res.json())


def cmd_tune_joint(args, game: Game) -> int:
    """``slotmath tune --reel-set NAME --table PATH``: strips and tables together."""
    from slotmath.io.arguments import UsageError
    from slotmath.tuning.jointtune import tune_joint

    try:
        targets = targets_from_args(args)
        named = args.reel_set
        sets = tuned_reel_sets(game, targets, named[0] if len(named) == 1 else tuple(named))
        if getattr(args, "draft", None):
            if len(sets) > 1:
                raise BoundsError(f"--draft: a draft is one reel set's strips ({len(sets)} sets tuned)")
            game = draft_game(game, args.draft, sets[0])
        res = tune_joint(
            game,
            targets,
            args.table,
            bounds_from_args(args, game),
            sets[0] if len(sets) == 1 else sets,
            weight_factor=None if args.shape == "off" else args.weight_factor,
            component_share=component_share_from_args(args),
            max_evaluations=args.max_evaluations,
            time_limit=args.time_limit,
            scale=args.table_scale,
            verbose=args.verbose,
        )
    except (BoundsError, KeyError) as exc:
        raise UsageError(_message(exc)) from None
    return _report(args, res, {**result_json(res.strips), **res.json()})


def cmd_tune(args) -> int:
    from slotmath.io.arguments import UsageError

    game = load_game(args.game)
    if getattr(args, "value", None) or getattr(args, "equal_values", False):
        return cmd_tune_values(args, game)
    if getattr(args, "table", None):
        if getattr(args, "reel_set", None):
            return cmd_tune_joint(args, game)
        return cmd_tune_tables(args, game)
    try:
        targets = targets_from_args(args)
        named = args.reel_set or [None]
        sets = tuned_reel_sets(game, targets, named[0] if len(named) == 1 else tuple(named))
        if getattr(args, "draft", None):
            if len(sets) > 1:
                raise BoundsError(f"--draft: a draft is one reel set's strips ({len(sets)} sets tuned)")
            game = draft_game(game, args.draft, sets[0])
        bounds = bounds_from_args(args, game)
        res = tune(
            game,
            targets,
            bounds,
            sets[0] if len(sets) == 1 else sets,
            max_evaluations=args.max_evaluations,
            verbose=args.verbose,
            component_share=component_share_from_args(args),
            time_limit=args.time_limit,
        )
    except (BoundsError, KeyError) as exc:
        raise UsageError(_message(exc)) from None
    written = None
    if args.out and (res.feasible or args.keep_best):
        written = res.write(args.out)
    if args.json:
        out = result_json(res)
        out["written"] = str(written) if written else None
        print(json_text(out))
    else:
        print(terminal_text(res.text(), lines=True))  # names from the game file shown escaped
        if args.out:
            print(
                f"\nwritten: {written}"
                if written
                else "\nnot written: the targets are not met (use --keep-best to write anyway)"
            )
    return 0 if res.feasible else 1


def cmd_sensitivities(args) -> int:
    from slotmath.io.arguments import UsageError, game_and_level
    from slotmath.tuning.sensitivity import format_sensitivities, sensitivities, table_sensitivities

    game, level = game_and_level(args.game, args.bet)
    figures = [f.strip() for f in args.figures.split(",") if f.strip()]
    try:
        if args.table:
            table = table_sensitivities(game, level, args.table, figures)
        else:
            table = sensitivities(game, level, args.reel_set, figures)
    except (BoundsError, KeyError) as exc:
        raise UsageError(_message(exc)) from None
    if args.json:
        print(
            json_text(
                {
                    "game": game.name,
                    "bet": level,
                    "reel_set": None if args.table else args.reel_set,
                    "tables": args.table,
                    "base": {k: float(v) for k, v in table.attrs["base"].items() if v is not None},
                    "rows": table.where(table.notna(), None).to_dict(orient="records"),
                }
            )
        )
    else:
        print(terminal_text(format_sensitivities(table), lines=True))
    return 0


def register_cli(subparsers) -> None:
    """Add ``slotmath tune`` and ``slotmath sensitivities``."""
    p = subparsers.add_parser(
        "tune",
        help="tune reel strips or feature weight tables to a target RTP and bands",
        description="Tune the reel strips of a game to a target RTP (and bands on hit frequency, VI, other "
        "figures, symbol counts), judging each candidate by its exact figures; prints what moved and "
        "the figures before and after, and writes the tuned game with --out.  With --table, the "
        "weights of a feature's weight tables (coin values and jackpots, wheel segments, selection "
        "weights, wild multipliers) are tuned instead, the strips held.",
    )
    add_tune_arguments(p)
    p.set_defaults(func=cmd_tune)
    p = subparsers.add_parser(
        "sensitivities",
        help="figure changes for +-1 of each symbol per reel",
        description="The exact change of each figure when one stop of a symbol is added to or removed "
        "from a reel, for every symbol and reel; with --table, when one unit of weight is added to or "
        "removed from each entry of a feature's weight table.",
    )
    p.add_argument("game", help="game folder, file or name in data/games")
    p.add_argument("--bet", type=int, default=None, help="bet level (default: lowest)")
    p.add_argument("--reel-set", default="base", help="the reel set changed (default base)")
    p.add_argument(
        "--table",
        action="append",
        metavar="PATH",
        help="instead: +-1 of each weight of this weight table (repeatable; 'all': every one), "
        "e.g. options.hold_and_spin.values",
    )
    p.add_argument(
        "--figures",
        default="rtp,hit_frequency,sd",
        help="comma-separated figure names (default rtp,hit_frequency,sd)",
    )
    p.add_argument("--json", action="store_true", help="one JSON object on stdout")
    p.set_defaults(func=cmd_sensitivities)
