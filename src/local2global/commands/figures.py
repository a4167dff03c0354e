"""`l2g figures`: regenerate the paper's figures (PDF and PNG, byte-identical across runs) into the folder
`--out` (default ./build/figures); the training and basin-map figures keep their caches under $L2G_CACHE
(default ~/.cache/local2global)."""
from __future__ import annotations

import os
import sys

from ._common import UsageError, integer, output_dir, plural, progress_enabled

NAME = "figures"
HELP = ("regenerate the figures (Fig. 1 (a)-(d), Figs. 2 and 5 with attention and the basin slices, Figs. 3, 4, 6 "
        "of the full model) as PDF and PNG into DIR (default ./build/figures)")
SUMMARY = "regenerate the paper's figures (PDF and PNG)"
EXAMPLE = 'l2g figures --only "Fig. 1"'

#: every figure `l2g figures` draws, with what it shows (the registry is `outputs.figures.plotting`; a test
#: keeps this list equal to it, so `figures --help` never needs the heavy imports)
FIGURES = {
    "fig1_legend": "Fig. 1: the shared legend of panels (a)-(d) (the sets and curves drawn)",
    "fig1a": "Fig. 1 (a): energy contours and flow, p = q = 0.9",
    "fig1b": "Fig. 1 (b): basins of Thm 2, p = q = 0.9",
    "fig1c": "Fig. 1 (c): energy contours and flow, p = q = 0.1",
    "fig1d": "Fig. 1 (d): basins of Thm 8, p = q = 0.1",
    "fig2_p01": "Fig. 2: gradient flow with attention in R^3, p = q = 0.1",
    "fig2_p09": "Fig. 2: gradient flow with attention in R^3, p = q = 0.9",
    "fig3_fullmodel": "Fig. 3: rank-one structure emerges from Gaussian init (full model, trains)",
    "fig4_fullmodel": "Fig. 4: loss curves, standard vs the paper's init, p = 0.5, q = 0.8 (full model, trains)",
    "fig5_p01": "Fig. 5: flow near the origin, p = q = 0.1",
    "fig5_p09": "Fig. 5: flow near the origin, p = q = 0.9",
    "fig6_fullmodel": "Fig. 6: a rank-one init stays rank one (full model, trains)",
    "fig_attn_basins": "limit classes of the flow with attention on slices a0 = 0 and w0 fixed (cached)",
    "fig_phase": "where training ends: the full transformer over (p + q, sigma) against the canonical basins "
                 "(the largest grid cached by `l2g sweep`; not drawn before one)",
    "fig_r3_basins": "the R^3 basins in closed form (Thms A/B, our result): separatrix S, slices a0 = 0, w0 = -1/2",
    "fig_untied": "beyond the paper: tied and untied flows from the same small starts, p = q = 0.9 and 0.1",
}
EPILOG = ("figures:\n" + "\n".join(f"  {n:<16} {d}" for n, d in FIGURES.items())
          + "\n\n--only takes figure names and paper labels: 'Fig. 1', 'Figure 1 (b)', fig1b, fig2.")


def add_arguments(parser):
    parser.add_argument("--out", default=os.path.join("build", "figures"), metavar="DIR",
                        help="output folder (default build/figures)")
    parser.add_argument("--only", nargs="+", metavar="SEL",
                        help="figure names or labels (fig1a, 'Fig. 1', 'Figure 1 (b)'); default all")
    parser.add_argument("--workers", default=None, metavar="N",
                        help="processes drawing the figures (default: one per CPU core; the files do not depend on it)")


def validate_caches(names) -> None:
    """The cache folders the chosen figures write to, validated like `--out`."""
    from local2global.proofs.outputs.figures import plotting
    for folder in plotting.cache_folders(names):
        output_dir(folder, "cache folder")


def choose(only) -> list[str]:
    """The figure names `only` selects (all by default); UsageError for unknown selectors."""
    from local2global.proofs.outputs.figures import plotting
    from local2global.proofs.selection import select_figures
    notes: list[str] = []
    try:
        names = select_figures(only, list(plotting.discover()), notes=notes)
    except KeyError as ex:
        raise UsageError(str(ex.args[0])) from None
    for n in notes:
        print(f"l2g: note: {n}", file=sys.stderr)
    return names


def step_counter(label: str = "figure"):
    """`progress(i, n, name)` for `plotting.render`: '[figure 3/12] fig2_p09' (the third written) on stderr, on a
    terminal only."""
    if not progress_enabled():
        return None

    def progress(i, n, name):
        print(f"[{label} {i}/{n}] {name}", file=sys.stderr, flush=True)
    return progress


def run(args) -> int:
    out = output_dir(args.out, "--out", files=[f"{n}.{e}" for n in FIGURES for e in ("pdf", "png")])
    names = choose(args.only)
    workers = None if args.workers is None else integer(args.workers, "--workers", lo=1, hi=64)
    validate_caches(names)
    from local2global.proofs.outputs.figures import plotting
    paths = plotting.render(out, names, progress=step_counter(), workers=workers)
    for path in paths:
        print(path)
    print(f"l2g: {plural(len(names), 'figure')}, {plural(len(paths), 'file')} in {out}", file=sys.stderr)
    return 0
