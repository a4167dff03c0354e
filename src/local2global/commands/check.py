"""`l2g check`: run the registered proof checks and print the claim table."""
from __future__ import annotations

import json
import os
import sys

from ._common import UsageError, precision

NAME = "check"
HELP = "run the proof checks of the paper's claims (status per claim, with negative controls)"


def add_arguments(p):
    p.add_argument("--only", nargs="+", metavar="ID", help="claim ids, id prefixes (lemma5) or paper refs ('Lemma 5')")
    p.add_argument("--dps", default="50", help="working precision in digits for sampled checks (default 50, min 30)")
    p.add_argument("--json", metavar="FILE", help="also write the records as JSON to FILE")
    p.add_argument("--list", action="store_true", help="list the registered claims without running them")
    p.add_argument("--workers", default=None, metavar="N",
                   help="processes running the checks (default: one per CPU core; the results do not depend on it)")
    p.add_argument("--out", default=None, metavar="DIR",
                   help="folder for report.md, report.json and the dependency graph (default ./build; with --only "
                        "no report is written unless --out is given, so a partial run never replaces the full one)")


def run(args) -> int:
    from local2global.proofs import Context, run_claims, select
    from local2global.proofs.outputs.table import format_table, summary_line
    from ._common import integer, output_file, write_atomic

    dps = precision(args.dps, lo=30, hi=200)
    workers = None if args.workers is None else integer(args.workers, "--workers", lo=1, hi=64)
    if args.json:
        output_file(args.json)
    out = args.out if args.out is not None else (None if args.only else "build")
    if out is not None and os.path.exists(out) and not os.path.isdir(out):
        raise UsageError(f"--out {out!r} exists and is not a directory")
    try:
        claims = select(args.only)
    except KeyError as ex:
        raise UsageError(str(ex.args[0])) from None
    if args.list:
        for c in claims:
            print(f"{c.id:28s} {c.ref:28s} {c.title}")
        return 0
    from tqdm import tqdm
    with tqdm(total=len(claims), desc="checking claims", unit="claim", file=sys.stderr,
              disable=not sys.stderr.isatty()) as bar:
        def progress(done, n, cid):
            bar.n = done
            bar.set_postfix_str(cid)
        records = run_claims(claims, Context(dps=dps), workers=workers, progress=progress)
    # the claims they use were run too (a claim is as strong as its weakest step); show what was asked for
    chosen = {c.id for c in claims}
    if args.only:
        extra = len(records) - len(chosen)
        records = [r for r in records if r.id in chosen]
        if extra:
            print(f"({extra} more claim{'s' if extra != 1 else ''} that these use were run for their status)",
                  file=sys.stderr)
    print(format_table(records))
    print(summary_line(records))
    if args.json:
        write_atomic(args.json, json.dumps([r.as_dict() for r in records], indent=2, sort_keys=True) + "\n")
    if out is None:
        print("report not written for a partial run (--only); pass --out DIR to write one", file=sys.stderr)
    else:
        from local2global.proofs.outputs.report import write_report
        for path in write_report(records, out):
            print(f"wrote {path}", file=sys.stderr)
    return 1 if any(r.status == "failed" for r in records) else 0
