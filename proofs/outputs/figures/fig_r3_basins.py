r"""The R^3 basins of GF-Attention in closed form (Thms A, B; our result, Sec. 4.1): the separatrix S and slices.

* (a) the (a, e) plane: the region R below the separatrix S = {e^2 = y_S(a)} (Airy functions: the descending
  gradient lines of U reach the a-axis there), the curve C = {1 + ae^2 = 0} and the e-nullcline N; S x R_w
  is the separatrix surface in R^3 (for p+q > 1, S x [0, oo) is where the flow diverges);
* (b), (c) the slice a0 = 0 ((w, e) plane) for p+q > 1 and p+q < 1: local minima on {e^2 < y_S(0), w > w_c(e, 0)}
  resp. {e^2 < y_S(0), w < w_c'(e, 0)}, global minima elsewhere (off e = 0);
* (d) the slice w0 = -1/2, p+q > 1 ((a, e) plane): local minima where e^2 < y_S(a) and
  Δ(e, a) < E_sad - f(-1/2) (Δ = e^2 - 2a^2 + 2a_inf^2), i.e. w0 > w_c(e, a).

Everything is evaluated from the characterisation (`numeric.dynamics.basins_r3`: y_S, a_inf, w_c), no flow is
integrated, so the figure takes a few seconds and needs no cache. The classes depend on (p, q) only through
sign(p+q-1).
"""
from __future__ import annotations

from fractions import Fraction

import mpmath as mp
import numpy as np

from local2global.numeric.precision import working
from local2global.numeric.dynamics import basins_r3 as nr3
from local2global.proofs.outputs.figures.fig_attention import CLASS_COLORS
from local2global.proofs.outputs.figures.plotting import figure, plt

DPS = 15
A_RANGE = (Fraction(-3), Fraction(3, 2))
E_MAX = 3
W_RANGE = (-2.0, 1.0)
#: grid of panel (d): (a, e) cells in which a_inf is evaluated (only inside R)
GRID_D = 31
#: the critical plane e = 0 as in Fig. 2: local minima red, local maxima dark blue
AXIS_MIN, AXIS_MAX = "#de2d26", "#08519c"


def _f(x: Fraction) -> mp.mpf:
    return mp.mpf(x.numerator) / x.denominator


def _separatrix(n: int = 91):
    """(a, e_S(a)) on S for a in A_RANGE (e_S = sqrt(y_S(a)))."""
    a_lo, a_hi = A_RANGE
    pts = [a_lo + (a_hi - a_lo) * Fraction(k, n - 1) for k in range(n)]
    with working(DPS):
        return np.array([float(x) for x in pts]), np.array([float(mp.sqrt(nr3.sep_y(x, dps=DPS))) for x in pts])


def _threshold_curve(regime: int, a0=Fraction(0), n: int = 60):
    """(e, w_c(e, a0)) for 0 < e < e_S(a0) (regime +1: w_c on B_mid; -1: w_c' on B_low)."""
    with working(DPS):
        eS = mp.sqrt(nr3.sep_y(a0, dps=DPS))
        es, ws = [], []
        for k in range(1, n):
            # nodes clustered towards e_S, where w_c falls off fastest (a_inf -> -oo)
            s = Fraction(k, n)
            ev = nr3.frac_of(eS * _f(1 - (1 - s) ** 2))
            wv = nr3.w_c(ev, a0, regime, dps=DPS)[0]
            es.append(float(ev))
            ws.append(float(wv))
        return np.array(es), np.array(ws), float(eS)


def _delta_grid():
    """Δ(e, a) on a GRID_D x GRID_D grid of (a, e) in A_RANGE x (0, E_MAX], NaN outside R (e^2 >= y_S(a))."""
    a_lo, a_hi = A_RANGE
    As = [a_lo + (a_hi - a_lo) * Fraction(k, GRID_D - 1) for k in range(GRID_D)]
    Es = [Fraction(E_MAX) * Fraction(k, GRID_D) for k in range(1, GRID_D + 1)]
    D = np.full((len(Es), len(As)), np.nan)
    with working(DPS):
        for j, av in enumerate(As):
            yS = nr3.sep_y(av, dps=DPS)
            for i, ev in enumerate(Es):
                if _f(ev) ** 2 < yS * (1 - mp.mpf(10) ** -6):      # inside R, off the tangency with S
                    D[i, j] = float(nr3.w_c(ev, av, 1, dps=DPS)[1])
    return np.array([float(x) for x in As]), np.array([float(x) for x in Es]), D


def _axis(ax, xlabel):
    ax.set_xlabel(xlabel)
    ax.set_ylabel("$e_0$", rotation=0, labelpad=6)
    ax.set_ylim(-E_MAX, E_MAX)


@figure("fig_r3_basins", heavy=True)
def fig_r3_basins():
    """S, R, C and N in the (a, e) plane; the slices a0 = 0 (both regimes) and w0 = -1/2 (p+q > 1)."""
    from matplotlib.patches import Patch
    from matplotlib.lines import Line2D
    fig, axes = plt.subplots(2, 2, figsize=(6.8, 6.6))
    blue, orange = CLASS_COLORS["local_min"], CLASS_COLORS["global_min"]
    a_s, e_s = _separatrix()
    # (a) the (a, e) plane
    ax = axes[0, 0]
    ax.set_facecolor("white")
    ax.fill_between(a_s, -e_s, e_s, color="#c7e9c0", lw=0)
    ax.plot(a_s, e_s, "k", lw=1.2)
    ax.plot(a_s, -e_s, "k", lw=1.2)
    an = np.linspace(float(A_RANGE[0]), -1 / 18, 200)
    # C and N (symmetric in e) drawn for e > 0 only, so the legend can sit below
    ax.plot(an, np.sqrt(-1 / an), color="#756bb1", ls="--", lw=0.9)         # C: 1 + a e^2 = 0
    ax.plot(an, np.sqrt(-1 / (2 * an)), color="#756bb1", ls=":", lw=0.9)    # N: 1 + 2a e^2 = 0
    ax.set_xlim(float(A_RANGE[0]), float(A_RANGE[1]))
    _axis(ax, "$a_0$")
    ax.text(-0.9, 0.0, "$R$", ha="center", va="center", fontsize=10)
    ax.text(0.3, 2.25, "above $S$", ha="center", fontsize=8)
    ax.legend(handles=[Line2D([], [], color="k", lw=1.2, label="$S$: $e^2 = y_S(a)$"),
                       Line2D([], [], color="#756bb1", ls="--", lw=0.9, label="$C$: $1 + ae^2 = 0$ ($e > 0$ shown)"),
                       Line2D([], [], color="#756bb1", ls=":", lw=0.9, label="$N$: $1 + 2ae^2 = 0$ ($e > 0$ shown)"),
                       Patch(facecolor="#c7e9c0", label="$R$: lines reach $e = 0$"),
                       Line2D([], [], color="none", label=r"($S \times \mathbb{R}_w$: the separatrix surface)")],
              loc="lower left", fontsize=6.5, frameon=True, framealpha=0.9)
    # (b), (c) the slice a0 = 0 in both regimes
    for ax, regime in ((axes[0, 1], 1), (axes[1, 0], -1)):
        es, ws, eS = _threshold_curve(regime)
        ax.set_facecolor(orange)
        ee = np.concatenate([-es[::-1], [0.0], es])
        ww = np.concatenate([ws[::-1], [-1 / np.sqrt(2)], ws])
        if regime > 0:
            ax.fill_betweenx(ee, ww, W_RANGE[1], color=blue, lw=0)
        else:
            ax.fill_betweenx(ee, W_RANGE[0], ww, color=blue, lw=0)
        ax.plot(ww, ee, color="k", lw=0.8)
        for sign in (1, -1):
            ax.axhline(sign * eS, color="k", lw=1.2)
        sad = -1 / np.sqrt(2)
        # the critical plane e = 0: local minima (red) and local maxima (dark blue), as in Fig. 2
        left, right = (AXIS_MAX, AXIS_MIN) if regime > 0 else (AXIS_MIN, AXIS_MAX)
        ax.plot([W_RANGE[0], sad], [0, 0], color=left, lw=2.2, solid_capstyle="butt")
        ax.plot([sad, W_RANGE[1]], [0, 0], color=right, lw=2.2, solid_capstyle="butt")
        ax.plot([sad], [0], "ko", ms=3)
        ax.axvline(sad, color="k", lw=0.6, ls="--")
        ax.set_xlim(*W_RANGE)
        _axis(ax, "$w_0$")
        ax.text(0.02, 0.97, "$a_0 = 0$, " + ("$p + q > 1$ (Theorem A)" if regime > 0 else "$p + q < 1$ (Theorem B)"),
                transform=ax.transAxes, fontsize=7.5, va="top")
    # (d) the slice w0 = -1/2, p+q > 1
    ax = axes[1, 1]
    As, Es, D = _delta_grid()
    with working(DPS):
        level = float(nr3.E_sad() - nr3.f_of(mp.mpf(-1) / 2))    # local min iff Δ < E_sad - f(w0)
    ax.set_facecolor(orange)
    EE = np.concatenate([-Es[::-1], Es])
    DD = np.vstack([D[::-1], D])
    ax.contourf(As, EE, np.where(np.isnan(DD), np.inf, DD), levels=[-np.inf, level], colors=[blue])
    ax.contour(As, EE, np.where(np.isnan(DD), np.inf, DD), levels=[level], colors="k", linewidths=0.8)
    ax.plot(a_s, e_s, "k", lw=1.2)
    ax.plot(a_s, -e_s, "k", lw=1.2)
    ax.plot([float(A_RANGE[0]), float(A_RANGE[1])], [0, 0], color=AXIS_MIN, lw=2.2, solid_capstyle="butt")
    ax.set_xlim(float(A_RANGE[0]), float(A_RANGE[1]))
    _axis(ax, "$a_0$")
    ax.text(0.02, 0.97, "$w_0 = -1/2$, $p + q > 1$", transform=ax.transAxes, fontsize=7.5, va="top")
    handles = [Patch(facecolor=blue, edgecolor="0.5", lw=0.5, label=r"flow $\to$ local minimum $\Theta_{\min}$"),
               Patch(facecolor=orange, edgecolor="0.5", lw=0.5, label=r"flow $\to$ global minimum $\Theta^{\star}$"),
               Line2D([], [], color="k", lw=1.2, label=r"separatrix $S$ ($e_0^2 = y_S(a_0)$)"),
               Line2D([], [], color="k", lw=0.8, label=r"race tie $w_0 = w_c$ (saddle)"),
               Line2D([], [], color=AXIS_MIN, lw=2.2, label=r"$e = 0$: local minima"),
               Line2D([], [], color=AXIS_MAX, lw=2.2, label=r"$e = 0$: local maxima")]
    fig.legend(handles=handles, loc="lower center", ncol=3, fontsize=7, frameon=False)
    for ax, tag in zip(axes.flat, "abcd"):
        ax.set_title(f"({tag})", fontsize=8, loc="left")
    fig.subplots_adjust(hspace=0.32, wspace=0.28, bottom=0.13, top=0.95, left=0.08, right=0.98)
    return fig
