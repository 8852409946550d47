"""Progressive jackpots: renewal-reward figures of a meter with a reseed reserve.

Model
-----
Every bet ``b`` [currency] adds ``meter_rate * b`` to the visible meter and
``reserve_rate * b`` to a reserve set aside for the next jackpot.  When the
jackpot is won the winner takes the meter; the meter restarts at
``reseed + reserve`` (the reseed is paid by the operator; the reserve holds
the contributions set aside since the previous win) and the reserve
restarts at zero.  Each spin wins with probability ``p`` (a constant per
spin, the same for every player), spins are independent.

A cycle (spins between two wins, the winning spin included) has
``N ~ Geometric(p)`` spins on {1, 2, ...}, ``E[N] = 1/p``,
``Var N = (1 - p)/p**2``.  The jackpot paid at the end of cycle ``k`` is

    J_k = reseed + reserve_rate * b * N_{k-1} + meter_rate * b * N_k

with independent ``N_{k-1}, N_k``; in the long run (renewal-reward)

    E[J]  = reseed + (meter_rate + reserve_rate) * b / p
    SD[J] = b * sqrt(meter_rate**2 + reserve_rate**2) * sqrt(1 - p) / p

and the return per unit bet is ``p E[J] / b = meter_rate + reserve_rate +
p * reseed / b``: the contributions come back to players whatever ``p`` is;
the operator's reseed adds ``p * reseed / b``, which depends on the bet.

Two wins close together: with ``players`` each spinning every
``seconds_per_spin`` seconds, spins arrive at ``players / seconds_per_spin``
per second, so the next win after a win comes within ``t`` seconds with
probability ``1 - (1 - p)**(t * players / seconds_per_spin)`` (Poisson limit
``1 - exp(-lambda t)``, ``lambda`` = wins per second).

A game file declares a progressive as ``options.jackpots.NAME: {seed,
contribution, reset}`` (:func:`read_jackpots`, :class:`ProgressiveJackpot`):
money in units of the total bet, ``meter_rate = contribution``, no reserve,
``reseed = reset``; its hit rate per round comes from the round's features.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from slotmath.features.cost import amount_problem

SECONDS_PER_YEAR = 365.25 * 24 * 3600


@dataclass(frozen=True)
class Progressive:
    """A progressive jackpot's funding.

    Attributes
    ----------
    meter_rate : Fraction
        Share of each bet added to the meter [x bet].
    reserve_rate : Fraction
        Share of each bet set aside for the next jackpot [x bet].
    reseed : Fraction
        Operator-funded restart value [currency].
    currency : str
    """

    meter_rate: Fraction
    reserve_rate: Fraction
    reseed: Fraction
    currency: str = "EUR"

    @property
    def contribution_rate(self) -> Fraction:
        """Meter plus reserve: the share of every bet returned through the jackpot [x bet]."""
        return self.meter_rate + self.reserve_rate

    def seed_rtp(self, p, bet):
        """Return from the operator's reseed at bet ``bet`` [x bet]: ``p * reseed / bet``."""
        return p * self.reseed / bet

    def rtp(self, p, bet):
        """Long-run jackpot return per unit bet: contributions plus reseed [x bet]."""
        return self.contribution_rate + self.seed_rtp(p, bet)

    def expected_jackpot(self, p, bet) -> float:
        """Expected jackpot when won [currency]."""
        return float(self.reseed) + float(self.contribution_rate) * bet / float(p)

    def sd_jackpot(self, p, bet) -> float:
        """Standard deviation of the jackpot when won [currency]."""
        p = float(p)
        rates = math.hypot(float(self.meter_rate), float(self.reserve_rate))
        return bet * rates * math.sqrt(1 - p) / p

    def expected_reserve_at_win(self, p, bet) -> float:
        """Reserve balance when the jackpot is won, carried into the next reseed [currency]."""
        return float(self.reserve_rate) * bet / float(p)

    def expected_reserve(self, p, bet) -> float:
        """Reserve balance at a random moment (spins since the last win have
        mean ``(1 - p)/p``, not ``1/p``: the inspection paradox) [currency]."""
        p = float(p)
        return float(self.reserve_rate) * bet * (1 - p) / p

    def expected_meter(self, p, bet) -> float:
        """Meter seen at a random moment [currency]."""
        p = float(p)
        return float(self.reseed) + float(self.contribution_rate) * bet * (1 - p) / p


def p_next_within(p, spins_per_second: float, seconds: float) -> float:
    """P(the next win comes within ``seconds`` of a win) for per-spin win
    probability ``p`` and ``spins_per_second`` over the whole network."""
    spins = spins_per_second * seconds
    return -math.expm1(spins * math.log1p(-float(p)))


def jackpot_figures(prog: Progressive, p, bet) -> dict:
    """Network-free renewal-reward figures of ``prog`` with per-spin win
    probability ``p`` at bet ``bet`` [currency], JSON-ready (floats): the
    keys of :func:`renewal_figures` that need no network of players."""
    pf = float(p)
    return {
        "bet": bet,
        "currency": prog.currency,
        "hit_probability": pf,
        "one_in": 1 / pf,
        "expected_jackpot": prog.expected_jackpot(pf, bet),
        "sd_jackpot": prog.sd_jackpot(pf, bet),
        "expected_spins_between_wins": 1 / pf,
        "expected_turnover_between_wins": bet / pf,
        "reserve_at_win": prog.expected_reserve_at_win(pf, bet),
        "reserve_average": prog.expected_reserve(pf, bet),
        "meter_average": prog.expected_meter(pf, bet),
        "contribution_rtp": float(prog.contribution_rate),
        "seed_rtp": float(prog.seed_rtp(pf, bet)),
        "jackpot_rtp": float(prog.rtp(pf, bet)),
    }


#: keys of :func:`jackpot_figures` listed before the network figures in :func:`renewal_figures`
_BEFORE_NETWORK = 8


def renewal_figures(
    prog: Progressive, p, bet: float, players: int, seconds_per_spin: float, window: float = 30.0
) -> dict:
    """Renewal-reward figures of ``prog`` with per-spin win probability ``p``
    at bet ``bet`` [currency], JSON-ready.

    Keys: ``bet`` [currency], ``hit_probability`` [per spin], ``one_in``
    [spins], ``expected_jackpot`` and ``sd_jackpot`` [currency],
    ``expected_spins_between_wins`` [spins], ``expected_turnover_between_wins``
    [currency], ``expected_days_between_wins`` (network), ``reserve_at_win``,
    ``reserve_average``, ``meter_average`` [currency], ``contribution_rtp``,
    ``seed_rtp``, ``jackpot_rtp`` [x bet], ``wins_per_year``,
    ``p_next_within_window``, ``double_wins_per_year``.
    """
    pf = float(p)
    rate = players / seconds_per_spin  # network spins per second
    wins_per_second = rate * pf
    p2 = p_next_within(pf, rate, window)
    items = list(jackpot_figures(prog, p, bet).items())
    network = {
        "players": players,
        "seconds_per_spin": seconds_per_spin,
        "expected_days_between_wins": 1 / wins_per_second / 86400,
    }
    return {
        **dict(items[:_BEFORE_NETWORK]),
        **network,
        **dict(items[_BEFORE_NETWORK:]),
        "wins_per_year": wins_per_second * SECONDS_PER_YEAR,
        "window_seconds": window,
        "p_next_within_window": p2,
        "double_wins_per_year": wins_per_second * SECONDS_PER_YEAR * p2,
    }


# ===========================================================================
# a game file's progressive jackpot (options.jackpots.NAME: {seed, contribution, reset})
# ===========================================================================
#: keys of a progressive jackpot (``options.jackpots.NAME: {...}``)
PROGRESSIVE_KEYS = ("seed", "contribution", "reset")


@dataclass(frozen=True)
class ProgressiveJackpot:
    """A progressive jackpot declared in ``options.jackpots``.

    Attributes
    ----------
    name : str
    seed : Fraction
        Meter at start-up [x total bet] (first cycle only).
    contribution : Fraction
        Share of every total bet added to the meter [fraction, 0 < c < 1].
    reset : Fraction
        Meter after each win [x total bet] (default ``seed``), funded by the operator.
    """

    name: str
    seed: Fraction
    contribution: Fraction
    reset: Fraction

    @property
    def funding(self) -> Progressive:
        """The meter as :class:`~slotmath.features.progressive.Progressive`, money in
        units of the total bet: meter rate ``contribution``, no reserve, reseed ``reset``."""
        return Progressive(self.contribution, Fraction(0), self.reset, currency="x total bet")


def read_jackpots(rd, opts) -> tuple:
    """``({name: coin value [x total bet]}, {name: ProgressiveJackpot})`` of
    ``options.jackpots``; a progressive's coin value is 0 (its return is not a
    coin win of the round).  ``rd`` is the game file's field reader
    (:class:`slotmath.features.declaration.Reader`); errors name the field, and
    a ``round_cap`` beside a progressive is refused (the cap is on the coin win)."""
    values: dict = {}
    progressive: dict = {}
    if "jackpots" not in opts:
        return values, progressive
    for name, value in rd.mapping(opts["jackpots"], "options.jackpots").items():
        w = f"options.jackpots.{name}"
        if isinstance(value, dict):
            progressive[str(name)] = _progressive(rd, value, w, str(name))
            values[str(name)] = Fraction(0)
        else:
            values[str(name)] = rd.amount(value, w, positive=True)
    if progressive and "round_cap" in opts:
        problem = "cannot be combined with a progressive jackpot (its return is not a coin win)"
        rd.fail("options.round_cap", problem)
    return values, progressive


def _progressive(rd, spec: dict, w: str, name: str) -> ProgressiveJackpot:
    rd.mapping(spec, w, PROGRESSIVE_KEYS, ("seed", "contribution"))
    seed = rd.amount(spec["seed"], f"{w}.seed", positive=True)
    c = rd.number(spec["contribution"], f"{w}.contribution", positive=True)
    if c >= 1:
        rd.fail(
            f"{w}.contribution",
            f"must be below 1 (a fraction of each total bet), got {spec['contribution']!r}",
        )
    rd.check(amount_problem(c, spec["contribution"]), f"{w}.contribution")
    reset = rd.amount(spec["reset"], f"{w}.reset", positive=True) if "reset" in spec else seed
    return ProgressiveJackpot(name, seed, c, reset)
