r"""Fig. 1 (a)-(d) of the paper: energy contours, gradient-flow directions, critical loci, saddle
asymptotes and basins of convergence in R^2 for p = q = 0.9 (p+q > 1) and p = q = 0.1 (p+q < 1).

Grid evaluation uses numpy float64, but only of *derived* expressions (sympy.lambdify of E, g, A and
the condition of Θmin, the stable engine for -∇L, the derived basin sets); nothing is retyped. Panels:
(a)/(c) contours of E with the flow field -grad L (streamlines), (b)/(d) the basins I_min and I* of Thm 2 /
Thm 8 shaded, with the critical sets of Thm 1 (Θ* dashed, w-axis minima and maxima, the saddle) and
e = ±g(w) in yellow. w is horizontal and e vertical, as in the paper. The panels carry no title: the
derivations document and the site caption them (`proofs.outputs.document.figures`).
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np

from local2global.numeric.chain import NumericChain
from local2global.numeric.evaluate import engine

from local2global.proofs.outputs.figures.plotting import figure, plt
from local2global.symbolic.model import canonical_model

_M = canonical_model()

W_RANGE = (-2.5, 2.5)
E_RANGE = (-2.5, 2.5)
N_GRID = 401
COLORS = {"I_min": "#c6dbef", "I_star": "#fdd0a2", "min": "#d62728", "max": "#1f77b4", "star": "#2ca02c",
          "g": "#e6b800", "saddle": "black", "contour": "#6a51a3", "stream": "0.55"}


def _np_functions():
    """numpy versions of the derived expressions (`engine.numpy_table`)."""
    return engine.numpy_table(False)


def _grid():
    w = np.linspace(*W_RANGE, N_GRID)
    e = np.linspace(*E_RANGE, N_GRID)
    return np.meshgrid(w, e)      # W, E arrays: x = w, y = e (as in the paper: e = ±g(w))


def energy_grid(W, Ee):
    f = _np_functions()
    with np.errstate(divide="ignore", invalid="ignore"):
        out = f["E"](Ee, W)
    return np.ma.masked_where(W == 0, out)


def flow_field(p, q, W, Ee):
    """-grad L = -G'(A) grad A on the grid, from the stable float64 engine: (dw/dt, de/dt)."""
    _, ge, gw = engine.loss_and_grad(p, q, Ee, W)
    return -gw, -ge


def _g_curve():
    f = _np_functions()
    w = np.linspace(W_RANGE[0], -1e-9, 2000)
    with np.errstate(invalid="ignore"):
        g = np.real(f["g"](w.astype(complex)))
    return w, g


def _critical_loci(ax, p, q, W, Ee):
    f = _np_functions()
    A_star = f["A_star"](p, q)
    ax.contour(W, Ee, f["A"](Ee, W) - A_star, levels=[0], colors=COLORS["star"], linewidths=1.6,
               linestyles="--", zorder=4)
    w_sad = f["w_sad"]
    left, right = [W_RANGE[0], w_sad], [w_sad, W_RANGE[1]]
    # which side of the saddle holds the local minima: the derived condition of Θmin, at a point of each side
    right_is_min = f["min_sign"](p, q, (w_sad + W_RANGE[1]) / 2) > 0
    mins, maxs = (right, left) if right_is_min else (left, right)
    ax.plot(mins, [0, 0], color=COLORS["min"], lw=2.6, zorder=5, solid_capstyle="butt",
            label=r"local minima $\Theta_{\min}$")
    ax.plot(maxs, [0, 0], color=COLORS["max"], lw=2.6, zorder=5, solid_capstyle="butt",
            label=r"local maxima $\Theta_{\max}$")
    ax.plot([], [], color=COLORS["star"], lw=1.6, ls="--", label=r"global minima $\Theta^{\star}$")
    ax.plot([w_sad], [0], "o", color=COLORS["saddle"], ms=5, zorder=6, label=r"saddle $\Theta_{\mathrm{sad}}$")
    wg, g = _g_curve()
    ax.plot(wg, g, color=COLORS["g"], lw=1.8, zorder=5, label=r"$e = \pm g(w)$")
    ax.plot(wg, -g, color=COLORS["g"], lw=1.8, zorder=5)


def _frame(ax):
    """w horizontal, e vertical (as in the paper and every figure of the project); integer ticks."""
    ax.set_xlim(*W_RANGE)
    ax.set_ylim(*E_RANGE)
    ax.set_xticks(range(-2, 3))
    ax.set_yticks(range(-2, 3))
    ax.set_xlabel("$w$")
    ax.set_ylabel("$e$", rotation=0, labelpad=6)
    ax.set_aspect("equal")
    ax.axvline(0, color="0.6", lw=0.6, zorder=1)


def legend_handles():
    """The legend of Fig. 1, in mathematics: critical sets, asymptotes, contours, flow, basins."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    return [
        Line2D([], [], color=COLORS["min"], lw=2.6, label=r"local minima $\Theta_{\min}$"),
        Line2D([], [], color=COLORS["max"], lw=2.6, label=r"local maxima $\Theta_{\max}$"),
        Line2D([], [], color=COLORS["star"], lw=1.6, ls="--", label=r"global minima $\Theta^{\star}$"),
        Line2D([], [], color=COLORS["saddle"], marker="o", ls="none", ms=5, label=r"saddle $\Theta_{\mathrm{sad}}$"),
        Line2D([], [], color=COLORS["g"], lw=1.8, label=r"$e = \pm g(w)$, i.e. $E = E_{\mathrm{sad}}$"),
        Line2D([], [], color=COLORS["contour"], lw=0.8, label="energy contours $E$"),
        Line2D([], [], color=COLORS["stream"], lw=0.8, label=r"flow $-\nabla L$"),
        Patch(facecolor=COLORS["I_min"], label=r"$I_{\min}$: flow $\to$ local minimum"),
        Patch(facecolor=COLORS["I_star"], label=r"$I^{\star}$: flow $\to$ global minimum"),
    ]


PANEL = (3.3, 3.3)        # inches: at half the text width of the appendix, fonts print at about their size


def _tight(fig):
    fig.subplots_adjust(left=0.13, right=0.98, top=0.98, bottom=0.13)


def _energy_panel(p, q):
    W, Ee = _grid()
    fig, ax = plt.subplots(figsize=PANEL)
    E = energy_grid(W, Ee)
    levels = np.arange(-6.0, 6.01, 0.5)
    ax.contour(W, Ee, E, levels=levels, colors=COLORS["contour"], linewidths=0.7, linestyles="solid", zorder=2)
    ws, es = np.meshgrid(np.linspace(*W_RANGE, 41), np.linspace(*E_RANGE, 41))
    with np.errstate(all="ignore"):
        U, V = flow_field(p, q, ws, es)
    speed = np.hypot(U, V)
    ax.streamplot(ws, es, U / np.where(speed > 0, speed, 1), V / np.where(speed > 0, speed, 1),
                  density=0.7, color=COLORS["stream"], linewidth=0.45, arrowsize=0.6, zorder=3)
    _critical_loci(ax, p, q, W, Ee)
    _frame(ax)
    _tight(fig)
    return fig


def basin_grid(p, q, W, Ee):
    """1 where the start lies in I_min of Thm 2 / Thm 8, 0 elsewhere (the derived sets, `engine.basin_labels`)."""
    regime = NumericChain(Fraction(str(p)), Fraction(str(q))).regime_label
    return (engine.basin_labels(regime, Ee, W) == "I_min").astype(float)


def _basin_panel(p, q):
    W, Ee = _grid()
    fig, ax = plt.subplots(figsize=PANEL)
    B = basin_grid(p, q, W, Ee)
    from matplotlib.colors import ListedColormap
    ax.pcolormesh(W, Ee, B, cmap=ListedColormap([COLORS["I_star"], COLORS["I_min"]]), vmin=0, vmax=1,
                  shading="auto", rasterized=True, zorder=0)
    _critical_loci(ax, p, q, W, Ee)
    _frame(ax)
    _tight(fig)
    return fig


@figure("fig1a")
def fig1a():
    """Fig. 1a: energy contours and flow for p = q = 0.9."""
    return _energy_panel(0.9, 0.9)


@figure("fig1b")
def fig1b():
    """Fig. 1b: basins of Thm 2 for p = q = 0.9."""
    return _basin_panel(0.9, 0.9)


@figure("fig1c")
def fig1c():
    """Fig. 1c: energy contours and flow for p = q = 0.1."""
    return _energy_panel(0.1, 0.1)


@figure("fig1d")
def fig1d():
    """Fig. 1d: basins of Thm 8 for p = q = 0.1."""
    return _basin_panel(0.1, 0.1)


@figure("fig1_legend")
def fig1_legend():
    """The legend shared by the four panels of Fig. 1 (one strip under them)."""
    fig = plt.figure(figsize=(6.4, 0.75))
    fig.legend(handles=legend_handles(), loc="center", ncol=3, fontsize=8, frameon=False, handlelength=1.8,
               columnspacing=1.5)
    return fig
