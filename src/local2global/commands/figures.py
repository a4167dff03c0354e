"""`l2g figures`: regenerate the paper's figures (PDF and PNG, byte-identical across runs)."""
from __future__ import annotations

import os

from ._common import UsageError

NAME = "figures"
HELP = ("regenerate the paper's figures (Fig. 1 (a)-(d), Figs. 2 and 5 with attention, Figs. 3, 4, 6 of the full "
        "model) and the basin slices with attention, as PDF and PNG into DIR (default ./build/figures)")


def add_arguments(parser):
    parser.add_argument("--out", default=os.path.join("build", "figures"), help="output folder (default build/figures)")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="figure names (e.g. fig1a); default all")


def run(args) -> int:
    out = args.out
    if os.path.exists(out) and not os.path.isdir(out):
        raise UsageError(f"--out {out} exists and is not a folder")
    from local2global.proofs.outputs.figures import plotting
    figs = plotting.discover()
    unknown = [n for n in (args.only or []) if n not in figs]
    if unknown:
        raise UsageError(f"unknown figure(s): {', '.join(unknown)}; known: {', '.join(figs)}")
    for path in plotting.render(out, args.only):
        print(path)
    return 0
