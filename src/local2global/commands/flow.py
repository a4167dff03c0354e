"""`l2g flow`: where the gradient flow from one start ends (Thm 2 / Thm 8), predicted and integrated;
`l2g flow --suite`: the boundary verification suite (both sides of every basin boundary at 10^-k)."""
from __future__ import annotations

import json
import sys

from ._common import UsageError, bounded, exact_number, integer, output_file, precision, probability, write_atomic

NAME = "flow"
HELP = ("Gradient flow in R^2 from (e0, w0): the basin of Thm 2/8, the analytic limit (energy contour "
        "∩ critical set) and an independent high-precision integration, with the energy drift; "
        "--suite runs the boundary verification suite instead.")


def add_arguments(parser):
    parser.add_argument("--p", help="switching probability p in (0, 1), e.g. 0.9 or 9/10")
    parser.add_argument("--q", help="switching probability q in (0, 1)")
    parser.add_argument("--e0", help="initial embedding scalar e0 (|e0| <= 10)")
    parser.add_argument("--w0", help="initial feed-forward scalar w0 (|w0| <= 10)")
    parser.add_argument("--a0", default=None, help="initial attention scalar a0 (|a0| <= 10): flow in R^3 = (e, w, a) "
                        "(Sec. 4.1; limit class may be 'station'; no closed-form basin prediction)")
    parser.add_argument("--dps", default=None, help="working precision in digits (15..100; default 30, suite 50)")
    parser.add_argument("--json", nargs="?", const="-", metavar="FILE",
                        help="print JSON (or, with --suite, write it to FILE)")
    parser.add_argument("--suite", action="store_true",
                        help="boundary suite: p=q=0.9, p=q=0.1, (0.6, 0.8), (0.2, 0.3); k = 1, 5, 10, 15, 20")
    parser.add_argument("--integrate-k", default="20",
                        help="suite: the k whose starts are also integrated (comma list, default 20)")
    parser.add_argument("--jobs", default=None,
                        help="suite: worker processes (default: one per CPU core; results do not depend on it)")


def run(args) -> int:
    if args.suite:
        return _suite(args)
    missing = [n for n in ("p", "q", "e0", "w0") if getattr(args, n) is None]
    if missing:
        raise UsageError("the following arguments are required: " + ", ".join("--" + m for m in missing))
    p = probability(args.p, "--p")
    q = probability(args.q, "--q")
    e0 = bounded(exact_number(args.e0, "--e0"), "--e0", 10)
    w0 = bounded(exact_number(args.w0, "--w0"), "--w0", 10)
    dps = precision(args.dps or "30", lo=15, hi=100)
    if args.a0 is not None:
        a0 = bounded(exact_number(args.a0, "--a0"), "--a0", 10)
        from local2global.numeric.dynamics.basins import attention_flow
        rep = attention_flow(p, q, e0, w0, a0, dps=dps)
        if args.json:
            print(json.dumps(rep, indent=2))
        else:
            it = rep["integrated"]
            print(f"integrated limit:  {it['class']} at (e, w, a) = ({', '.join(it['limit'])}), t = {it['t']} "
                  f"({it['status']}, {it['steps']} steps)\nenergy drift:      {rep['energy_drift']}")
            print("\n".join(f"note: {n}" for n in rep["notes"]))
        return 0
    from local2global.numeric.dynamics import basins    # heavy imports only after validation
    rep = basins.flow_report(p, q, e0, w0, dps=dps, progress=sys.stderr.isatty())
    print(json.dumps(rep, indent=2) if args.json else basins.flow_report_text(rep))
    return 0


def _suite(args) -> int:
    dps = precision(args.dps or "50", lo=30, hi=100)
    try:
        ks = tuple(int(x) for x in args.integrate_k.split(",") if x.strip())
    except ValueError:
        raise UsageError(f"--integrate-k must be a comma list of integers, got {args.integrate_k!r}") from None
    jobs = integer(args.jobs, "--jobs", lo=1, hi=64) if args.jobs is not None else None    # None: one per core
    if args.json and args.json != "-":
        output_file(args.json)
    from local2global.numeric.dynamics import basins
    rows = []
    bad = 0
    for r in basins.boundary_suite(dps=dps, integrate_ks=ks, jobs=jobs):
        rows.append(r)
        bad += not r["agree"]
        k = "-" if r["k"] is None else str(r["k"])
        print(f"p={r['p']:5s} q={r['q']:5s} {r['boundary']:32s} {r['side']:8s} k={k:3s} theorem={r['theorem']:10s} "
              f"predicted={r['predicted']:10s} integrated={str(r['integrated']):10s} {'ok' if r['agree'] else 'DISAGREE'}",
              flush=True)
    print(f"{len(rows)} starts, {bad} disagreements (dps {dps})")
    if args.json and args.json != "-":
        import mpmath as mp
        clean = [{k: (mp.nstr(v, 6) if isinstance(v, mp.mpf) else ([mp.nstr(x, 25) for x in v] if k == "theta" else v))
                  for k, v in r.items()} for r in rows]
        write_atomic(args.json, json.dumps(clean, indent=2) + "\n")
    return 1 if bad else 0
