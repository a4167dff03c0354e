r"""The phase diagram of the full transformer against the canonical basins (`numeric.transformer.phase`).

Four panels over the grid, chains left to right by p + q, init scales σ bottom to top:
(a) the fraction of seeds whose final exact population loss is the bigram loss (cell text k/n, and the runs that
end at neither reference); (b) the canonical model's certified P(θ0 ∈ I*) in R² (Thms 2 and 8; the digits shown
are those on which both ends of the enclosure agree); (c) the model with attention in R³ (Thms A and B, our
result): the quadrature estimate of 1 - P(local minimum) with its rigorous one-sided bound; (d) (a) minus (b).

`fig_phase` (registered, drawn by `l2g figures` and `l2g all`) shows the largest grid cached by `l2g sweep`, and
is not drawn when no sweep is cached; `write` draws a given grid (what `l2g sweep` writes).
"""
from __future__ import annotations

from fractions import Fraction

from local2global.proofs.outputs.figures.plotting import figure, plt, save

#: colours of Fig. 1: global minimum orange, local minimum blue
_CMAP = "coolwarm"


def _signed(lo: Fraction, hi: Fraction) -> str:
    """A difference known to lie in [lo, hi], to 2 decimals with its sign, if both ends round (exactly, half to
    even) to the same; else both ends."""
    a, b = round(lo * 100), round(hi * 100)

    def fmt(n: int) -> str:
        return "0.00" if n == 0 else f"{'+' if n > 0 else '-'}{abs(n) // 100}.{abs(n) % 100:02d}"
    return fmt(a) if a == b else f"[{fmt(a)}, {fmt(b)}]"


def _outward(text: str, up: bool) -> str:
    """A decimal bound shortened to 2 significant digits, rounded outward (up for an upper bound)."""
    from local2global.numeric.dynamics.prob_r3 import decimal_rounded
    return decimal_rounded(Fraction(text), 2, up=up)


def _sorted(rows):
    chains = sorted({(Fraction(r["p"]), Fraction(r["q"])) for r in rows}, key=lambda c: (c[0] + c[1], c))
    sigmas = sorted({Fraction(r["sigma"]) for r in rows})
    at = {(Fraction(r["p"]), Fraction(r["q"]), Fraction(r["sigma"])): r for r in rows}
    return chains, sigmas, at


def _panel(ax, chains, sigmas, at, value, text, title, vmin=0.0, vmax=1.0, cmap=_CMAP):
    import numpy as np
    M = np.array([[value(at[(p, q, s)]) for p, q in chains] for s in sigmas], dtype=float)
    im = ax.imshow(M, origin="lower", cmap=cmap, vmin=vmin, vmax=vmax, aspect="auto")
    for i, s in enumerate(sigmas):
        for j, (p, q) in enumerate(chains):
            ax.text(j, i, text(at[(p, q, s)]), ha="center", va="center", fontsize=6.5)
    ax.set_xticks(range(len(chains)))
    ax.set_xticklabels([f"{float(p + q):g}\n({float(p):g}, {float(q):g})" for p, q in chains], fontsize=7)
    ax.set_yticks(range(len(sigmas)))
    ax.set_yticklabels([f"{float(s):g}" for s in sigmas], fontsize=7)
    ax.set_xlabel(r"$p + q$  $(p, q)$")
    ax.set_ylabel(r"init scale $\sigma$")
    ax.set_title(title)
    if any(float(p + q) > 1 for p, q in chains) and any(float(p + q) < 1 for p, q in chains):
        k = sum(float(p + q) < 1 for p, q in chains)
        ax.axvline(k - 0.5, color="black", lw=1.2)
    return im


def _fraction_text(r) -> str:
    c = r["counts"]
    return f"{c['bigram']}/{r['seeds']}" + (f"\n{c['neither']} neither" if c["neither"] else "")


def _r2_text(r) -> str:
    from local2global.numeric.transformer.phase import rounded
    v = r["canonical_R2"]
    return rounded(v["lo"], v["hi"], 2)


def _r3_value(r) -> float:
    v = r["canonical_R3"]
    if v["estimate"] is not None:
        return float(v["estimate"])
    return float(v.get("at_most", v.get("at_least")))


def _r3_text(r) -> str:
    v = r["canonical_R3"]
    bound = (f"$\\leq$ {_outward(v['at_most'], True)}" if "at_most" in v
             else f"$\\geq$ {_outward(v['at_least'], False)}")
    est = v["estimate"]
    return (f"{float(est):.2g}\n" if est is not None else "") + bound


def _difference_text(r) -> str:
    k = Fraction(r["counts"]["bigram"], r["seeds"])
    v = r["canonical_R2"]
    return _signed(k - Fraction(v["hi"]), k - Fraction(v["lo"]))


def draw(grid, rows):
    """The figure of one grid's phase table (`phase.phase_table`)."""
    chains, sigmas, at = _sorted(rows)
    tr = grid.spec()["training"]
    fig, axes = plt.subplots(2, 2, figsize=(10, 7.4))
    fig.subplots_adjust(left=0.08, right=0.95, bottom=0.09, top=0.87, wspace=0.3, hspace=0.45)
    opt = {"gd": "gradient descent", "adam": "Adam"}[tr["optimizer"]]
    init = {"gaussian": r"every parameter $N(0, \sigma^2)$", "paper": r"the paper's init, the rest $N(0, \sigma^2)$"}[tr["init"]]
    fig.suptitle(f"Where training ends: the full transformer against the canonical basins\n{init}; exact population "
                 f"loss over all $2^N$ sequences, N = {tr['N']}, d = {tr['d']}, {opt} rate {tr['lr']:g}"
                 f"{', clip ' + format(tr['clip'], 'g') if tr['clip'] else ''}, {tr['steps']} steps; "
                 f"{grid.seeds} seeds per cell", fontsize=9)
    ims = [
        _panel(axes[0, 0], chains, sigmas, at, lambda r: r["fraction_bigram"], _fraction_text,
               "(a) full transformer: seeds at the bigram loss"),
        _panel(axes[0, 1], chains, sigmas, at, lambda r: r["canonical_R2"]["float"], _r2_text,
               r"(b) canonical model in $\mathbb{R}^2$: $P(\theta_0 \in I^\star)$ (certified)"),
        _panel(axes[1, 0], chains, sigmas, at, _r3_value, _r3_text,
               r"(c) with attention, $\mathbb{R}^3$: $1 - P(\mathrm{local\ min})$ (estimate; rigorous bound)"),
        _panel(axes[1, 1], chains, sigmas, at, lambda r: r["difference"], _difference_text,
               "(d) (a) minus (b)", vmin=-1.0, vmax=1.0, cmap="PuOr_r"),
    ]
    for ax, im in zip(axes.flat, ims):
        fig.colorbar(im, ax=ax, fraction=0.046, pad=0.03)
    return fig


def write(grid, rows, out_dir: str) -> list[str]:
    """`draw` saved as out_dir/phase_diagram.pdf and .png (deterministic bytes)."""
    from local2global.proofs.outputs.figures.plotting import STYLE
    import matplotlib
    with matplotlib.rc_context(STYLE):
        fig = draw(grid, rows)
    return save(fig, out_dir, "phase_diagram")


@figure("fig_phase")
def fig_phase():
    """The phase diagram of the largest sweep cached by `l2g sweep`; None (not drawn) when there is none."""
    from local2global.numeric.transformer import phase, sweep
    grids = sweep.cached_grids()
    if not grids:
        return None
    grid, results = grids[0]
    return draw(grid, phase.phase_table(grid, results))
