r"""The figures of the document, numbered as the paper's (Figure 1 (a)-(d), 2, ..., 6) and our extra ones
apart (Figure A.1, A.2), with captions that say what is shown, for which chain, and what to look at.

`FIGURES` maps each figure to the files `l2g figures` writes (one file per panel, stems as in
`proofs/outputs/figures`); `figure_tex(fig, fig_dir, base)` is the LaTeX float, or a sentence saying the
figure was not rendered in this build. The captions are LaTeX text (mathematics in `$...$`).
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Panel:
    stem: str
    caption: str


@dataclass(frozen=True)
class PaperFigure:
    """A figure: its number ("1", or "A.1" for ours), a short title, the caption, its panels, the unit it
    belongs to (section id; None: the appendix of additional figures), the panel layout (columns), and
    where the file lives (`fig_dir` for the figures of `l2g figures`, `root` for the build folder)."""

    number: str
    title: str
    caption: str
    panels: tuple[Panel, ...]
    unit: str | None
    columns: int = 2
    where: str = "fig_dir"
    legend: str = ""            # stem of a legend strip shared by the panels (full width, under them)
    height: float = 0.62        # largest height of a one-panel figure, as a fraction of the text height

    @property
    def label(self) -> str:
        return "fig:" + self.number.replace(".", "-")


_FIG1_LEGEND = (r"In every panel: the global minima $\Theta^\star$ (green, dashed), the local minima (red) and local maxima "
                r"(blue) on the $w$-axis $e = 0$, the saddle $(0, -1/\sqrt{2})$ (black dot) and the curves "
                r"$e = \pm g(w)$ (yellow), the level set $E = E_{\mathrm{sad}}$.")

FIGURES: tuple[PaperFigure, ...] = (
    PaperFigure(
        "1", "Gradient-flow dynamics and basins in the plane",
        r"Gradient flow of the reduced loss $L(e, w)$ in the plane ($w$ horizontal, $e$ vertical). Top row: "
        r"$p = q = 0.9$ ($p + q > 1$); bottom row: $p = q = 0.1$ ($p + q < 1$). (a), (c): contours of the energy "
        r"$E(e, w)$ (purple) and the directions of the flow $-\nabla L$ (grey streamlines). (b), (d): the basin "
        r"$I_{\min}$ of the local minima (blue) and the basin $I^\star$ of the global minima (orange) of Theorems~2 "
        r"and~8. " + _FIG1_LEGEND + r" What to look at: for $p + q > 1$ the basin of the bad local minima contains "
        r"the half-plane $w > 0$ and a neighbourhood of the origin, so a small initialization ends at a local "
        r"minimum; for $p + q < 1$ it lies left of $w = -1/\sqrt{2}$, and near the origin the flow reaches "
        r"$\Theta^\star$.",
        (Panel("fig1a", r"Energy contours and flow, $p = q = 0.9$"), Panel("fig1b", r"Basins, $p = q = 0.9$ (Theorem~2)"),
         Panel("fig1c", r"Energy contours and flow, $p = q = 0.1$"), Panel("fig1d", r"Basins, $p = q = 0.1$ (Theorem~8)")),
        unit="figure1", legend="fig1_legend"),
    PaperFigure(
        "2", "Gradient flow with the attention scalar",
        r"Gradient flow of $L(e, w, a)$ in $\mathbb{R}^3$ ($w$ and $a$ horizontal, $e$ vertical), (a) for "
        r"$p = q = 0.9$, (b) for $p = q = 0.1$. Green surface: the global minima $\Theta^\star$; the plane $e = 0$ "
        r"is split by the saddle line $w = -1/\sqrt{2}$ (black) into local minima (red) and local maxima (blue); "
        r"purple dots: the stationary set $\Theta_{\mathrm{station}}$; grey: the energy level set through the "
        r"first start. Curves: trajectories from six fixed starts (dot: start, cross: end), coloured by the class "
        r"of their limit. What to look at: the trajectories stay on their energy level sets and end on the "
        r"critical sets of Theorem~10.",
        (Panel("fig2_p09", r"$p = q = 0.9$ ($p + q > 1$)"), Panel("fig2_p01", r"$p = q = 0.1$ ($p + q < 1$)")),
        unit="figure2"),
    PaperFigure(
        "3", "Rank-one structure emerges",
        r"The full transformer trained from a small Gaussian initialization[[ (standard deviation $%(sigma3)s$; "
        r"$p = %(p3)s$, $q = %(q3)s$, $d = %(d3)s$, sequences of length $N = %(N3)s$)]]. (a) The ratio $s_2/s_1$ of the two largest singular values of $W_V$, "
        r"$W_1$ and $W_2$ along training; (b) the exact population loss against the entropy rate and "
        r"$H(\pi)$; (c) the alignment of $W_1$ with the embedding and the embedding's spread; (d) the norms of "
        r"$W_V$ and $W_1$. What to look at: the "
        r"ratios of $W_1$ and $W_2$ fall by orders of magnitude (rank one, as the canonical model assumes); $W_V$ "
        r"is rank one only while it is large and, at our small $N$, not at the end (the paper, with $N = 1024$, "
        r"reports it rank one; claim \texttt{fig3.rank\_one\_emerges}).",
        (Panel("fig3_fullmodel", ""),), unit="figure3", columns=1),
    PaperFigure(
        "4", "Standard versus the paper's initialization",
        r"Exact population loss of the full transformer along training[[ for $p = %(p4)s$, $q = %(q4)s$ ($d = %(d4)s$, "
        r"$N = %(N4)s$)]]: the standard initialization[[ $N(0, %(sigma4)s^2)$]] (blue) and the paper's initialization (orange), one line per seed, with "
        r"$H(\pi)$ and the entropy rate. Right: the same, zoomed. What to look at: the standard initialization "
        r"stalls at $H(\pi)$, the paper's reaches the entropy rate.",
        (Panel("fig4_fullmodel", ""),), unit="figure4", columns=1),
    PaperFigure(
        "5", "Gradient flow near the origin",
        r"Figure~2 near the origin, $[-\tfrac12, \tfrac12]^3$: trajectories from %(n5)s seeded Gaussian starts "
        r"$\theta_0 \sim N(0, \sigma^2 I_3)$, $\sigma = %(sigma5)s$ (the starts of the check of this figure), (a) "
        r"$p = q = 0.9$, (b) $p = q = 0.1$; colours as in Figure~2. What to look at: for "
        r"$p + q > 1$ the plane $e = 0$ of local minima attracts every start, for $p + q < 1$ the flow leaves it "
        r"towards $\Theta^\star$.",
        (Panel("fig5_p09", r"$p = q = 0.9$: the local minima attract"), Panel("fig5_p01", r"$p = q = 0.1$: they repel")),
        unit="figure5"),
    PaperFigure(
        "6", "A rank-one initialization stays rank one",
        r"As Figure~3, from a rank-one initialization: the singular-value ratios of $W_V$, $W_1$, $W_2$ stay at "
        r"the level of rounding errors along unconstrained training. What to look at: no ratio grows, so the "
        r"rank-one structure that the canonical model assumes is kept by training.",
        (Panel("fig6_fullmodel", ""),), unit="figure6", columns=1),
    PaperFigure(
        "A.1", "Basins of the flow with attention on two slices",
        r"Limit of the gradient flow of $L(e, w, a)$ from $\theta_0$ on slices of $\mathbb{R}^3$, one integrated flow "
        r"per cell, coloured by the class of its limit (global minimum orange, local minimum light blue, local "
        r"maximum dark blue, white: not converged); the starts on $e_0 = 0$, a plane of critical points the flow "
        r"never leaves, are drawn as the line they are. Top: $p = q = 0.9$, bottom: $p = q = 0.1$. Left: the slice "
        r"$a_0 = 0$ ($w_0$ horizontal, $e_0$ vertical; dashed: $w = -1/\sqrt{2}$); right: the slice $w_0 = -\tfrac12$ "
        r"(for $p = q = 0.1$: $w_0 = -\tfrac32$, where both classes occur) with $a_0$ horizontal and $e_0$ vertical. "
        r"The paper does not state the basins with attention; this figure shows them by integration, and "
        r"Figure~A.2 draws them from their closed form (\hyperref[sec:r3_basins]{our Theorems A and B}).",
        (Panel("fig_attn_basins", ""),), unit=None, columns=1),
    PaperFigure(
        "A.2", "The basins with attention in closed form",
        r"The basins of Theorems A ($p + q > 1$) and B ($p + q < 1$), our result, drawn from their closed form: "
        r"(a) the $(a_0, e_0)$ plane: the Airy separatrix $S$ (black), the region $R$ between its branches, where the flow "
        r"lines reach $e = 0$ (green), and the curves $C$: $1 + a e^2 = 0$ and $N$: $1 + 2 a e^2 = 0$ (dashed, "
        r"dotted); (b), (c) the slice $a_0 = 0$ for $p + q > 1$ and $p + q < 1$, with the race tie $w_0 = w_c$ "
        r"(thin black); (d) the slice $w_0 = -\tfrac12$ for $p + q > 1$. Colours as in Figure~A.1. What to look "
        r"at: these are the slices of Figure~A.1 (top left, bottom left, top right), drawn from formulas instead "
        r"of flows.",
        (Panel("fig_r3_basins", ""),), unit=None, columns=1),
    PaperFigure(
        "A.4", "With and without weight tying: where the flow from a small start ends",
        r"Integrated gradient flows of the reduced loss from eight starts $\theta_0 \sim N(0, \sigma^2 I)$, "
        r"$\sigma = 1/5$, drawn in the plane of $w$ (horizontal) and the slope $A$ of the logit (vertical, symmetric "
        r"logarithmic scale: linear within $10^{-2}$ of 0), for the tied model ($\theta = (e, w)$, left) and the "
        r"untied one ($\theta = (e, w, h)$, right; the same $e_0$, $w_0$, and $h_0$ drawn after them). Top: "
        r"$p = q = 0.9$; bottom: $p = q = 0.1$. Dashed green: the global minima $A = A^\star$; the line $A = 0$ of "
        r"the unigram points, coloured by their derived classes (tied: local minima red, local maxima blue, the "
        r"saddle black; untied: every point a saddle, black). Dots: starts, crosses: ends (orange: a global "
        r"minimum, red: a local minimum). What to look at: for $p + q > 1$ the tied flows stop on the red line "
        r"(the bad local minima of [23] (ii) and Theorem~2), the untied flows cross $A = 0$ and reach $A^\star$; "
        r"for $p + q < 1$ both reach $A^\star$ (Theorem~8).",
        (Panel("fig_untied", ""),), unit="untied_flow", columns=1),
    PaperFigure(
        "A.3", "Dependency graph of the numbered results",
        r"The paper's numbered results as checked here: an arrow goes from a result to a result whose check uses "
        r"it; each node is coloured by the status of its weakest claim, on the ladder of \hyperref[sec:ladder]{How to read this document}.",
        (Panel("dependencies", ""),), unit=None, columns=1, where="root", height=0.86),
    PaperFigure(
        "A.5", "Where training ends: the phase diagram",
        r"The full transformer trained from $\theta_0$ with every parameter $N(0, \sigma^2)$ (gradient descent on its "
        r"exact population loss) over chains $(p, q)$ ordered by $p + q$ (the black line is $p + q = 1$) and scales "
        r"$\sigma$: (a) the fraction of seeds that end at the bigram loss; (b) the canonical model's certified "
        r"$P(\theta_0 \in I^\star)$ (Theorems~2 and~8, the digits shown are guaranteed); (c) with the attention "
        r"scalar, $1 - P(\text{local minimum})$ (Theorems~A and~B: the quadrature estimate and a rigorous one-sided "
        r"bound); (d) (a) minus (b); the largest grid cached by \texttt{l2g sweep}. What to look at: where (b) is "
        r"near 0 or 1 (small $\sigma$) the cells of (a) should have its colour; where it is not, (d) shows how far the "
        r"full transformer departs from the mass of the canonical basin (the claim of this section gives the numbers).",
        (Panel("fig_phase", ""),), unit="phase_diagram", columns=1),
)

BY_UNIT = {f.unit: f for f in FIGURES if f.unit}


def _file(stem: str, folder: Path | None) -> str | None:
    if folder is None:
        return None
    for ext in (".pdf", ".png"):
        if (folder / (stem + ext)).is_file():
            return stem + ext
    return None


def _experiment_parameters() -> dict:
    """The parameters of the training runs behind Figs. 3, 4 and 6 (one source: the experiments' configuration)."""
    try:
        from local2global.numeric.transformer import experiments as X
    except Exception:                              # noqa: BLE001 - torch missing: the captions say less
        return {}
    out = {}
    for key, cfg in (("3", X.FIG3), ("4", X.FIG4)):
        for name in ("p", "q", "d", "N", "sigma"):
            if name in cfg:
                out[name + key] = "%g" % cfg[name]
    return out


_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve")


def figure_parameters(number: str) -> dict:
    """What the caption of figure `number` prints about its data (only Figure 5 has any here: the σ and the count
    of the starts of its check, `claims_30_attention.FIG5_STARTS`, one definition); {} for the others."""
    return _fig5_parameters() if number == "5" else {}


def _fig5_parameters() -> dict:
    from fractions import Fraction

    from local2global.proofs.claims_30_attention import FIG5_STARTS
    sigma, n = Fraction(FIG5_STARTS["sigma"]), FIG5_STARTS["n"]
    return {"sigma5": str(sigma.numerator) if sigma.denominator == 1 else
            "%d/%d" % (sigma.numerator, sigma.denominator), "n5": _WORDS[n] if n < len(_WORDS) else str(n)}


def caption_of(fig: PaperFigure) -> str:
    """The figure's caption with the parameters of what it shows filled in (the starts of Fig. 5 from its check;
    the experiments' parameters for Figs. 3, 4); the [[...]] parts that need the experiments' are left out when
    they are not available (no digit is printed that the configuration does not give)."""
    import re
    if fig.number == "5":
        return fig.caption % _fig5_parameters()
    if "[[" not in fig.caption:
        return fig.caption
    params = _experiment_parameters()

    def fill(m):
        try:
            return m.group(1) % params
        except KeyError:
            return ""
    return re.sub(r"\[\[(.*?)\]\]", fill, fig.caption, flags=re.S)


def figure_tex(fig: PaperFigure, fig_dir, root, tex_dir) -> str:
    """The float of one figure (numbered as the paper's), or a paragraph saying it is not in this build.

    Paths are relative to `tex_dir` (the directory of derivations.tex, put on TEXINPUTS by `pdf.compile_pdf`).
    """
    folder = Path(fig_dir) if fig.where == "fig_dir" and fig_dir is not None else (Path(root) if root else None)
    files = [_file(pn.stem, folder) for pn in fig.panels]
    legend = _file(fig.legend, folder) if fig.legend else None
    if folder is None or not all(files) or (fig.legend and not legend):
        return ("\\par\\smallskip\\noindent\\textit{Figure %s (%s) is not part of this build: the figures are "
                "rendered by the full run (see Appendix~\\ref{sec:reproduce}).}\\par\n" % (fig.number, fig.title))
    rel = Path(os.path.relpath(folder.resolve(), Path(tex_dir).resolve())) if tex_dir is not None else Path(folder.name)
    out = (["\\clearpage"] if fig.height > 0.7 else []) + ["\\begin{figure}[%s]" % ("p" if fig.height > 0.7 else "tbp"),
                                                           "\\centering"]
    if "." in fig.number:
        out.append("\\renewcommand{\\thefigure}{%s}\\renewcommand{\\theHfigure}{%s}" % (fig.number, fig.number))
    else:
        out.append("\\setcounter{figure}{%d}" % (int(fig.number) - 1))
    if len(fig.panels) == 1:
        out.append("\\includegraphics[width=\\textwidth,height=%.2f\\textheight,keepaspectratio]{%s}"
                   % (fig.height, (rel / files[0]).as_posix()))
    else:
        width = 0.98 / fig.columns
        height = 0.36 if len(fig.panels) > fig.columns else 0.45
        for i, (pn, f) in enumerate(zip(fig.panels, files)):
            out.append("\\begin{subfigure}[t]{%.2f\\textwidth}\\centering" % width)
            out.append("\\includegraphics[width=\\linewidth,height=%.2f\\textheight,keepaspectratio]{%s}"
                       % (height, (rel / f).as_posix()))
            out.append("\\caption{%s}\\label{%s%s}" % (pn.caption, fig.label, "abcdefgh"[i]))
            out.append("\\end{subfigure}" + ("\\hfill" if (i + 1) % fig.columns else "\\par\\medskip"))
        if legend:
            out.append("\\includegraphics[width=\\textwidth]{%s}\\par" % (rel / legend).as_posix())
    out.append("\\caption[%s]{\\textbf{%s.} %s}\\label{%s}" % (fig.title, fig.title, caption_of(fig), fig.label))
    out.append("\\end{figure}")
    if "." in fig.number:
        out.append("\\renewcommand{\\thefigure}{\\arabic{figure}}\\renewcommand{\\theHfigure}{\\arabic{figure}}")
    return "\n".join(out) + "\n"


def captions() -> dict[str, str]:
    """Per figure file stem: 'Figure 1 (a): energy contours and flow, ...' (plain LaTeX text), for other outputs."""
    out = {}
    for fig in FIGURES:
        for i, pn in enumerate(fig.panels):
            panel = " (%s)" % "abcdefgh"[i] if len(fig.panels) > 1 else ""
            out[pn.stem] = "Figure %s%s: %s" % (fig.number, panel, pn.caption or fig.title)
        if fig.legend:
            out[fig.legend] = "Figure %s: the legend of its panels" % fig.number
    return out
