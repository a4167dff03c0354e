"""`l2g all`: the main job (checks, report, figures, derivations + PDF, notebooks) into the folder `--out`
(default ./build); every path it writes is validated before any work."""
from __future__ import annotations

import sys

from ._common import TerminalProgress, UsageError, integer, dps_help, dps_of, output_dir, plural, progress_enabled

NAME = "all"
HELP = "the main job: proof checks, report, figures, derivations (PDF if pdflatex is installed), notebooks"
SUMMARY = 'the main job: checks, report, figures, derivations (+ PDF), notebooks into ./build'
EXAMPLE = "l2g all --no-figures"
EPILOG = ("--only restricts the checks (same selectors as `l2g check --only`: ids, prefixes, paper labels) and\n"
          "then needs --out, so a partial run never replaces the full build.")

#: what `--out` receives
OUT_FILES = ("checks.json", "report.md", "report.json", "dependencies.png", "dependencies.pdf",
             "derivations.tex", "derivations.pdf", "manifest.json")
OUT_FOLDERS = ("figures", "fragments", "notebooks")


def add_arguments(p):
    p.add_argument("--out", default=None, metavar="DIR", help="output folder (default ./build)")
    p.add_argument("--only", nargs="+", metavar="SEL", help="run only these checks (ids, prefixes, paper labels); "
                                                            "needs --out")
    p.add_argument("--dps", default=None, help=dps_help("all", "working precision of the sampled checks"))
    p.add_argument("--workers", default=None, metavar="N",
                   help="processes running the checks (default: one per CPU core; the results do not depend on it)")
    p.add_argument("--no-figures", action="store_true", help="skip the figures")
    p.add_argument("--no-notebooks", action="store_true", help="skip executing the notebooks")
    p.add_argument("--no-pdf", action="store_true", help="do not compile derivations.tex")
    p.add_argument("--no-kernel", action="store_true",
                   help="skip the kernel pass (Coq re-proving the exact steps; run where coqc is installed)")
    p.add_argument("--full", action="store_true",
                   help="first train Figs. 3, 4, 6 at the paper's setting as well (`l2g train --setting paper`: "
                        "N = 1024, SGD; hours on two CPU cores), so their claims report both settings")


def run(args) -> int:
    if args.only and args.out is None:
        raise UsageError("--only runs part of the checks: pass --out DIR as well, so the full build in ./build "
                         "is not replaced by a partial one")
    out = output_dir(args.out if args.out is not None else "build", "--out", files=OUT_FILES, folders=OUT_FOLDERS)
    dps = dps_of(args.dps, "all")
    workers = None if args.workers is None else integer(args.workers, "--workers", lo=1, hi=64)
    from local2global.proofs.outputs.provenance import ProvenanceError, source_date_epoch
    try:
        source_date_epoch()                         # the PDF's date: a malformed SOURCE_DATE_EPOCH is refused first
    except ProvenanceError as ex:
        raise UsageError(str(ex)) from None
    from local2global.proofs import select
    try:
        claim_ids = [c.id for c in select(args.only)] if args.only else None
    except KeyError as ex:
        raise UsageError(str(ex.args[0])) from None
    if not args.no_figures:
        from .figures import FIGURES, validate_caches
        output_dir(f"{out}/figures", "--out", files=[f"{n}.{e}" for n in FIGURES for e in ("pdf", "png")])
        validate_caches(None)

    if args.full:
        from local2global.numeric.transformer import experiments as nexp
        output_dir(nexp.cache_dir(), "cache folder")
        say = TerminalProgress("l2g all") if progress_enabled() else (lambda text: None)
        nexp.train_setting("paper", progress=progress_enabled(), say=say)
        if progress_enabled():
            say.close()
    from local2global.proofs.outputs.manifest import incomplete
    from local2global.proofs.outputs.pipeline import run_all
    from local2global.proofs.outputs.table import summary_line
    why = incomplete(out)
    if why:
        print(f"l2g: note: {out} is incomplete: {why}; this run writes it whole", file=sys.stderr)
    progress = TerminalProgress("l2g all") if progress_enabled() else None
    try:
        records, steps = run_all(out, dps=dps, figures=not args.no_figures, notebooks=not args.no_notebooks,
                                 pdf=not args.no_pdf, progress=progress, workers=workers, claim_ids=claim_ids,
                                 kernel=not args.no_kernel)
    finally:
        if progress is not None:
            progress.close()
    for s in steps:
        print(f"{s.name:10s} " + (f"skipped: {s.skipped}" if s.skipped else f"{plural(len(s.paths), 'file')} in {out}"))
    print(summary_line(records))
    return 1 if any(r.status == "failed" for r in records) else 0
