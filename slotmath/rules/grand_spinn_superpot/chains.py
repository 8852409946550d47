"""Grand Spinn Superpot: the nudge as absorbing Markov chains (checked against the enumeration)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from slotmath.features.nudge import joint_distribution, reel_chains, sum_distribution
from slotmath.model import Game
from slotmath.rules.grand_spinn_superpot.enumeration import Rules, compile_rules, landing_grid


# ===========================================================================
# the nudge as absorbing Markov chains
# ===========================================================================
@dataclass(frozen=True)
class NudgeChain:
    """The nudge solved as absorbing Markov chains and mixed over the landing.

    Attributes
    ----------
    chains : slotmath.features.nudge.ReelChains
        One chain per (reel, winning symbol, landing window).
    pays : ndarray
        ``pays[n]`` = P(a winning spin is paid n times) [probability].
    repay_factor : float
        Total line win over landing line win, ``E[W0 N] / E[W0]``.
    expected_pays : float
        ``E[N | win]``: pays per winning spin.
    nudge_rtp, arrow_rtp : float
        Nudge and arrow re-pays [x total bet].
    jackpot_after_nudge : ndarray, shape (J,)
        P(jackpot j is won after the nudges) per spin [probability].
    reel_table : DataFrame
        Per reel: P(nudge k+1 | k nudges), P(arrow), over winning spins.
    class_prob : ndarray, shape (R, X, D)
        P(reel r lands in class d and the winning symbol is the x-th).
    """

    chains: object
    pays: np.ndarray
    repay_factor: float
    expected_pays: float
    nudge_rtp: float
    arrow_rtp: float
    jackpot_after_nudge: np.ndarray
    reel_table: pd.DataFrame
    class_prob: np.ndarray

    def busiest(self, reel: int = 0) -> tuple:
        """(reel, symbol position, class) of the reel's most likely chain."""
        x, d = np.unravel_index(np.argmax(self.class_prob[reel]), self.class_prob[reel].shape)
        return reel, int(x), int(d)


def nudge_chain(rules: Rules) -> NudgeChain:
    """Solve the nudge as absorbing Markov chains (see :mod:`slotmath.features.nudge`).

    Landing classes are the distinct windows of each reel.  Given the
    reels' windows the landing win ``W0`` and the winning symbol ``X`` are
    fixed (played at one stop per class, :func:`landing_grid`) and the stops
    are independent within their classes, so each reel nudges by the chain
    of (reel, ``X``, window) and a spin is the landing-weighted mixture of
    the reels' independent chains.
    """
    game = rules.game
    R = game.reels
    klass = np.zeros_like(rules.strips)
    reps, n_classes = [], []
    for r in range(R):
        n = rules.lengths[r]
        _, first, inv = np.unique(rules.windows[r, :n], axis=0, return_index=True, return_inverse=True)
        klass[r, :n] = inv.ravel()
        reps.append(first)
        n_classes.append(len(first))
    D = max(n_classes)
    xs = np.unique(rules.entry_symbol)
    chains = reel_chains(
        rules.strips, rules.lengths, rules.weights, klass, D, xs, rules.arrow, rules.n_symbols
    )
    landing, symbol = landing_grid(rules, reps)
    landing = landing.astype(np.float64)
    prob = np.ones(())
    for r in range(R):
        cwr = chains.class_weight[r, : n_classes[r]].astype(np.float64)
        prob = np.multiply.outer(prob, cwr / cwr.sum())
    moves = chains.moves_distribution
    nudge_mean, arrow_mean = chains.nudge_arrow_means
    S = rules.n_symbols
    J = len(rules.jp_coins)
    # cap index -> jackpot code: 0 none, 1 + rank for a jackpot symbol on top of X
    cap_code = np.zeros(S + 2, dtype=np.int64)
    for s in range(S):
        if rules.jp_rank[s] >= 0:
            cap_code[s] = 1 + rules.jp_rank[s]
    pays = np.zeros(moves.shape[-1] * R + 1)
    e_w0, e_w0_nudge, e_w0_arrow, p_win = 0.0, 0.0, 0.0, 0.0
    jackpots = np.zeros(J)
    class_prob = np.zeros(chains.visits.shape[:3])  # P(reel r lands class d, winning symbol x)
    grid = np.stack(np.meshgrid(*([np.arange(J + 1)] * R), indexing="ij"))
    all_jp = (grid > 0).all(axis=0)  # every reel caps its stack with a jackpot symbol
    low = grid.min(axis=0) - 1  # the lowest of them (rule R17)
    for xi, x in enumerate(chains.symbols):
        mask = symbol == x
        if not mask.any():
            continue
        # only the classes that take part in a win with x
        keep = [np.flatnonzero(mask.any(axis=tuple(a for a in range(R) if a != r))) for r in range(R)]
        sub = np.ix_(*keep)
        T = np.where(mask[sub], prob[sub], 0.0)
        TW = T * landing[sub]
        p_win += T.sum()
        e_w0 += TW.sum()
        factors = [moves[r, xi, keep[r]] for r in range(R)]
        dist = sum_distribution(T, factors)
        pays[1 : 1 + len(dist)] += dist
        for r in range(R):
            axes = tuple(a for a in range(R) if a != r)
            class_prob[r, xi, keep[r]] = T.sum(axis=axes)
            marg = TW.sum(axis=axes)
            e_w0_nudge += marg @ nudge_mean[r, xi, keep[r]]
            e_w0_arrow += marg @ arrow_mean[r, xi, keep[r]]
        caps = []
        for r in range(R):
            cd = chains.cap_distribution[r, xi, keep[r]]
            g = np.zeros((len(keep[r]), J + 1))
            for c in range(S + 2):
                g[:, cap_code[c]] += cd[:, c]
            caps.append(g)
        joint = joint_distribution(T, caps)
        for j in range(J):
            jackpots[j] += joint[all_jp & (low == j)].sum()
    pays = pays[: np.flatnonzero(pays)[-1] + 1] / p_win
    bet = rules.total_bet
    return NudgeChain(
        chains,
        pays,
        (e_w0 + e_w0_nudge + e_w0_arrow) / e_w0,
        float((pays * np.arange(len(pays))).sum()),
        e_w0_nudge / bet,
        e_w0_arrow / bet,
        jackpots,
        reel_transition_table(chains, class_prob, p_win),
        class_prob,
    )


def solve_nudge(game: Game, level: int) -> NudgeChain:
    """The nudge chains of ``game`` at ``level`` (see :func:`nudge_chain`)."""
    return nudge_chain(compile_rules(game, level))


def reel_transition_table(chains, class_prob, p_win) -> pd.DataFrame:
    """Per reel and state ``(k nudges, arrow unused)``, the chains'
    transition probabilities averaged over winning spins (each chain
    weighted by its probability of reaching the state)."""
    R = class_prob.shape[0]
    K = int((~chains.arrow_used).sum())
    rows = []
    for r in range(R):
        v = np.einsum("xd,xdt->t", class_prob[r], chains.visits[r])
        flow = np.einsum("xd,xdt,xdts->ts", class_prob[r], chains.visits[r], chains.Q[r])
        for k in range(K - 1):
            if v[k] > 0:
                nxt, arrow = flow[k, k + 1], flow[k, K:].sum()
                rows.append(
                    {
                        "reel": r + 1,
                        "nudges so far": k,
                        "P(reach | win)": v[k] / p_win,
                        "P(nudge again)": nxt / v[k],
                        "P(arrow fires)": arrow / v[k],
                        "P(stop)": 1 - (nxt + arrow) / v[k],
                    }
                )
    return pd.DataFrame(rows)
