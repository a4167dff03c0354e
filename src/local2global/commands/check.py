"""`l2g check`: run the registered proof checks and print the claim table.

Writes into the folder `--out` (default ./build; with `--only` nothing unless `--out` is given, so a partial
run never replaces the full report): `checks.json` (the records, read by `l2g derive`), `report.md`,
`report.json`, `dependencies.png`, `dependencies.pdf`. `--json` prints the records on stdout instead of
the table.
"""
from __future__ import annotations

import json
import os
import sys

from ._common import UsageError, add_json_flag, dps_help, dps_of, integer, kernel_step, output_dir, plural, progress_enabled

NAME = "check"
HELP = "run the proof checks of the paper's claims (status per claim, with negative controls)"
SUMMARY = "run the proof checks of the paper's claims; writes the report"
EXAMPLE = 'l2g check --only "Lemma 12"'
EPILOG = ("--only takes claim ids (lemma5.b_star), id prefixes (cert, full) and paper labels in any spelling:\n"
          "'Lemma 12', 'Lem. 12', lemma12, 'Thm 2', 'Theorem 2 (ii)', 'Fig. 1', 'Remark 5', 'Eq. 3', 'Sec. 4'.\n"
          "A label selects exactly the claims the report lists under it; a sub-item such as 'Thm 2 (ii)'\n"
          "selects the claims whose reference names that item, or the whole result if none does.")

JSON_FILE_HINT = "--out DIR (writes DIR/checks.json and the report)"
#: what `--out` receives (validated before any work)
OUT_FILES = ("checks.json", "report.md", "report.json", "dependencies.png", "dependencies.pdf")


def add_arguments(p):
    p.add_argument("--only", nargs="+", metavar="SEL",
                   help="claim ids, id prefixes or paper labels ('Lemma 12', 'Thm 2 (ii)', 'Fig. 1', 'Eq. 3')")
    p.add_argument("--dps", default=None, help=dps_help("check", "working precision in digits for sampled checks"))
    add_json_flag(p, "the records (with --list: the selected claims)")
    p.add_argument("--list", action="store_true", help="list the selected claims without running them")
    p.add_argument("--kernel", action="store_true",
                   help="also re-prove the exact steps with Coq's kernel (coqc): certificates in DIR/coq, cached")
    p.add_argument("--workers", default=None, metavar="N",
                   help="processes running the checks (default: one per CPU core; the results do not depend on it)")
    p.add_argument("--out", default=None, metavar="DIR",
                   help="folder for checks.json, report.md, report.json and the dependency graph (default ./build; "
                        "with --only none is written unless --out is given, so a partial run never replaces the "
                        "full one)")


def format_list(claims) -> str:
    """`check --list`: id, reference, title in columns as wide as their longest entry."""
    rows = [("id", "reference", "title")] + [(c.id, c.ref, c.title) for c in claims]
    w0, w1 = (max(len(r[i]) for r in rows) for i in (0, 1))
    lines = [f"{a:<{w0}}  {b:<{w1}}  {c}".rstrip() for a, b, c in rows]
    lines.insert(1, "-" * (w0 + w1 + 4 + max(len(r[2]) for r in rows)))
    lines.append(plural(len(claims), "claim"))
    return "\n".join(lines)


def run(args) -> int:
    # every input, and the folder we will write, is checked before the registry is even imported
    dps = dps_of(args.dps, "check")
    workers = None if args.workers is None else integer(args.workers, "--workers", lo=1, hi=64)
    out = args.out if args.out is not None else (None if args.only else "build")
    if out is not None and not args.list:
        output_dir(out, "--out", files=OUT_FILES)

    from local2global.proofs import select
    notes: list[str] = []
    try:
        claims = select(args.only, notes=notes)
    except KeyError as ex:
        raise UsageError(str(ex.args[0])) from None
    for n in notes:
        print(f"l2g: note: {n}", file=sys.stderr)
    if args.list:
        if args.json:
            print(json.dumps([{"id": c.id, "ref": c.ref, "title": c.title, "section": c.section} for c in claims],
                             indent=2))
        else:
            print(format_list(claims))
        return 0

    from local2global.proofs import Context, run_claims
    from local2global.proofs.outputs.table import format_table, summary_line
    from tqdm import tqdm
    with tqdm(total=len(claims), desc="checking", unit="claim", file=sys.stderr, leave=False,
              disable=not progress_enabled()) as bar:
        def progress(done, n, cid):
            bar.set_postfix_str(cid, refresh=False)
            bar.update(done - bar.n)
        records = run_claims(claims, Context(dps=dps), workers=workers, progress=progress)
    if args.kernel:
        records = kernel_step(records, out, workers)
    # the claims they use were run too (a claim is as strong as its weakest step); show what was asked for
    chosen = {c.id for c in claims}
    if args.only:
        extra = len(records) - len(chosen)
        records = [r for r in records if r.id in chosen]
        if extra:
            print(f"l2g: note: {plural(extra, 'more claim')} that these use were run for their status",
                  file=sys.stderr)
    data = [r.as_dict() for r in records]
    if args.json:
        print(json.dumps(data, indent=2, sort_keys=True))
    else:
        print(format_table(records))
        print(summary_line(records))
    if out is None:
        print("l2g: note: report not written for a partial run (--only); pass --out DIR to write one", file=sys.stderr)
    else:
        from local2global.proofs.outputs.report import write_report
        from local2global.proofs.outputs.document import RECORDS_NAME
        from local2global.numeric.infra.atomic import atomic_group
        from ._common import make_folder, write_atomic
        make_folder(out)
        with atomic_group():            # the records and their report appear together (an interrupt: neither)
            write_atomic(os.path.join(out, RECORDS_NAME), json.dumps(data, indent=2, sort_keys=True) + "\n")
            paths = [os.path.join(out, RECORDS_NAME), *map(str, write_report(records, out))]
        print(f"l2g: wrote {', '.join(os.path.basename(p) for p in paths)} in {out}", file=sys.stderr)
    return 1 if any(r.status == "failed" for r in records) else 0

