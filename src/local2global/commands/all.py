"""`l2g all`: the main job (checks, report, figures, derivations + PDF, notebooks) into ./build."""
from __future__ import annotations

from pathlib import Path

from ._common import UsageError, integer, precision

NAME = "all"
HELP = "the main job: proof checks, report, figures, derivations (PDF if pdflatex is installed), notebooks"


def add_arguments(p):
    p.add_argument("--out", default="build", metavar="DIR", help="output folder (default ./build)")
    p.add_argument("--dps", default="50", help="working precision of the sampled checks (default 50)")
    p.add_argument("--workers", default=None, metavar="N",
                   help="processes running the checks (default: one per CPU core; the results do not depend on it)")
    p.add_argument("--no-figures", action="store_true", help="skip the figures")
    p.add_argument("--no-notebooks", action="store_true", help="skip executing the notebooks")
    p.add_argument("--no-pdf", action="store_true", help="do not compile derivations.tex")


def run(args) -> int:
    from local2global.proofs.outputs.pipeline import progress_writer, run_all
    from local2global.proofs.outputs.table import summary_line

    out = Path(args.out)
    for part in (out, *out.parents):
        if part.exists():
            if not part.is_dir():
                raise UsageError(f"--out {args.out!r}: {str(part)!r} exists and is not a directory")
            break
    dps = precision(args.dps, lo=30, hi=200)
    workers = None if args.workers is None else integer(args.workers, "--workers", lo=1, hi=64)
    records, steps = run_all(out, dps=dps, figures=not args.no_figures, notebooks=not args.no_notebooks,
                             pdf=not args.no_pdf, progress=progress_writer(), workers=workers)
    for s in steps:
        print(f"{s.name:10s} " + (f"skipped: {s.skipped}" if s.skipped else f"{len(s.paths)} file(s) in {out}"))
    print(summary_line(records))
    return 1 if any(r.status == "failed" for r in records) else 0
