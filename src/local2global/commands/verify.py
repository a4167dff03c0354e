"""`l2g verify`: the trust base of one numbered result or claim, like a proof assistant's list of axioms.

Prints the result's status line, then what it rests on: the claims of its uses-closure, the number of proof steps
of each kind over them, every argued step in full, every cited step with its reference, and the software trusted
with its installed version. It runs the checks of that closure (as `l2g check --only SEL` does), or reads the
records of an earlier run with `--records FILE` (checks.json or report.json). Statuses and trust bases come from
`proofs.outputs.records`, the same rule as the report, the PDF and the site.
"""
from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

from ._common import UsageError, add_json_flag, dps_help, dps_of, integer, kernel_step, plural, progress_enabled, shown

NAME = "verify"
HELP = ("print the trust base of a numbered result or a claim: its status line, the claims it rests on, its steps "
        "per kind, every argued and cited step, the software trusted (runs the checks, or reads --records)")
SUMMARY = "the trust base of a result: status line, steps per kind, argued and cited steps, software"
EXAMPLE = 'l2g verify "Thm 11"'
EPILOG = ("SEL is a paper label in any spelling ('Thm 11', 'Lemma 15', 'Remark 5') or a claim id (thm11.precise).\n"
          "Without --records the checks of its uses-closure run first (as `l2g check --only SEL`).")

#: the width the arguments of argued steps are wrapped to
WIDTH = 100


def add_arguments(p):
    p.add_argument("selector", metavar="SEL", help="a numbered result ('Thm 11', 'Lemma 15') or a claim id")
    p.add_argument("--records", default=None, metavar="FILE",
                   help="read the records of an earlier run (checks.json or report.json) instead of running the checks")
    p.add_argument("--dps", default=None, help=dps_help("verify", "working precision in digits for sampled checks"))
    p.add_argument("--workers", default=None, metavar="N",
                   help="processes running the checks (default: one per CPU core; the records do not depend on it)")
    p.add_argument("--no-kernel", action="store_true",
                   help="skip the kernel pass (by default, where coqc is installed, the exact steps of a fresh run are "
                        "re-proved by Coq, from cached certificates where they exist)")
    add_json_flag(p, "the trust base")


def _what(selector: str, claims) -> tuple[str, str, str]:
    """(name, title, where) of what the selector names: a numbered result, one claim, or a group of claims."""
    from local2global.proofs.outputs.report import NUMBERED_RESULTS
    from local2global.proofs.selection import parse_label
    results = {name: (title, where) for name, title, where in NUMBERED_RESULTS}
    exact = [c for c in claims if c.id.lower() == selector.strip().lower()]
    label = parse_label(selector) if not exact else None
    if label is not None and label[0] in results:
        name = label[0] + "".join(f" ({i})" for i in label[1])
        return name, *results[label[0]]
    if len(claims) == 1:
        return claims[0].id, claims[0].title, claims[0].ref
    return selector.strip(), f"{len(claims)} claims", ""


def trust_report(selector: str, claims, recs: dict) -> dict:
    """The trust base of the claims `claims` (what `selector` selected) over the records `recs` (by id): status,
    status line, the claims with their status lines, and the trust base with software versions."""
    from local2global.proofs.outputs import records as R
    name, title, where = _what(selector, claims)
    ids = [c.id for c in claims]
    if len(ids) == 1 and name == ids[0]:
        rec = recs[ids[0]]
        res = {"status": rec["status"], "status_line": R.claim_line(rec),
               "trust": R.trust_of(recs, ids)}
    else:
        res = R.result_of(recs, ids)
    trust = dict(res["trust"])
    trust["software"] = R.software(trust.get("software", []))
    # the exact steps one by one: re-proved by Coq's kernel (with the certificate) or decided by SymPy only (why)
    for kind, key in (("kernel", "kernel"), ("exact", "exact")):
        trust[key] = [{"claim": cid, "states": s["states"],
                       **({"certificate": s.get("certificate", "")} if kind == "kernel" else
                          {"why": dict(map(tuple, s.get("values", []))).get("not kernel-checked", "")})}
                      for cid in trust.get("claims", []) if cid in recs
                      for s in recs[cid].get("steps", []) if s["kind"] == kind]
    return {"selector": selector, "result": name, "title": title, "where": where, "status": res["status"],
            "status_line": res["status_line"],
            "claims": [{"id": c, "ref": recs[c]["ref"], "role": recs[c].get("role", "proof"),
                        "status": recs[c]["status"], "status_line": R.claim_line(recs[c])} for c in ids],
            "trust": trust}


def _wrap(text: str, indent: str, more: str = "") -> str:
    """`text` on lines of at most WIDTH characters, the first indented by `indent`, the others by `indent + more`."""
    return textwrap.fill(" ".join(str(text).split()), WIDTH, initial_indent=indent, subsequent_indent=indent + more)


def format_text(rep: dict) -> str:
    """The trust base as text: the status line first, then the list (mathematics as the records write it)."""
    from local2global.proofs.outputs.records import counts_text
    t = rep["trust"]
    head = f"{rep['result']}: {rep['title']}" + (f" ({rep['where']})" if rep["where"] else "")
    lines = [head, f"status: {rep['status_line']}", "claims:"]
    lines += [f"  {c['id']} ({c['ref']}{', confrontation' if c['role'] == 'confrontation' else ''}): "
              f"{c['status_line']}" for c in rep["claims"]]
    lines += [f"trust base over the {plural(len(t.get('claims', [])), 'claim')} it rests on:",
              f"  steps: {counts_text(t.get('counts', {}))}",
              "  software: " + (", ".join(f"{s['label']} {s['version'] or '(not installed)'}" for s in t["software"])
                               or "none"),
              _wrap("rests on: " + ", ".join(t.get("claims", [])), "  ", "  ")]
    for key, word in (("kernel", "kernel-checked steps"), ("exact", "exact steps decided by SymPy only")):
        entries = t.get(key, [])
        lines.append(f"  {word} ({len(entries)})" + (":" if entries else ""))
        for e in entries:
            tail = f" [{e['certificate']}]" if e.get("certificate") else (f" [{e['why']}]" if e.get("why") else "")
            lines.append(_wrap(f"[{e['claim']}] {e['states']}{tail}", "    ", "  "))
    for key, word in (("argued", "argued steps"), ("cited", "cited steps")):
        entries = t.get(key, [])
        lines.append(f"  {word} ({len(entries)})" + (":" if entries else ""))
        for i, e in enumerate(entries, 1):
            ref = f" [{e['reference']}]" if key == "cited" else ""
            lines.append(_wrap(f"{i}. [{e['claim']}] {e['states']}{ref}", "    ", "   "))
            if e.get("argument"):
                lines.append(_wrap(e["argument"], "       "))
    return "\n".join(lines)


def run(args) -> int:
    dps = dps_of(args.dps, "verify")
    workers = None if args.workers is None else integer(args.workers, "--workers", lo=1, hi=64)
    if not str(args.selector).strip():
        raise UsageError("SEL is empty: give a numbered result ('Thm 11') or a claim id")
    if args.records is not None and not (args.records.strip() and Path(args.records).is_file()):
        raise UsageError(f"--records {shown(args.records)} is not a file")
    from local2global.proofs.outputs import records as R
    loaded = None
    if args.records is not None:
        try:
            loaded = R.by_id(R.load_records(args.records))
        except R.RecordsError as ex:
            raise UsageError(str(ex)) from None

    from local2global.proofs import select
    notes: list[str] = []
    try:
        claims = select([args.selector], notes=notes)
    except KeyError as ex:
        raise UsageError(str(ex.args[0])) from None
    for n in notes:
        print(f"l2g: note: {n}", file=sys.stderr)

    if loaded is not None:
        missing = [c.id for c in claims if c.id not in loaded]
        if missing:
            raise UsageError(f"--records {shown(args.records)} has no record of {', '.join(missing[:5])}"
                             + (f" and {len(missing) - 5} more" if len(missing) > 5 else ""))
        recs = loaded
        lacking = [c for c in R.closure(recs, [c.id for c in claims]) if c not in recs]
        if lacking:
            print(f"l2g: note: the records lack {plural(len(lacking), 'claim')} these use", file=sys.stderr)
    else:
        from tqdm import tqdm

        from local2global.proofs import Context, run_claims
        with tqdm(total=len(claims), desc="checking", unit="claim", file=sys.stderr, leave=False,
                  disable=not progress_enabled()) as bar:
            def progress(done, n, cid):
                bar.total = n
                bar.set_postfix_str(cid, refresh=False)
                bar.update(done - bar.n)
            recs = run_claims(claims, Context(dps=dps), workers=workers, progress=progress)
        if not args.no_kernel:
            recs = kernel_step(recs, None, workers)
        recs = R.by_id(recs)
    rep = trust_report(args.selector, claims, recs)
    if args.json:
        print(json.dumps(rep, indent=2, sort_keys=True, ensure_ascii=False))
    else:
        print(format_text(rep))
    return 1 if rep["status"] == "failed" else 0
