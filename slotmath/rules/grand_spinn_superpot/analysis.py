"""Grand Spinn Superpot: 3x3, 10 fixed lines, multiplier wilds, the nudge
feature with up arrows, Mini and Midi fixed jackpots and the Super progressive.

The rules are pinned down in ``docs/games/grand_spinn_superpot.md`` (rule
numbers R1..R22 below refer to it).  In short, for a spin at bet level ``v``:

* the landing window pays every line (:func:`slotmath.engine.lines.line_pay`
  through the engine's pay tensor): ``W0`` coins in total (R5-R8);
* with ``W0 > 0`` the *winning symbol* ``X`` is the symbol of the highest
  line win (R9); reels 1, 2, 3 in turn nudge down while their top row shows
  ``X``, each nudge paying ``W0`` again (R10-R12); a reel that stops with an
  up arrow on top and ``X`` below goes back to the bottom of that stack of
  ``X`` and nudges up through it again, paying ``W0`` once per symbol of the
  stack; the arrow is a blank for the rest of the spin (R13-R15);
* after the nudges, if every reel shows a jackpot symbol on top of ``X``, the
  lowest of those jackpots is won (R16-R17); without a line win, three
  jackpot symbols on a bet line win the lowest of them (R18);
* Mini and Midi pay ``pay_per_level * v`` coins, not multiplied (R19-R20);
  the Super is progressive (R21).

Exact analysis (:func:`analyse`): every stop combination is played out
(:func:`round_outcome`, numba, via :func:`play_outcomes`) and its stop-weight
product added to the total of its outcome (the rounds themselves are not
kept, so memory does not grow with the cycle); the integer
totals give the RTP by channel as Fractions and the exact distribution of
the coin win of a spin.  The nudge is also solved as absorbing Markov chains
(:mod:`slotmath.features.nudge`), checked against the enumeration.  The Super's
figures come from :mod:`slotmath.features.progressive` under the convention of R22.

Monte Carlo (:func:`simulate`, :func:`round_sampler`): a separate, literal
implementation in :mod:`.sampler` (its own line rule,
reels moved step by step with the used arrow blanked), re-exported here.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd

from slotmath.engine.combinations import combination_table, line_rtp
from slotmath.engine.distribution import WinDistribution
from slotmath.errors import ensure
from slotmath.features.progressive import renewal_figures
from slotmath.model import Game
from slotmath.rules.grand_spinn_superpot.chains import (  # noqa: F401  (re-exported)
    NudgeChain,
    nudge_chain,
    reel_transition_table,
    solve_nudge,
)
from slotmath.rules.grand_spinn_superpot.enumeration import (  # noqa: F401  (re-exported)
    PATH_LINE,
    PATH_NONE,
    PATH_NUDGE,
    Enumeration,
    Outcomes,
    Rounds,
    Rules,
    compile_rules,
    dead_prefixes,
    enumerate_cycle,
    landing_grid,
    line_jackpot,
    line_parts,
    lines_win,
    pack_strips,
    play_all,
    play_outcomes,
    play_round,
    reweigh,
    round_outcome,
)
from slotmath.rules.grand_spinn_superpot.options import (  # noqa: F401
    ARROWS,
    LANDING,
    NUDGES,
    Jackpot,
    Network,
    Options,
    check,
    parse_options,
)
from slotmath.rules.grand_spinn_superpot.sampler import (  # noqa: F401
    RoundsSimulation,
    Sampler,
    event_names,
    exact_events,
    play_stops,
    round_sampler,
    run_sampler,
    simulate,
    simulate_rounds,
)
from slotmath.rules.grand_spinn_superpot.steps import (  # noqa: F401  (re-exported)
    EXAMPLES,
    Step,
    draw_round,
    example_stops,
    play_steps,
    steps_frame,
)
from slotmath.rules.result import ParResult, fraction_str


# ===========================================================================
# analysis
# ===========================================================================
def cycle_figures(rules: Rules, ex: Enumeration) -> tuple:
    """RTP components [x total bet], jackpot probabilities, RTP, RTP without
    the progressive and the coin-win distribution of an enumerated cycle."""
    opts = rules.options
    C, tb = ex.cycle, rules.total_bet
    components = {
        LANDING: Fraction(ex.landing, C * tb),
        NUDGES: Fraction(ex.nudge, C * tb),
        ARROWS: Fraction(ex.arrow, C * tb),
    }
    jp_prob = {}
    for k, j in enumerate(opts.jackpots):
        hits = int(ex.jp_counts[:, k].sum())
        jp_prob[j.name] = Fraction(hits, C)
        if j.pay_per_level is not None:
            components[j.name] = Fraction(hits * int(rules.jp_coins[k]), C * tb)
        else:
            components[j.name] = opts.progressive.contribution_rate
    rtp = sum(components.values(), Fraction(0))
    dist = WinDistribution.from_histogram(ex.hist, 1, tb)
    base = rtp - sum((components[j.name] for j in opts.jackpots if j.pay_per_level is None), Fraction(0))
    ensure(dist.mean == base, "win distribution disagrees with the RTP components")
    return components, jp_prob, rtp, base, dist


def analyse(game: Game, level: int) -> ParResult:
    """Exact PAR figures of Grand Spinn Superpot at bet ``level``."""
    rules = compile_rules(game, level)
    opts = rules.options
    bet = game.bet(level)
    ex = enumerate_cycle(rules)
    C = ex.cycle
    components, jp_prob, rtp, base, dist = cycle_figures(rules, ex)
    lines_rtp, per_line = line_rtp(game, level)
    ensure(lines_rtp == components[LANDING], "landing line RTP disagrees with the engine")
    chain = nudge_chain(rules)
    features = _features(game, rules, ex, chain, components, jp_prob, rtp, base, dist)
    tables = _tables(rules, ex, chain, components, jp_prob, features)
    notes = _notes(opts, features)
    return ParResult(
        game=game,
        bet=bet,
        cycle=C,
        rtp=rtp,
        components=components,
        distribution=dist,
        combinations=combination_table(game, level),
        per_line_rtp=per_line,
        features=features,
        tables=tables,
        notes=notes,
    )


def pays_distribution(ex: Enumeration) -> np.ndarray:
    """P(a winning spin is paid n times), exact enumeration [probability]."""
    nz = np.flatnonzero(ex.pays_hist)
    out = np.array([float(Fraction(int(c), ex.win_rounds)) for c in ex.pays_hist[: nz[-1] + 1]])
    return out


def _one_in(p) -> float | None:
    return float(1 / p) if p else None


def levels_proportional(game: Game) -> bool:
    """True when every coin amount is proportional to the bet level (line
    pays by level and fixed jackpots), so the RTP is the same at every level."""
    return all(
        lp.pays[i] * game.levels[0] == lp.pays[0] * lv
        for lp in game.line_pays
        for i, lv in enumerate(game.levels)
    )


def _features(game, rules, ex, chain, components, jp_prob, rtp, base, dist) -> dict:
    opts = rules.options
    C = ex.cycle
    exact_pays = pays_distribution(ex)
    n = max(len(exact_pays), len(chain.pays))
    a = np.zeros(n)
    b = np.zeros(n)
    a[: len(exact_pays)] = exact_pays
    b[: len(chain.pays)] = chain.pays
    repay_exact = Fraction(ex.landing + ex.nudge + ex.arrow, ex.landing) if ex.landing else None
    expected_pays_exact = (
        Fraction(int((ex.pays_hist.astype(object) * np.arange(len(ex.pays_hist))).sum()), ex.win_rounds)
        if ex.win_rounds
        else None
    )
    jp_nudge_exact = [Fraction(int(ex.jp_counts[PATH_NUDGE, k]), C) for k in range(len(opts.jackpots))]
    agreement = {
        "pays_distribution_max_abs_diff": float(np.abs(a - b).max()),
        "repay_factor_abs_diff": abs(float(repay_exact) - chain.repay_factor),
        "expected_pays_abs_diff": abs(float(expected_pays_exact) - chain.expected_pays),
        "nudge_rtp_abs_diff": abs(float(components[NUDGES]) - chain.nudge_rtp),
        "arrow_rtp_abs_diff": abs(float(components[ARROWS]) - chain.arrow_rtp),
        "jackpot_after_nudge_max_abs_diff": float(
            max(abs(float(p) - q) for p, q in zip(jp_nudge_exact, chain.jackpot_after_nudge, strict=True))
        ),
    }
    jackpots = {}
    for k, j in enumerate(opts.jackpots):
        p = jp_prob[j.name]
        jackpots[j.name] = {
            "symbol": j.symbol,
            "award_coins": None if j.pay_per_level is None else int(rules.jp_coins[k]),
            "award_x_total_bet": None
            if j.pay_per_level is None
            else float(Fraction(int(rules.jp_coins[k]), rules.total_bet)),
            "progressive": j.pay_per_level is None,
            "probability": float(p),
            "probability_exact": fraction_str(p),
            "one_in": _one_in(p),
            "after_nudge_probability": float(jp_nudge_exact[k]),
            "on_line_without_win_probability": float(Fraction(int(ex.jp_counts[PATH_LINE, k]), C)),
            "rtp": float(components[j.name]),
        }
    prog = opts.progressive
    pj = opts.progressive_jackpot
    super_fig = None
    if pj is not None:
        p = jp_prob[pj.name]
        net = opts.network
        super_fig = {
            "name": pj.name,
            "convention": "RTP counts the meter and reserve contributions "
            f"({float(prog.meter_rate):.2%} + {float(prog.reserve_rate):.2%} = "
            f"{float(prog.contribution_rate):.2%} of every bet); the operator's "
            f"reseed of {float(prog.reseed):,.0f} {prog.currency} is extra and "
            "depends on the bet size (seed_rtp_by_bet)",
            "meter_rate": float(prog.meter_rate),
            "reserve_rate": float(prog.reserve_rate),
            "reseed": float(prog.reseed),
            "currency": prog.currency,
            "hit_probability": float(p),
            "hit_probability_exact": fraction_str(p),
            "one_in": _one_in(p),
            "reference": renewal_figures(
                prog, p, net.reference_bet, net.players, net.seconds_per_spin, net.window_seconds
            )
            if p
            else None,
            "seed_rtp_by_bet": _seed_table(game, opts, p, rtp),
        }
    per_level = levels_proportional(game)
    features = {
        "rtp_convention": "contributions",
        "rtp_excluding_progressive": float(base),
        "rtp_excluding_progressive_exact": fraction_str(base),
        "rtp_by_level": {str(lv): {"rtp": float(rtp), "rtp_exact": fraction_str(rtp)} for lv in game.levels}
        if per_level
        else None,
        "rtp_same_at_every_level": per_level,
        "hit_frequency_note": "hit frequency, SD, VI and max win are of the coin win of a spin "
        "(landing wins, nudge and arrow re-pays, fixed jackpots); the "
        "progressive is not a coin win",
        "line_win_probability": float(Fraction(ex.win_rounds, C)),
        "nudge": {
            "winning_spins_with_a_nudge": float(Fraction(ex.nudge_rounds, ex.win_rounds)),
            "winning_spins_with_an_arrow": float(Fraction(ex.arrow_rounds, ex.win_rounds)),
            "expected_pays_per_winning_spin": float(expected_pays_exact),
            "expected_pays_per_winning_spin_exact": fraction_str(expected_pays_exact),
            "repay_factor": float(repay_exact),
            "repay_factor_exact": fraction_str(repay_exact),
            "pays_distribution": [
                {"pays": int(k), "probability": float(v), "one_in_winning_spins": _one_in(v)}
                for k, v in enumerate(exact_pays)
                if v > 0
            ],
            "markov_chain": {
                "pays_distribution": [float(v) for v in chain.pays],
                "expected_pays_per_winning_spin": chain.expected_pays,
                "repay_factor": chain.repay_factor,
                "nudge_rtp": chain.nudge_rtp,
                "arrow_rtp": chain.arrow_rtp,
                "jackpot_after_nudge": {
                    j.name: float(chain.jackpot_after_nudge[k]) for k, j in enumerate(opts.jackpots)
                },
                "agreement": agreement,
            },
        },
        "jackpots": jackpots,
        "super": super_fig,
        "max_win_coins": int(dist.wins[-1]),
    }
    return features


def _seed_table(game, opts, p, rtp) -> list:
    """Reseed return as a function of the bet: every coin value x level."""
    prog = opts.progressive
    rows = []
    for cv in opts.coin_values:
        for b in game.bet_levels:
            stake = cv * b.total_bet
            seed = prog.seed_rtp(p, stake)
            rows.append(
                {
                    "coin_value": float(cv),
                    "level": b.level,
                    "total_bet": float(stake),
                    "seed_rtp": float(seed),
                    "rtp_with_seed": float(rtp + seed),
                }
            )
    return rows


def _tables(rules, ex, chain, components, jp_prob, features) -> dict:
    comp = pd.DataFrame(
        {
            "component": list(components),
            "rtp": [float(v) for v in components.values()],
            "rtp_exact": [fraction_str(v) for v in components.values()],
        }
    )
    pays = pd.DataFrame(features["nudge"]["pays_distribution"])
    pays["markov_chain"] = [chain.pays[k] if k < len(chain.pays) else 0.0 for k in pays["pays"]]
    jp = pd.DataFrame(
        [
            {
                "jackpot": k,
                "probability": v["probability"],
                "one_in": v["one_in"],
                "after nudges": v["after_nudge_probability"],
                "on a line, no win": v["on_line_without_win_probability"],
                "award [coins]": v["award_coins"],
                "rtp": v["rtp"],
            }
            for k, v in features["jackpots"].items()
        ]
    )
    out = {
        "RTP by component": comp,
        "Pays per winning spin": pays,
        "Jackpots": jp,
        "Nudge chain by reel": chain.reel_table,
    }
    sup = features.get("super")
    if sup and sup["reference"]:
        out["Super progressive (reference bet)"] = pd.DataFrame(
            [(k, f"{v:,.6g}" if isinstance(v, float) else v) for k, v in sup["reference"].items()],
            columns=["figure", "value"],
        )
    return out


def _notes(opts, features) -> list:
    notes = [
        "Rules as resolved in docs/games/grand_spinn_superpot.md: nudges re-pay the whole "
        "landing line win; the winning symbol is that of the highest line win.",
        features["hit_frequency_note"] + ".",
    ]
    sup = features.get("super")
    if sup:
        notes.append(f"Super: {sup['convention']}.")
    return notes


# ===========================================================================
# Monte Carlo: an independent, literal implementation (its own module)
# ===========================================================================
# ===========================================================================
# reel tuning hooks (slotmath.tuning.tune)
# ===========================================================================
def equivalent_levels(game: Game) -> dict:
    """Every level has the figures of the lowest when coin amounts are
    proportional to the level (:func:`levels_proportional`)."""
    same = levels_proportional(game)
    return {lv: game.levels[0] if same else lv for lv in game.levels}


def tuning_stop_values(game: Game, level: int, reel_set: str = "base") -> dict:
    """Exact per-stop coefficients of the tuned figures
    (:func:`slotmath.rules.grand_spinn_superpot.strips.tuning_stop_values`)."""
    from slotmath.rules.grand_spinn_superpot.strips import tuning_stop_values as values

    return values(game, level, reel_set)


# ---------------------------------------------------------------------------
# tuning_figures: the exact figures the reel-tuning workbench and the tuner
# read after every change (slotmath.analysis.metrics.game_figures)
# ---------------------------------------------------------------------------
_PLAYED: dict = {}


def played_out() -> frozenset:
    """Keys of the play-outs :func:`played_outcomes` keeps (one at a time)."""
    return frozenset(_PLAYED)


def played_outcomes(rules: Rules) -> Outcomes:
    """:func:`play_outcomes` of ``rules`` with the outcome of every round
    kept, reused while only the stop weights change (the play-out of a stop
    combination does not depend on them; :func:`reweigh`): cached on the
    physical strips, symbols, pays, lines, options and level."""
    game = rules.game
    key = (
        rules.level,
        game.rows,
        game.symbols,
        game.line_pays,
        game.paylines,
        repr(game.options),
        rules.strips.tobytes(),
        rules.lengths.tobytes(),
    )
    outcomes = _PLAYED.get(key)
    if outcomes is None:
        outcomes = play_outcomes(rules, keep=True)
        _PLAYED.clear()  # one play-out kept (2 or 4 bytes a round)
        _PLAYED[key] = outcomes
        return outcomes
    return reweigh(rules, outcomes)


def components(game: Game, level: int) -> dict:
    """RTP components [x total bet, exact Fractions] as :func:`analyse` gives
    them, by the path of :func:`tuning_figures` (no Markov-chain
    cross-check, no tables): the landing line win, the nudge and arrow
    re-pays and each jackpot (a progressive's contribution rate, which no
    round pays)."""
    rules = compile_rules(game, level)
    return cycle_figures(rules, enumerate_cycle(rules, played_outcomes(rules)))[0]


def tuning_figures(game: Game, level: int) -> dict:
    """Exact figures of ``game`` at bet ``level`` for tuning, without the
    Markov-chain cross-check, combination and report tables of :func:`analyse`.

    ``rtp``, ``rtp:<component>``, ``hit_frequency``, ``sd``, ``max_win``
    (as :func:`slotmath.analysis.metrics.par_figures` reads them from :func:`analyse`),
    ``feature_frequency`` (P(the nudge feature re-pays the win at least once:
    a nudge or an arrow)) and the nudge, line-win and Super figures of the
    PAR ``features`` as ``feature:<key>[.<sub>]``.  A change of stop weights
    reuses the play-out of every stop combination (:func:`played_outcomes`).
    """
    rules = compile_rules(game, level)
    ex = enumerate_cycle(rules, played_outcomes(rules))
    components, jp_prob, rtp, base, dist = cycle_figures(rules, ex)
    C = ex.cycle
    figs = {
        "rtp": rtp,
        "hit_frequency": dist.hit_frequency,
        "sd": dist.sd,
        "max_win": dist.max_win,
        "feature_frequency": Fraction(ex.repay_rounds, C),
    }
    figs.update({f"rtp:{name}": value for name, value in components.items()})
    figs["feature:rtp_excluding_progressive"] = float(base)
    figs["feature:line_win_probability"] = float(Fraction(ex.win_rounds, C))
    figs["feature:max_win_coins"] = int(dist.wins[-1])
    if ex.win_rounds:
        figs["feature:nudge.winning_spins_with_a_nudge"] = float(Fraction(ex.nudge_rounds, ex.win_rounds))
        figs["feature:nudge.winning_spins_with_an_arrow"] = float(Fraction(ex.arrow_rounds, ex.win_rounds))
        pays = int((ex.pays_hist.astype(object) * np.arange(len(ex.pays_hist))).sum())
        figs["feature:nudge.expected_pays_per_winning_spin"] = float(Fraction(pays, ex.win_rounds))
    if ex.landing:
        figs["feature:nudge.repay_factor"] = float(Fraction(ex.landing + ex.nudge + ex.arrow, ex.landing))
    pj = rules.options.progressive_jackpot
    if pj is not None:
        figs["feature:super.hit_probability"] = float(jp_prob[pj.name])
        if jp_prob[pj.name]:
            figs["feature:super.one_in"] = _one_in(jp_prob[pj.name])
    return figs
