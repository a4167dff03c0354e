r"""Figure A.4 (beside Fig. 1): where the gradient flow ends with and without weight tying, from the same small starts.

Both models have L = G(A) with the same G, so both are drawn in the plane of w (horizontal) and the slope A
(vertical, a symmetric-log axis): the global minima are the line A = A* (dashed green), the unigram points the
line A = 0, coloured by its derived classes (tied: local minima red, local maxima blue, the saddle at w_sad;
untied: every point a saddle, black). Rows: p = q = 0.9 (p + q > 1), p = q = 0.1 (p + q < 1); columns: tied
(θ = (e, w)), untied (θ = (e, w, h)). Each panel shows the integrated flows (`numeric.flow.ReducedFlow`, 20
digits) from eight starts drawn from N(0, σ²) with σ = 1/5 (the same (e_0, w_0) in both columns; h_0 drawn after
them), dot: start, cross: end, coloured by where the flow ends (orange: a global minimum, red: a local minimum). Nothing is retyped: A, A*, w_sad and the classes come from the derived models.
"""
from __future__ import annotations

import random
from fractions import Fraction
from functools import lru_cache

import numpy as np

from local2global.numeric.dynamics.flow import ReducedFlow
from local2global.proofs.outputs.figures.plotting import figure, plt
import sympy as sp

from local2global.symbolic import energy as senergy
from local2global.symbolic import symbols as S
from local2global.symbolic.model import canonical_model

CHAINS = ((Fraction(9, 10), Fraction(9, 10)), (Fraction(1, 10), Fraction(1, 10)))
SIGMA, N_STARTS, SEED, DPS = 0.2, 8, 4, 20
W_RANGE = (-2.2, 2.2)
COLORS = {"star": "#2ca02c", "min": "#d62728", "max": "#1f77b4", "saddle": "black", "global_min": "#e6550d",
          "local_min": "#d62728", "path": "0.35"}


def starts() -> list[tuple]:
    """(e0, w0, h0) from N(0, σ²I_3), exact fractions of seeded float draws; the tied runs use (e0, w0)."""
    rng = random.Random(SEED)
    return [tuple(Fraction(rng.gauss(0.0, SIGMA)) for _ in range(3)) for _ in range(N_STARTS)]


@lru_cache(maxsize=None)
def trajectories(p, q, untied: bool) -> tuple:
    """Per start: (w along the path, A along the path) as float arrays, sampled at the accepted steps."""
    fl = ReducedFlow(p, q, untied=untied)
    out = []
    for th in starts():
        th0 = th if untied else th[:2]
        res = fl.run(th0, dps=DPS, record=True, max_steps=4000)
        ws = np.array([float(y[1]) for _, y in res.path])
        As = np.array([float(fl.A(y)) for _, y in res.path])
        out.append((ws, As))
    return tuple(out)


def _panel(ax, p, q, untied: bool):
    m = canonical_model(untied=True) if untied else canonical_model()
    A_star = float(ReducedFlow(p, q).A_star())
    w_sad = float(senergy.energy_on_w_axis()["w_sad"])
    ax.axhline(A_star, color=COLORS["star"], ls="--", lw=1.2)
    if untied:
        ax.plot(W_RANGE, (0, 0), color=COLORS["saddle"], lw=2.2)
    else:
        cond = {cs.name: cs for cs in m.critical_sets()}["Theta_min"].condition
        holds = sp.lambdify(S.w, cond.subs({S.p: sp.Rational(p), S.q: sp.Rational(q)}), "math")
        left, right = (W_RANGE[0], w_sad), (w_sad, W_RANGE[1])
        for seg in (left, right):
            mid = (seg[0] + seg[1]) / 2
            ax.plot(seg, (0, 0), color=COLORS["min"] if holds(mid) else COLORS["max"], lw=2.2)
        ax.plot([w_sad], [0], "o", color=COLORS["saddle"], ms=4)
    for ws, As in trajectories(p, q, untied):
        end = "global_min" if abs(As[-1] - A_star) < 1e-6 else "local_min"
        ax.plot(ws, As, color=COLORS["path"], lw=0.8)
        ax.plot(ws[0], As[0], "o", color=COLORS[end], ms=3)
        ax.plot(ws[-1], As[-1], "x", color=COLORS[end], ms=5, mew=1.5)
    ax.set_yscale("symlog", linthresh=1e-2)
    ax.set_xlim(*W_RANGE)
    ax.set_ylim(-30, 30)


@figure("fig_untied", heavy=True)
def fig_untied():
    fig, axes = plt.subplots(2, 2, figsize=(7.6, 6.2), sharex=True, sharey=True)
    for row, (p, q) in enumerate(CHAINS):
        for col, untied in enumerate((False, True)):
            _panel(axes[row, col], p, q, untied)
            axes[row, col].set_title(f"{'untied' if untied else 'tied'}, $p = q = {float(p):g}$", fontsize=9)
        axes[row, 0].set_ylabel("slope $A$ (symmetric log scale)")
        for col in range(2):
            axes[1, col].set_xlabel("$w$")
    fig.tight_layout()
    return fig
