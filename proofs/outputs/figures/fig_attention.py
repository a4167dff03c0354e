r"""Fig. 2 and Fig. 5 of the paper (gradient flow with the attention scalar, θ = (e, w, a) in R^3) and
the basin slices that Sec. 4.1 leaves open, for p = q = 0.9 (p+q > 1) and p = q = 0.1 (p+q < 1).

* fig2_p09 / fig2_p01: 3D view (x = w, y = a, z = e) of a level surface of the derived energy
  E(e, w, a) (Lemma 14), the critical sets of Thm 10 (Θ* as a surface, the plane e = 0 split into
  local minima and maxima, the saddle line e = 0, w = -1/√2, the curve Θ_station) and integrated flows.
* fig5_p09 / fig5_p01: the same near the origin, with flows from small Gaussian starts (Thm 11).
* fig_attn_basins: limit classes of GF-Attention on the slices a0 = 0 (plane (e, w)) and w0 = -1/2
  (plane (e, a); w0 = -3/2 for p = q = 0.1, where the slice w0 = -1/2 holds one class only).

Every plotted set comes from `canonical_model(attention=True)` (lambdified); trajectories and basin classes come
from the mpmath integrator (`numeric.dynamics.flow.ReducedFlow` with attention). Basin
grids are expensive (one flow per cell), so they are cached as JSON under $L2G_CACHE (default
build/cache/attention), keyed by all parameters and a hash of the code (`numeric._cache`: a corrupted or
stale file is recomputed, never used); the cache only stores what `basin_slice` returns.
"""
from __future__ import annotations

import os
from fractions import Fraction
from functools import lru_cache
from pathlib import Path

import mpmath as mp
import numpy as np
import sympy as sp

from local2global.symbolic import symbols as S
from local2global.symbolic import energy as senergy
from local2global.symbolic import landscape as sland

from local2global.numeric.dynamics import basins as nbasins
from local2global.numeric.evaluate import engine
from local2global.numeric.dynamics.flow import ReducedFlow
from local2global.numeric.precision import limit_tolerances
from local2global.numeric.infra.cache import cached_json, source_hash
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


def _cache_dir() -> str:
    return os.environ.get("L2G_CACHE", os.path.join("build", "cache", "attention"))


def slice_grid(p, q, fixed: str, value, n: int | None = None, dps: int = 15) -> dict:
    """Limit classes on an n x n grid of a slice over [-2, 2]^2 (cached: `numeric._cache`, keyed by the
    parameters and the code; a corrupted or stale file is recomputed)."""
    n = SLICE_N if n is None else n
    xs = [SLICE_RANGE[0] + (SLICE_RANGE[1] - SLICE_RANGE[0]) * Fraction(i, n - 1) for i in range(n)]
    key = f"slice_p{Fraction(p)}_q{Fraction(q)}_{fixed}{Fraction(value)}_n{n}_dps{dps}"

    def compute():
        grid = nbasins.basin_slice(p, q, fixed, Fraction(value), xs, xs, dps=dps)
        return {"p": str(p), "q": str(q), "fixed": fixed, "value": str(value), "xs": [str(x) for x in xs],
                "ys": [str(x) for x in xs], "grid": grid}
    return cached_json(_cache_dir(), key, _code_hash(), compute)


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
        with mp.workdps(dps):
            cls = (nbasins.critical_class(fl, res.theta, **limit_tolerances(dps)) if res.converged else None)
        out.append((path, cls))
    return out


def _critical_sets(ax, p, q, box):
    """Θ* (surface), e = 0 plane split at w = -1/√2, the saddle line and Θ_station, clipped to `box`."""
    (w0, w1), (a0, a1), (e0, e1) = box
    f = _np()
    ee, ww = np.meshgrid(np.linspace(e0, e1, 81), np.linspace(w0, w1, 81))
    with np.errstate(divide="ignore", invalid="ignore"):
        aa = f["a_on_star"](float(p), float(q), ee, ww)
    aa = np.where((aa >= a0) & (aa <= a1) & (np.abs(ee) > 1e-3), aa, np.nan)
    ax.plot_surface(ww, aa, ee, color="#2ca02c", alpha=0.25, linewidth=0, shade=False)
    wl = np.linspace(w0, w1, 2)
    al = np.linspace(a0, a1, 2)
    W, Aa = np.meshgrid(wl, al)
    wsad = f["w_sad"]
    for lo, hi in ((w0, max(w0, wsad)), (min(w1, wsad), w1)):
        if hi <= lo:
            continue
        mid = (lo + hi) / 2
        is_min = f["min_sign"](float(p), float(q), mid) > 0
        Wp, Ap = np.meshgrid(np.linspace(lo, hi, 2), al)
        ax.plot_surface(Wp, Ap, 0 * Wp, color="#d62728" if is_min else "#1f77b4", alpha=0.18, linewidth=0, shade=False)
    if w0 <= wsad <= w1:
        ax.plot([wsad, wsad], [a0, a1], [0, 0], color="black", lw=1.5, label=r"$\Theta_{\mathrm{sad}}$")
        es = np.linspace(e0, e1, 400)
        with np.errstate(divide="ignore"):
            ast = -1 / es**2
        ok = (ast >= a0) & (ast <= a1)
        ax.plot(np.full(ok.sum(), wsad), ast[ok], es[ok], ".", ms=1.2, color="#7f00ff", label=r"$\Theta_{\mathrm{station}}$")


def _energy_surface(ax, level, box, color="0.6"):
    """The level set E(e, w, a) = level as the two graphs e = ±sqrt(level + 2a^2 + w^2 + sign(w) log|w|)."""
    (w0, w1), (a0, a1), (e0, e1) = box
    W, Aa = np.meshgrid(np.linspace(w0, w1, 120), np.linspace(a0, a1, 60))
    W = np.where(W == 0, 1e-9, W)
    with np.errstate(invalid="ignore", divide="ignore"):
        e2 = level + 2 * Aa**2 + W**2 + np.sign(W) * np.log(np.abs(W))
        E = np.sqrt(np.where(e2 >= 0, e2, np.nan))
    E = np.where(E <= e1, E, np.nan)
    for sgn in (1, -1):
        ax.plot_surface(W, Aa, sgn * E, color=color, alpha=0.15, linewidth=0, shade=False)


def _frame3d(ax, box, title):
    (w0, w1), (a0, a1), (e0, e1) = box
    ax.set_xlim(w0, w1)
    ax.set_ylim(a0, a1)
    ax.set_zlim(e0, e1)
    ax.set_xlabel("$w$")
    ax.set_ylabel("$a$")
    ax.set_zlabel("$e$")
    ax.set_title(title)
    ax.view_init(elev=22, azim=-58)


def _flow_panel(key, box, starts, title):
    """3D panel; the grey surface is the energy level of the first start (its trajectory lies on it)."""
    p, q = CHAINS[key]
    level = float(_np()["E"](*[float(x) for x in starts[0]]))
    fig = plt.figure(figsize=(6.0, 5.0))
    ax = fig.add_subplot(projection="3d")
    _energy_surface(ax, level, box)
    _critical_sets(ax, p, q, box)
    colors = {"global_min": "#ff7f0e", "local_min": "#d62728", "local_max": "#1f77b4", "saddle": "black",
              "station": "#7f00ff", None: "0.3"}
    seen = set()
    (w0, w1), (a0, a1), (e0, e1) = box
    for path, cls in _flows(p, q, starts):
        inside = ((path[:, 1] >= w0) & (path[:, 1] <= w1) & (path[:, 2] >= a0) & (path[:, 2] <= a1)
                  & (path[:, 0] >= e0) & (path[:, 0] <= e1))
        if not inside[0]:
            continue
        if not inside.all():          # mplot3d does not clip: cut the path where it first leaves the box
            path = path[: int(np.argmin(inside))]
        lab = f"flow -> {cls}" if cls not in seen else None
        seen.add(cls)
        ax.plot(path[:, 1], path[:, 2], path[:, 0], color=colors[cls], lw=1.1, label=lab)
        ax.plot([path[0, 1]], [path[0, 2]], [path[0, 0]], "o", color=colors[cls], ms=2.5)
        ax.plot([path[-1, 1]], [path[-1, 2]], [path[-1, 0]], "x", color=colors[cls], ms=4)
    _frame3d(ax, box, title)
    ax.legend(loc="upper left", fontsize=6, frameon=False)
    fig.text(0.5, 0.02, f"green: $\\Theta^\\star$; red/blue plane $e=0$: local minima/maxima; grey: level set $E = E(\\theta_0)$ of the first flow ({level:.3g})",
             ha="center", fontsize=7)
    return fig


def _starts(seed, n, scale):
    return nbasins.gaussian_starts(scale, n, seed)


BOX_FULL = ((-2.0, 2.0), (-2.0, 2.0), (-2.0, 2.0))
BOX_NEAR = ((-0.5, 0.5), (-0.5, 0.5), (-0.5, 0.5))
FULL_STARTS = [(Fraction(1), Fraction(-1), Fraction(1, 2)), (Fraction(1, 2), Fraction(1), Fraction(0)),
               (Fraction(3, 2), Fraction(1), Fraction(0)), (Fraction(1, 2), Fraction(-3, 2), Fraction(-1, 2)),
               (Fraction(-1), Fraction(1, 2), Fraction(1)), (Fraction(1, 4), Fraction(-1, 2), Fraction(-1))]


@figure("fig2_p09")
def fig2_p09():
    return _flow_panel("p09", BOX_FULL, FULL_STARTS, "Fig. 2: GF with attention, $p = q = 0.9$ ($p+q>1$)")


@figure("fig2_p01")
def fig2_p01():
    return _flow_panel("p01", BOX_FULL, FULL_STARTS, "Fig. 2: GF with attention, $p = q = 0.1$ ($p+q<1$)")


@figure("fig5_p09")
def fig5_p09():
    return _flow_panel("p09", BOX_NEAR, _starts(5, 8, Fraction(1, 5)),
                       "Fig. 5: near the origin, $p = q = 0.9$: the plane $e = 0$ (local minima) attracts")


@figure("fig5_p01")
def fig5_p01():
    return _flow_panel("p01", BOX_NEAR, _starts(5, 8, Fraction(1, 5)),
                       "Fig. 5: near the origin, $p = q = 0.1$: the plane $e = 0$ (local maxima) repels")


SLICES = (("p09", "a", Fraction(0)), ("p09", "w", Fraction(-1, 2)), ("p01", "a", Fraction(0)), ("p01", "w", Fraction(-3, 2)))


@figure("fig_attn_basins")
def fig_attn_basins():
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch
    order = ["global_min", "local_min", "local_max", "saddle", "station", "None"]
    cmap = ListedColormap([CLASS_COLORS[c] for c in order])
    fig, axes = plt.subplots(2, 2, figsize=(7.0, 7.2))
    for ax, (key, fixed, val) in zip(axes.flat, SLICES):
        p, q = CHAINS[key]
        data = slice_grid(p, q, fixed, val)
        xs = np.array([float(Fraction(x)) for x in data["xs"]])
        ys = np.array([float(Fraction(y)) for y in data["ys"]])
        Z = np.array([[order.index(str(c)) for c in row] for row in data["grid"]])
        h = (xs[1] - xs[0]) / 2
        ax.imshow(Z, origin="lower", extent=(xs[0] - h, xs[-1] + h, ys[0] - h, ys[-1] + h), cmap=cmap,
                  vmin=-0.5, vmax=len(order) - 0.5, interpolation="nearest", aspect="equal")
        other = "w" if fixed == "a" else "a"
        ax.set_xlabel("$e_0$")
        ax.set_ylabel(f"${other}_0$")
        ax.set_title(f"p = q = {float(p):g}, slice ${fixed}_0 = {float(val):g}$ ({len(xs)}x{len(ys)} flows)", fontsize=8)
        if other == "w":
            ax.axhline(-1 / np.sqrt(2), color="k", lw=0.6, ls="--")
    handles = [Patch(facecolor=CLASS_COLORS[c], edgecolor="0.5", lw=0.5,
                     label=c if c != "None" else "not converged in 3000 steps") for c in order if c != "saddle" and c != "station"]
    fig.legend(handles=handles, loc="lower center", ncol=4, fontsize=7, frameon=False)
    fig.subplots_adjust(hspace=0.32, wspace=0.3, bottom=0.1)
    fig.suptitle("Limit of GF-Attention from $\\theta_0$ on slices of $\\mathbb{R}^3$ (dashed: $w = -1/\\sqrt{2}$)", fontsize=9)
    return fig
