r"""Figs. 3, 4 and 6 of the paper, reproduced CPU-sized with the full transformer (`numeric.experiments`).

* fig3_fullmodel: from a small Gaussian init (std 0.001, p = 0.2, q = 0.3, d = 8), the singular-value
  ratios s2/s1 of W_V, W_1, W_2 over training (rank one emerges), the exact population loss against
  the entropy rate, and the embedding's spread (0 = entries +-const).
* fig6_fullmodel: the same from a rank-one init: the ratios stay at rounding level.
* fig4_fullmodel: p = 0.5, q = 0.8: exact population loss over training for the standard init
  (N(0, 0.02^2)) and the paper's init (embedding coords 0.5, W_1 = 1, W_2 = -1), with H(pi) and the
  entropy rate; one line per seed.

Training results are cached under build/cache/fullmodel (content-addressed; corrupted or stale files
are recomputed). `quick=True` runs a few steps of one seed (smoke tests).
"""
from __future__ import annotations

from local2global.numeric.transformer import experiments as X
from local2global.proofs.outputs.figures.plotting import figure, plt

SEED_STYLES = ("-", "--", ":")
MATRIX_COLORS = {"W_V": "#1f77b4", "W_1": "#d62728", "W_2": "#2ca02c"}


def _rank_panel(ax, runs, title):
    for m, color in MATRIX_COLORS.items():
        for r, ls in zip(runs, SEED_STYLES):
            ax.semilogy(r.steps, [max(v, 1e-17) for v in r.sv_ratio[m]], ls, color=color, lw=1.1,
                        label=f"{m}" if r is runs[0] else None)
    ax.set_xlabel("iteration")
    ax.set_ylabel(r"$s_2/s_1$")
    lowest = min(min(r.sv_ratio[m]) for m in MATRIX_COLORS for r in runs)
    ax.set_ylim(max(1e-17, lowest / 10), 2)
    ax.set_title(title)
    ax.legend(loc="lower left", fontsize=7)


def _loss_panel(ax, runs, title):
    ref = X.chain_losses(runs[0].config.p, runs[0].config.q)
    for r, ls in zip(runs, SEED_STYLES):
        ax.plot(r.steps, r.loss, ls, color="0.2", lw=1.1, label=f"seed {r.config.seed}")
    ax.axhline(ref["entropy_rate"], color="#2ca02c", lw=0.9, label="entropy rate")
    ax.axhline(ref["unigram"], color="#d62728", lw=0.9, label=r"$H(\pi)$")
    ax.set_xlabel("iteration")
    ax.set_ylabel("population loss (exact)")
    ax.set_title(title)
    ax.legend(fontsize=7)


def _rank_figure(runs, name):
    fig, axes = plt.subplots(1, 3, figsize=(11, 3.3), constrained_layout=True)
    c = runs[0].config
    _rank_panel(axes[0], runs, f"{name}: singular-value ratios (seeds {[r.config.seed for r in runs]})")
    _loss_panel(axes[1], runs, f"p = {c.p}, q = {c.q}, d = {c.d}, N = {c.N}, {c.init} init")
    for r, ls in zip(runs, SEED_STYLES):
        axes[2].plot(r.steps, r.embedding_spread, ls, color="#9467bd", lw=1.1,
                     label="std|e_i| / mean|e_i|" if r is runs[0] else None)
        axes[2].plot(r.steps, r.alignment_W1, ls, color="#8c564b", lw=1.1,
                     label=r"$|\langle v_1(W_1), e\rangle|/|e|$" if r is runs[0] else None)
    axes[2].set_xlabel("iteration")
    axes[2].set_title("embedding spread; alignment of W_1 with e")
    axes[2].set_ylim(-0.05, 1.5)
    axes[2].legend(fontsize=7)
    return fig


@figure("fig3_fullmodel")
def fig3(quick: bool = False):
    """Fig. 3: rank-one structure emerges from a small Gaussian initialization."""
    return _rank_figure(X.fig3_runs(quick), "Fig. 3")


@figure("fig6_fullmodel")
def fig6(quick: bool = False):
    """Fig. 6: a rank-one initialization stays rank one under unconstrained training."""
    return _rank_figure(X.fig6_runs(quick), "Fig. 6")


@figure("fig4_fullmodel")
def fig4(quick: bool = False):
    """Fig. 4: standard init ends at the unigram loss H(pi), the paper's init at the entropy rate."""
    runs = X.fig4_runs(quick)
    ref = X.chain_losses(X.FIG4["p"], X.FIG4["q"])
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.4), constrained_layout=True)
    for ax, zoom in zip(axes, (False, True)):
        for label, color in (("standard", "#1f77b4"), ("paper", "#ff7f0e")):
            for r, ls in zip(runs[label], SEED_STYLES):
                ax.plot(r.steps, r.loss, ls, color=color, lw=1.1,
                        label=f"{label} init" if r is runs[label][0] else None)
        ax.axhline(ref["unigram"], color="#d62728", lw=0.8, ls="-.", label=rf"$H(\pi)$ = {ref['unigram']:.4f}")
        ax.axhline(ref["entropy_rate"], color="#2ca02c", lw=0.8, ls="-.",
                   label=f"entropy rate = {ref['entropy_rate']:.4f}")
        ax.set_xlabel("iteration")
        ax.set_ylabel("population loss (exact, all 2^N sequences)")
        if zoom:
            ax.set_ylim(ref["entropy_rate"] - 0.01, ref["unigram"] + 0.02)
            ax.set_title("zoom")
        else:
            ax.set_yscale("log")
            ax.set_title(f"Fig. 4: p = {X.FIG4['p']}, q = {X.FIG4['q']}, d = {X.FIG4['d']}, N = {X.FIG4['N']}, "
                         f"seeds {list(X.SEEDS) if not quick else [0]}")
        ax.legend(fontsize=7)
    return fig
