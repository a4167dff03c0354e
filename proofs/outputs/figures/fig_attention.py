r"""Fig. 2 and Fig. 5 of the paper (gradient flow with the attention scalar, θ = (e, w, a) in R^3) and
the basin slices that Sec. 4.1 leaves open, for p = q = 0.9 (p+q > 1) and p = q = 0.1 (p+q < 1).

* fig2_p09 / fig2_p01: 3D view (x = w, y = a, z = e) of a level surface of the derived energy
  E(e, w, a) (Lemma 14), the critical sets of Thm 10 (Θ* as a surface, the plane e = 0 split into
  local minima and maxima, the saddle line e = 0, w = -1/√2, the curve Θ_station) and integrated flows.
* fig5_p09 / fig5_p01: the same near the origin, with flows from small Gaussian starts (Thm 11).
* fig_attn_basins: limit classes of GF-Attention on the slices a0 = 0 (plane (w, e)) and w0 = -1/2
  (plane (a, e); w0 = -3/2 for p = q = 0.1, where the slice w0 = -1/2 holds one class only); e vertical.

The panels carry no title (the derivations document and the site caption them, numbered as the paper's:
`proofs.outputs.document.figures`); legends are in mathematics.

Every plotted set comes from `canonical_model(attention=True)` (lambdified); trajectories and basin classes come
from the mpmath integrator (`numeric.dynamics.flow.ReducedFlow` with attention). Basin
grids are expensive (one flow per cell), so they are cached as JSON under $L2G_CACHE/attention (this module owns
that cache, `numeric.infra.cache.KINDS`), keyed by all parameters and a hash of the code (`numeric.infra.cache`:
a corrupted or stale file is recomputed, never used); the cache only stores what `basin_slice` returns.
"""
from __future__ import annotations

import os
from fractions import Fraction
from functools import lru_cache
from pathlib import Path

import mpmath as mp
import numpy as np
import sympy as sp


from local2global.numeric.dynamics import basins as nbasins
from local2global.numeric.evaluate import engine
from local2global.numeric.dynamics.flow import ReducedFlow
from local2global.numeric.precision import limit_tolerances, working
from local2global.numeric.infra.cache import cache_folder, cached_json, source_hash
from local2global.proofs.outputs.figures.plotting import figure, plt
from local2global.symbolic.model import canonical_model

_MA = canonical_model(True)

CLASS_COLORS = {"local_min": "#9ecae1", "global_min": "#fdd0a2", "local_max": "#08519c", "saddle": "#636363",
                "station": "#31a354", "None": "#ffffff"}
CHAINS = {"p09": (Fraction(9, 10), Fraction(9, 10)), "p01": (Fraction(1, 10), Fraction(1, 10))}
#: grid size of the basin slices: one flow per cell (21 x 21 x 4 slices ~ 1800 flows, minutes of CPU on a cold
#: cache); $L2G_ATTN_SLICE_N lowers it, e.g. for CI
SLICE_N = int(os.environ.get("L2G_ATTN_SLICE_N", "21"))
SLICE_RANGE = (Fraction(-2), Fraction(2))


def _np():
    """numpy versions of the derived expressions (`engine.numpy_table` of the attention model)."""
    return engine.numpy_table(True)


#: this module's cache (`numeric.infra.cache.KINDS`): $L2G_CACHE/attention
CACHE_KIND = "attention"


def slice_grid(p, q, fixed: str, value, n: int | None = None, dps: int = 15) -> dict:
    """Limit classes on an n x n grid of a slice over [-2, 2]^2 (cached: `numeric.infra.cache`, keyed by the
    parameters and the code; a corrupted or stale file is recomputed)."""
    n = SLICE_N if n is None else n
    xs = [SLICE_RANGE[0] + (SLICE_RANGE[1] - SLICE_RANGE[0]) * Fraction(i, n - 1) for i in range(n)]
    key = f"slice_p{Fraction(p)}_q{Fraction(q)}_{fixed}{Fraction(value)}_n{n}_dps{dps}"

    def compute():
        grid = nbasins.basin_slice(p, q, fixed, Fraction(value), xs, xs, dps=dps)
        return {"p": str(p), "q": str(q), "fixed": fixed, "value": str(value), "xs": [str(x) for x in xs],
                "ys": [str(x) for x in xs], "grid": grid}
    return cached_json(cache_folder(CACHE_KIND), key, _code_hash(), compute)


@lru_cache(maxsize=None)
def _code_hash() -> str:
    """The code a basin map depends on: the numeric and symbolic packages (any change invalidates)."""
    from local2global import numeric, symbolic
    trees = [Path(numeric.__file__).resolve().parent, Path(symbolic.__file__).resolve().parent]
    return source_hash(sorted(f for t in trees for f in t.rglob("*.py")),
                       extra=(sp.__version__, mp.__version__))


def _flows(p, q, starts, dps=15):
    """Recorded trajectories (arrays of (e, w, a)) of GF-Attention from exact starts."""
    fl = ReducedFlow(p, q, attention=True)
    out = []
    for th0 in starts:
        res = fl.run(th0, dps=dps, record=True, max_steps=4000)
        path = np.array([[float(x) for x in th] for _, th in res.path])
        with working(dps, guard=False):
            cls = (nbasins.critical_class(fl, res.theta, **limit_tolerances(dps)) if res.converged else None)
        out.append((path, cls))
    return out


def _snapped(U, V, valid, iterations: int = 40):
    """A parameter grid (U, V) whose invalid vertices next to a valid one (along a grid line) are moved onto the
    boundary of the valid set by bisection, and the mask of the vertices to draw: a surface drawn on it ends on its
    boundary (the box, the edge of its domain) instead of in the staircase of whole grid cells."""
    ok = np.asarray(valid(U, V), dtype=bool)
    U2, V2, draw = U.copy(), V.copy(), ok.copy()
    for axis in (0, 1):
        for shift in (1, -1):
            nb = np.roll(ok, shift, axis)
            edge = [slice(None)] * 2
            edge[axis] = 0 if shift == 1 else -1          # np.roll wraps around: the first (last) line has no neighbour
            nb[tuple(edge)] = False
            cand = ~draw & nb
            if not cand.any():
                continue
            gu, gv = np.roll(U, shift, axis)[cand], np.roll(V, shift, axis)[cand]        # the valid end
            bu, bv = U[cand], V[cand]                                                    # the invalid end
            for _ in range(iterations):
                mu, mv = (gu + bu) / 2, (gv + bv) / 2
                inside = np.asarray(valid(mu, mv), dtype=bool)
                gu, gv = np.where(inside, mu, gu), np.where(inside, mv, gv)
                bu, bv = np.where(inside, bu, mu), np.where(inside, bv, mv)
            U2[cand], V2[cand] = gu, gv
            draw[cand] = True
    return U2, V2, draw


#: vertices per side of the parameter grids of the 3-D surfaces (smooth at the size they print; rasterised)
SURFACE_N = 81


def _critical_sets(ax, p, q, box) -> set:
    """Θ* (surface), e = 0 plane split at w = -1/√2, the saddle line and Θ_station, clipped to `box`; returns what
    was drawn ("star", "min", "max", "sad", "station"), so that the legend lists only that."""
    (w0, w1), (a0, a1), (e0, e1) = box
    f = _np()
    drawn = set()
    pf, qf = float(p), float(q)

    def a_star(ee, ww):
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return f["a_on_star"](pf, qf, ee, ww)

    def on_star(ee, ww):
        aa = a_star(ee, ww)
        return np.isfinite(aa) & (aa >= a0) & (aa <= a1) & (np.abs(ee) > 1e-3)
    # the two sheets e > 0 and e < 0 apart (Θ* does not meet e = 0)
    for lo, hi in ((max(e0, 1e-3), e1), (e0, min(e1, -1e-3))):
        if hi <= lo:
            continue
        ee, ww = np.meshgrid(np.linspace(lo, hi, SURFACE_N), np.linspace(w0, w1, SURFACE_N))
        ee, ww, draw = _snapped(ee, ww, on_star)
        if not draw.any():
            continue
        aa = np.where(draw, np.clip(a_star(ee, ww), a0, a1), np.nan)
        ax.plot_surface(ww, aa, np.where(draw, ee, np.nan), color="#2ca02c", alpha=0.25, linewidth=0, shade=False,
                        rstride=1, cstride=1, rasterized=True)
        drawn.add("star")
    al = np.linspace(a0, a1, 2)
    wsad = f["w_sad"]
    for lo, hi in ((w0, min(w1, wsad)), (max(w0, wsad), w1)):      # each side of the saddle line, inside the box
        if hi <= lo:
            continue
        is_min = f["min_sign"](pf, qf, (lo + hi) / 2) > 0
        Wp, Ap = np.meshgrid(np.linspace(lo, hi, 2), al)
        ax.plot_surface(Wp, Ap, 0 * Wp, color="#d62728" if is_min else "#1f77b4", alpha=0.18, linewidth=0, shade=False)
        drawn.add("min" if is_min else "max")
    if w0 <= wsad <= w1:
        ax.plot([wsad, wsad], [a0, a1], [0, 0], color="black", lw=1.5)
        drawn.add("sad")
        es = np.linspace(e0, e1, 400)
        with np.errstate(divide="ignore"):
            ast = -1 / es**2
        ok = (ast >= a0) & (ast <= a1)
        if ok.any():
            ax.plot(np.full(ok.sum(), wsad), ast[ok], es[ok], ".", ms=1.2, color="#7f00ff")
            drawn.add("station")
    return drawn


def _energy_surface(ax, level, box, color="0.6") -> bool:
    """The level set E(e, w, a) = level as the two graphs e = ±sqrt(level - E(0, w, a)) over (w, a) (the derived
    energy is e² plus a function of (w, a)), ending on the box and on the edge of its domain; True if any of it
    lies in the box."""
    (w0, w1), (a0, a1), (e0, e1) = box
    E = _np()["E"]
    top = min(abs(e0), abs(e1)) ** 2

    def e2(ww, aa):
        with np.errstate(invalid="ignore", divide="ignore"):
            return level - E(0.0, ww, aa)

    def inside(ww, aa):
        v = e2(ww, aa)
        return np.isfinite(v) & (v >= 0) & (v <= top) & (ww != 0)
    W, Aa = np.meshgrid(np.linspace(w0, w1, SURFACE_N), np.linspace(a0, a1, SURFACE_N))
    W, Aa, draw = _snapped(W, Aa, inside)
    if not draw.any():
        return False
    Z = np.sqrt(np.clip(np.where(draw, e2(W, Aa), np.nan), 0, top))
    for sgn in (1, -1):
        ax.plot_surface(W, Aa, sgn * Z, color=color, alpha=0.15, linewidth=0, shade=False, rstride=1, cstride=1,
                        rasterized=True)
    return True


def _frame3d(ax, box):
    """w and a horizontal, e vertical; five ticks per axis (readable at half the text width)."""
    from matplotlib.ticker import FixedLocator, FuncFormatter
    (w0, w1), (a0, a1), (e0, e1) = box
    ax.set_xlim(w0, w1)
    ax.set_ylim(a0, a1)
    ax.set_zlim(e0, e1)
    for axis, (lo, hi) in zip((ax.xaxis, ax.yaxis, ax.zaxis), box):
        # ticks inside the box, none at its ends: the labels of two axes never meet at a corner
        ticks = list(range(int(lo) + 1, int(hi))) if hi - lo > 2 else [lo / 2, (lo + hi) / 2, hi / 2]
        axis.set_major_locator(FixedLocator(ticks))
        axis.set_major_formatter(FuncFormatter(lambda v, _: ("%g" % v).replace("-", "\u2212")))
    ax.tick_params(axis="both", which="major", labelsize=7, pad=0)
    ax.set_xlabel("$w$", labelpad=-3)
    ax.set_ylabel("$a$", labelpad=-3)
    ax.set_zlabel("$e$", labelpad=-3)
    ax.zaxis.set_rotate_label(False)
    ax.view_init(elev=22, azim=-58)


#: the class of a limit, in the legend's words (mathematics for the sets)
CLASS_LABEL = {"global_min": r"flow $\to$ global minimum ($\Theta^{\star}$)",
               "local_min": r"flow $\to$ local minimum ($\Theta_{\min}$)",
               "local_max": r"flow $\to$ local maximum ($\Theta_{\max}$)",
               "saddle": r"flow $\to$ saddle ($\Theta_{\mathrm{sad}}$)",
               "station": r"flow $\to$ $\Theta_{\mathrm{station}}$", None: "flow not converged"}


def _flow_panel(key, box, starts):
    """3D panel; the grey surface is the energy level of the first start (its trajectory lies on it)."""
    p, q = CHAINS[key]
    level = float(_np()["E"](*[float(x) for x in starts[0]]))
    fig = plt.figure(figsize=(3.6, 4.1))
    ax = fig.add_axes((0.02, 0.25, 0.90, 0.78), projection="3d")
    level_drawn = _energy_surface(ax, level, box)
    drawn = _critical_sets(ax, p, q, box) | ({"level"} if level_drawn else set())
    colors = {"global_min": "#ff7f0e", "local_min": "#d62728", "local_max": "#1f77b4", "saddle": "black",
              "station": "#7f00ff", None: "0.3"}
    seen = []
    (w0, w1), (a0, a1), (e0, e1) = box
    for path, cls in _flows(p, q, starts):
        inside = ((path[:, 1] >= w0) & (path[:, 1] <= w1) & (path[:, 2] >= a0) & (path[:, 2] <= a1)
                  & (path[:, 0] >= e0) & (path[:, 0] <= e1))
        if not inside[0]:
            continue
        if not inside.all():          # mplot3d does not clip: cut the path where it first leaves the box
            path = path[: int(np.argmin(inside))]
        if cls not in seen:
            seen.append(cls)
        ax.plot(path[:, 1], path[:, 2], path[:, 0], color=colors[cls], lw=1.1)
        ax.plot([path[0, 1]], [path[0, 2]], [path[0, 0]], "o", color=colors[cls], ms=2.5)
        ax.plot([path[-1, 1]], [path[-1, 2]], [path[-1, 0]], "x", color=colors[cls], ms=4)
    _frame3d(ax, box)
    fig.legend(handles=legend_handles(drawn, seen, colors), loc="lower center", ncol=2, fontsize=6.5, frameon=False,
               handlelength=1.4, columnspacing=0.8, borderaxespad=0.2)
    return fig


def legend_handles(drawn: set, classes: list, colors: dict) -> list:
    """The legend of a 3-D panel: one entry per class of limit that a drawn trajectory has, then the sets drawn
    (`drawn`, as `_critical_sets` and `_energy_surface` report them), nothing else."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    handles = [Line2D([], [], color=colors[c], lw=1.1, label=CLASS_LABEL.get(c, str(c))) for c in classes]
    sets = [("star", Patch(facecolor="#2ca02c", alpha=0.4, label=r"$\Theta^{\star}$ (global minima)")),
            ("min", Patch(facecolor="#d62728", alpha=0.35, label=r"$e = 0$: local minima")),
            ("max", Patch(facecolor="#1f77b4", alpha=0.35, label=r"$e = 0$: local maxima")),
            ("sad", Line2D([], [], color="black", lw=1.5, label=r"$\Theta_{\mathrm{sad}}$")),
            ("station", Line2D([], [], color="#7f00ff", marker=".", ls="none", ms=3,
                               label=r"$\Theta_{\mathrm{station}}$")),
            ("level", Patch(facecolor="0.6", alpha=0.35, label=r"level set $E = E(\theta_0)$"))]
    return handles + [h for key, h in sets if key in drawn]


def _starts(seed, n, scale):
    return nbasins.gaussian_starts(scale, n, seed)


BOX_FULL = ((-2.0, 2.0), (-2.0, 2.0), (-2.0, 2.0))
BOX_NEAR = ((-0.5, 0.5), (-0.5, 0.5), (-0.5, 0.5))
FULL_STARTS = [(Fraction(1), Fraction(-1), Fraction(1, 2)), (Fraction(1, 2), Fraction(1), Fraction(0)),
               (Fraction(3, 2), Fraction(1), Fraction(0)), (Fraction(1, 2), Fraction(-3, 2), Fraction(-1, 2)),
               (Fraction(-1), Fraction(1, 2), Fraction(1)), (Fraction(1, 4), Fraction(-1, 2), Fraction(-1))]


@figure("fig2_p09")
def fig2_p09():
    return _flow_panel("p09", BOX_FULL, FULL_STARTS)


@figure("fig2_p01")
def fig2_p01():
    return _flow_panel("p01", BOX_FULL, FULL_STARTS)


def fig5_starts():
    """The starts of Fig. 5: those its check integrates (`claims_30_attention.FIG5_STARTS`, one definition)."""
    from local2global.proofs.claims_30_attention import FIG5_STARTS as F5
    return _starts(F5["seed"], F5["n"], F5["sigma"])


@figure("fig5_p09")
def fig5_p09():
    return _flow_panel("p09", BOX_NEAR, fig5_starts())


@figure("fig5_p01")
def fig5_p01():
    return _flow_panel("p01", BOX_NEAR, fig5_starts())


def _edges(centres) -> np.ndarray:
    """Cell edges around evenly spaced centres (midpoints between them, half a step beyond the ends)."""
    c = np.asarray(centres, dtype=float)
    h = (c[1] - c[0]) / 2
    return np.concatenate([[c[0] - h], (c[:-1] + c[1:]) / 2, [c[-1] + h]])


SLICES = (("p09", "a", Fraction(0)), ("p09", "w", Fraction(-1, 2)), ("p01", "a", Fraction(0)), ("p01", "w", Fraction(-3, 2)))


def _slice_parts():
    """The four basin grids of `fig_attn_basins`, each a cached `slice_grid` call (computed side by side)."""
    return [(slice_grid, (*CHAINS[key], fixed, val)) for key, fixed, val in SLICES]


@figure("fig_attn_basins", heavy=True, parts=_slice_parts, cache=CACHE_KIND)
def fig_attn_basins():
    """Limit classes on the slices a0 = 0 (w horizontal, e vertical) and w0 fixed (a horizontal, e vertical)."""
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch
    order = ["global_min", "local_min", "local_max", "saddle", "station", "None"]
    cmap = ListedColormap([CLASS_COLORS[c] for c in order])
    fig, axes = plt.subplots(2, 2, figsize=(6.6, 7.0))
    for ax, (key, fixed, val) in zip(axes.flat, SLICES):
        p, q = CHAINS[key]
        data = slice_grid(p, q, fixed, val)
        xs = np.array([float(Fraction(x)) for x in data["xs"]])       # e0 (the grid's columns)
        ys = np.array([float(Fraction(y)) for y in data["ys"]])       # w0 or a0 (the grid's rows)
        # the grid has rows = the other coordinate, columns = e; transposed, e runs vertically
        Z = np.array([[order.index(str(c)) for c in row] for row in data["grid"]]).T
        # one cell per flow, centred on its start; the starts on e = 0 (a plane of critical points, of measure
        # zero) get a cell of no height and are drawn as the line they are, in the colours of their limits
        x_edges, e_edges = _edges(ys), _edges(xs)
        zero = [k for k, x in enumerate(xs) if x == 0]
        for k in zero:
            e_edges[k] = e_edges[k + 1] = 0.0
        ax.pcolormesh(x_edges, e_edges, Z, cmap=cmap, vmin=-0.5, vmax=len(order) - 0.5, shading="flat",
                      rasterized=True)
        from matplotlib.collections import LineCollection
        for k in zero:
            runs = []                                   # (first cell, last cell, class): one segment per run of a class
            for j in range(len(ys)):
                if runs and runs[-1][2] == Z[k, j]:
                    runs[-1][1] = j
                else:
                    runs.append([j, j, Z[k, j]])
            ax.add_collection(LineCollection([[(x_edges[a], 0), (x_edges[b + 1], 0)] for a, b, _ in runs],
                                             colors=[CLASS_COLORS[order[c]] for _, _, c in runs], linewidths=1.6,
                                             zorder=3))
        ax.set_xlim(x_edges[0], x_edges[-1])
        ax.set_ylim(e_edges[0], e_edges[-1])
        ax.set_aspect("equal")
        other = "w" if fixed == "a" else "a"
        ax.set_xlabel(f"${other}_0$")
        ax.set_ylabel("$e_0$", rotation=0, labelpad=6)
        ax.set_xticks(range(-2, 3))
        ax.set_yticks(range(-2, 3))
        ax.set_title(f"$p = q = {float(p):g}$, slice ${fixed}_0 = {float(val):g}$ ({len(xs)}$\\times${len(ys)} flows)",
                     fontsize=8)
        if other == "w":
            ax.axvline(-1 / np.sqrt(2), color="k", lw=0.6, ls="--")
    words = {"global_min": r"global minimum $\Theta^{\star}$", "local_min": r"local minimum $\Theta_{\min}$",
             "local_max": r"local maximum $\Theta_{\max}$", "None": "not converged in 3000 steps"}
    handles = [Patch(facecolor=CLASS_COLORS[c], edgecolor="0.5", lw=0.5, label="flow $\\to$ " + words[c] if c != "None"
                     else words[c]) for c in order if c in words]
    fig.legend(handles=handles, loc="lower center", ncol=2, fontsize=7.5, frameon=False)
    fig.subplots_adjust(hspace=0.30, wspace=0.25, bottom=0.12, top=0.96, left=0.08, right=0.98)
    return fig
