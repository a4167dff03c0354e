r"""Figs. 3, 4 and 6 of the paper, reproduced CPU-sized with the full transformer (`numeric.transformer.experiments`).

* fig3_fullmodel: from a small Gaussian init (std 0.001, p = 0.2, q = 0.3, d = 8, N = 12), (a) the singular-value
  ratios s2/s1 of W_V, W_1, W_2, W_Q, W_K over training (rank one emerges for all but W_V), (b) the exact
  population loss against the entropy rate and H(pi), (c) the alignment of W_1's and W_V's top singular
  vectors with the embedding e and the embedding's spread (0 = entries +-const), (d) the Frobenius norms:
  W_V stays two orders of magnitude below W_1.
* fig6_fullmodel: the same from the rank-one init of App. H: the ratios stay at float64 rounding level.
* fig4_fullmodel: p = 0.5, q = 0.8: (a) the exact population loss over training for the standard init
  (N(0, 0.02^2)) and the paper's init (embedding coordinates 0.5, W_1 = 1, W_2 = -1), with H(pi) and the
  entropy rate; (b) the distance of each to its reference loss.

One line style per seed. The training runs are cached under $L2G_CACHE/fullmodel (content-addressed;
corrupted or stale files are recomputed). `quick=True` runs a few steps of one seed (smoke tests).
"""
from __future__ import annotations

from local2global.numeric.transformer import experiments as X
from local2global.proofs.outputs.figures.plotting import figure, plt

SEED_STYLES = ("-", "--", ":")
MATRIX_COLORS = {"W_V": "#1f77b4", "W_1": "#d62728", "W_2": "#2ca02c", "W_Q": "#9467bd", "W_K": "#8c564b"}
TEX = {"W_V": r"$W_V$", "W_1": r"$W_1$", "W_2": r"$W_2$", "W_Q": r"$W_Q$", "W_K": r"$W_K$"}
FLOOR = 1e-17            # exact zeros (a rank-one matrix stored exactly) drawn at the bottom of a log axis


def _seeds_note(runs) -> str:
    seeds = [r.config.seed for r in runs]
    return f"seed{'s' if len(seeds) > 1 else ''} {', '.join(map(str, seeds))} (" + ", ".join(
        {"-": "solid", "--": "dashed", ":": "dotted"}[s] for s in SEED_STYLES[:len(seeds)]) + ")"


def _setting(c) -> str:
    opt = {"adam": "Adam", "adamw": "AdamW", "sgd": "SGD"}[c.optimizer]
    sched = ", cosine" if c.schedule == "cos" else ""
    clip = f", clip {c.grad_clip:g}" if c.grad_clip else ""
    return (f"chain p = {c.p}, q = {c.q}; N = {c.N}, d = {c.d}; {opt} lr {c.lr:g}{sched}{clip}, "
            f"batch {c.batch}, {c.steps} steps")


def _rank_panel(ax, runs):
    for m, color in MATRIX_COLORS.items():
        for r, ls in zip(runs, SEED_STYLES):
            ax.semilogy(r.steps, [max(v, FLOOR) for v in r.sv_ratio[m]], ls, color=color, lw=1.1,
                        label=TEX[m] if r is runs[0] else None)
    ax.set_xlabel("iteration")
    ax.set_ylabel(r"$s_2/s_1$ (second / largest singular value)")
    lowest = min(min(r.sv_ratio[m]) for m in MATRIX_COLORS for r in runs)
    ax.set_ylim(max(FLOOR / 2, lowest / 10), 2)
    ax.set_title("(a) how far from rank one")
    ax.legend(loc="best", fontsize=7, ncol=2)


def _loss_panel(ax, runs):
    ref = X.chain_losses(runs[0].config.p, runs[0].config.q)
    for r, ls in zip(runs, SEED_STYLES):
        ax.plot(r.steps, r.loss, ls, color="0.2", lw=1.1, label="full model" if r is runs[0] else None)
    ax.axhline(ref["unigram"], color="#d62728", lw=0.9, ls="-.", label=rf"$H(\pi)$ = {ref['unigram']:.4f}")
    ax.axhline(ref["entropy_rate"], color="#2ca02c", lw=0.9, ls="-.",
               label=rf"$H(x_{{n+1}}\mid x_n)$ = {ref['entropy_rate']:.4f}")
    ax.set_xlabel("iteration")
    ax.set_ylabel("population loss (exact, all $2^N$ sequences)")
    ax.set_title("(b) loss")
    ax.legend(fontsize=7)


def _alignment_panel(ax, runs):
    for r, ls in zip(runs, SEED_STYLES):
        first = r is runs[0]
        ax.plot(r.steps, r.alignment_W1, ls, color="#d62728", lw=1.1,
                label=r"$|\langle v_1(W_1), e\rangle|/\|e\|$" if first else None)
        ax.plot(r.steps, r.alignment_WV["left"], ls, color="#1f77b4", lw=1.1,
                label=r"$|\langle u_1(W_V), e\rangle|/\|e\|$" if first else None)
        ax.plot(r.steps, r.embedding_spread, ls, color="0.45", lw=1.1,
                label=r"spread $\mathrm{std}|e_i| / \mathrm{mean}|e_i|$" if first else None)
    ax.set_xlabel("iteration")
    ax.set_ylim(-0.05, 1.3)
    ax.set_title("(c) alignment with the embedding $e$; embedding spread")
    ax.legend(fontsize=7, loc="center right")


def _norm_panel(ax, runs):
    for m in ("W_V", "W_1"):
        for r, ls in zip(runs, SEED_STYLES):
            ax.semilogy(r.steps, [max(v, FLOOR) for v in r.norm[m]], ls, color=MATRIX_COLORS[m], lw=1.1,
                        label=TEX[m] if r is runs[0] else None)
    ax.set_xlabel("iteration")
    ax.set_ylabel(r"Frobenius norm $\|W\|_F$")
    ax.set_title(r"(d) size of $W_V$ and $W_1$")
    ax.legend(fontsize=7)


def _rank_figure(runs, name, what):
    # fixed margins, no constrained layout: the layout solver measured every (mathtext) tick label again and
    # took half the rendering time
    fig, axes = plt.subplots(2, 2, figsize=(10, 7))
    fig.subplots_adjust(left=0.08, right=0.985, bottom=0.07, top=0.89, wspace=0.22, hspace=0.3)
    c = runs[0].config
    init = {"gaussian": f"Gaussian init, std {c.sigma:g}", "rank_one": "rank-one init (App. H)"}[c.init]
    fig.suptitle(f"{name}, full single-layer transformer: {what}\n{init}; {_setting(c)}; {_seeds_note(runs)}",
                 fontsize=9)
    _rank_panel(axes[0, 0], runs)
    _loss_panel(axes[0, 1], runs)
    _alignment_panel(axes[1, 0], runs)
    _norm_panel(axes[1, 1], runs)
    return fig


@figure("fig3_fullmodel", cache=X.CACHE_KIND)
def fig3(quick: bool = False):
    """Fig. 3: rank-one structure emerges from a small Gaussian initialization."""
    return _rank_figure(X.fig3_runs(quick), "Fig. 3", "rank one emerges from a small Gaussian init")


@figure("fig6_fullmodel", cache=X.CACHE_KIND)
def fig6(quick: bool = False):
    """Fig. 6: a rank-one initialization stays rank one under unconstrained training."""
    return _rank_figure(X.fig6_runs(quick), "Fig. 6", "a rank-one init stays rank one (unconstrained training)")


@figure("fig4_fullmodel", cache=X.CACHE_KIND)
def fig4(quick: bool = False):
    """Fig. 4: standard init ends at the unigram loss H(pi), the paper's init at the entropy rate."""
    runs = X.fig4_runs(quick)
    c = runs["standard"][0].config
    ref = X.chain_losses(c.p, c.q)
    colors = {"standard": "#1f77b4", "paper": "#ff7f0e"}
    labels = {"standard": rf"standard init $N(0, {c.sigma:g}^2)$",
              "paper": r"paper's init ($e_i = 0.5$, $W_1 \equiv 1$, $W_2 \equiv -1$)"}
    target = {"standard": "unigram", "paper": "entropy_rate"}
    fig, axes = plt.subplots(1, 2, figsize=(10, 4.3))
    fig.subplots_adjust(left=0.07, right=0.985, bottom=0.24, top=0.81, wspace=0.22)
    fig.suptitle(f"Fig. 4, full single-layer transformer: effect of the initialization\n{_setting(c)}; "
                 f"{_seeds_note(runs['standard'])}", fontsize=9)
    ax = axes[0]
    for label in ("standard", "paper"):
        for r, ls in zip(runs[label], SEED_STYLES):
            ax.plot(r.steps, r.loss, ls, color=colors[label], lw=1.1, label=labels[label] if r is runs[label][0] else None)
    ax.axhline(ref["unigram"], color="#d62728", lw=0.8, ls="-.", label=rf"$H(\pi)$ = {ref['unigram']:.4f}")
    ax.axhline(ref["entropy_rate"], color="#2ca02c", lw=0.8, ls="-.",
               label=rf"$H(x_{{n+1}}\mid x_n)$ = {ref['entropy_rate']:.4f}")
    top = ref["unigram"] + 0.04
    ax.set_ylim(ref["entropy_rate"] - 0.01, top)
    start = runs["paper"][0].loss[0]
    if start > top:
        ax.annotate(f"paper's init starts at {start:.1f}", xy=(0, top), xytext=(0.25 * c.steps, top - 0.012),
                    fontsize=7, arrowprops=dict(arrowstyle="->", lw=0.7))
    ax.set_xlabel("iteration")
    ax.set_ylabel("population loss (exact, all $2^N$ sequences)")
    ax.set_title("(a) loss")
    # under the panel: inside, any place would cover a curve (the standard init runs along H(pi))
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2, frameon=False)
    ax = axes[1]
    for label in ("standard", "paper"):
        for r, ls in zip(runs[label], SEED_STYLES):
            gap = [max(abs(v - ref[target[label]]), FLOOR) for v in r.loss]
            ax.semilogy(r.steps, gap, ls, color=colors[label], lw=1.1,
                        label=(r"standard: $|L - H(\pi)|$" if label == "standard" else
                               r"paper's: $|L - H(x_{n+1}\mid x_n)|$") if r is runs[label][0] else None)
    ax.axhline(ref["unigram"] - ref["entropy_rate"], color="0.5", lw=0.8, ls=":",
               label=rf"gap $H(\pi) - H(x_{{n+1}}\mid x_n)$ = {ref['unigram'] - ref['entropy_rate']:.3f}")
    ax.set_xlabel("iteration")
    ax.set_ylabel("distance to the reference loss")
    ax.set_title("(b) distance of each init to its limit")
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2, frameon=False)
    return fig
