"""`l2g flow`: where the gradient flow from one start ends (Thm 2 / Thm 8), predicted and integrated;
`l2g flow --suite`: the boundary verification suite (both sides of every basin boundary at 10^-k).

A single flow prints (text, or `--json`) and writes nothing; the suite prints one line per start (or
`--json`) and `--out FILE` writes its JSON to FILE (validated before any work)."""
from __future__ import annotations

import json
import sys

from ._common import (UsageError, add_json_flag, bounded, computation_error, dps_help, dps_of, exact_number, integer,
                      output_file,
                      plural, probability, progress_enabled, write_atomic)

NAME = "flow"
HELP = ("Gradient flow in R^2 from (e0, w0): the basin of Thm 2/8, the analytic limit (energy contour "
        "∩ critical set) and an independent high-precision integration, with the energy drift; "
        "--untied: the flow of the model without weight tying from (e0, w0, h0); "
        "--suite runs the boundary verification suite instead.")
SUMMARY = 'gradient flow from one start (basin, limit, integration); --suite: the boundary suite'
EXAMPLE = "l2g flow --p 0.9 --q 0.9 --e0 0.5 --w0 -0.5"
EPILOG = "the boundary suite: l2g flow --suite --out build/boundary_suite.json"

JSON_FILE_HINT = "--out FILE with --suite (a single flow writes nothing)"
#: the distances 10^-k of the suite's starts from each boundary
SUITE_KS = (1, 5, 10, 15, 20)
_SINGLE = ("p", "q", "e0", "w0", "a0", "h0")
_SUITE = ("out", "integrate_k", "jobs")


def add_arguments(parser):
    parser.add_argument("--p", help="switching probability p in (0, 1), e.g. 0.9 or 9/10")
    parser.add_argument("--q", help="switching probability q in (0, 1)")
    parser.add_argument("--e0", help="initial embedding scalar e0 (|e0| <= 10)")
    parser.add_argument("--w0", help="initial feed-forward scalar w0 (|w0| <= 10)")
    parser.add_argument("--a0", default=None, help="initial attention scalar a0 (|a0| <= 10): flow in R^3 = (e, w, a) "
                        "(Sec. 4.1; limit class may be 'station'; the predicted class is that of Thms A/B, our result)")
    parser.add_argument("--untied", action="store_true", help="the flow of the model without weight tying in R^3 = "
                        "(e, w, h) (needs --h0): the limit predicted from its two conserved quantities next to an "
                        "integrated flow")
    parser.add_argument("--h0", default=None, help="initial head scale h0 of the untied model (|h0| <= 10; with --untied)")
    parser.add_argument("--dps", default=None, help=dps_help("flow", "working precision in digits") + "; "
                        + dps_help("flow --suite", "with --suite"))
    add_json_flag(parser, "the report (with --suite: the rows)")
    parser.add_argument("--suite", action="store_true",
                        help="boundary suite: p=q=0.9, p=q=0.1, (0.6, 0.8), (0.2, 0.3); k = 1, 5, 10, 15, 20")
    parser.add_argument("--out", default=None, metavar="FILE", help="suite: write the rows as JSON to FILE")
    parser.add_argument("--integrate-k", default=None,
                        help="suite: the k whose starts are also integrated (comma list of 1, 5, 10, 15, 20; default 20)")
    parser.add_argument("--jobs", default=None,
                        help="suite: worker processes (default: one per CPU core; results do not depend on it)")


def _opt(name: str) -> str:
    return "--" + name.replace("_", "-")


def run(args) -> int:
    if args.suite:
        stray = [_opt(n) for n in _SINGLE if getattr(args, n) is not None] + (["--untied"] if args.untied else [])
        if stray:
            raise UsageError(f"{', '.join(stray)} {'does' if len(stray) == 1 else 'do'} not apply to --suite "
                             "(it runs its own chains and starts)")
        return _suite(args)
    stray = [_opt(n) for n in _SUITE if getattr(args, n) is not None]
    if stray:
        raise UsageError(f"{', '.join(stray)} {'applies' if len(stray) == 1 else 'apply'} only with --suite "
                         "(a single flow writes nothing: use --json and redirect stdout to keep it)")
    missing = [n for n in ("p", "q", "e0", "w0") if getattr(args, n) is None]
    if missing:
        raise UsageError("the following arguments are required: " + ", ".join("--" + m for m in missing))
    p = probability(args.p, "--p")
    q = probability(args.q, "--q")
    e0 = bounded(exact_number(args.e0, "--e0"), "--e0", 10)
    w0 = bounded(exact_number(args.w0, "--w0"), "--w0", 10)
    dps = dps_of(args.dps, "flow")
    if args.h0 is not None and not args.untied:
        raise UsageError("--h0 is the initial head scale of the untied model: it needs --untied")
    if args.untied:
        if args.a0 is not None:
            raise UsageError("--untied and --a0 cannot be combined (the untied model is derived without attention)")
        if args.h0 is None:
            raise UsageError("--untied needs --h0 (the initial head scale; h0 = e0 starts on the tied diagonal)")
        h0 = bounded(exact_number(args.h0, "--h0"), "--h0", 10)
        if p + q == 1:
            raise UsageError("--untied at p + q = 1: the untied flow's limit is derived for p + q != 1 only (the "
                             "tied flow, without --untied, has an answer there)")
        from local2global.numeric.dynamics import basins_untied
        try:
            rep = basins_untied.flow_report(_chain(p, q), e0, w0, h0, dps=dps, progress=progress_enabled())
        except (ValueError, ArithmeticError) as ex:
            raise computation_error("the flow from this start", ex, dps) from None
        print(json.dumps(rep, indent=2) if args.json else basins_untied.flow_report_text(rep))
        return 0
    if args.a0 is not None:
        a0 = bounded(exact_number(args.a0, "--a0"), "--a0", 10)
        from local2global.numeric.dynamics.basins import attention_flow
        try:
            rep = attention_flow(_chain(p, q), e0, w0, a0, dps=dps)
        except (ValueError, ArithmeticError) as ex:
            raise computation_error("the flow from this start", ex, dps) from None
        print(json.dumps(rep, indent=2) if args.json else attention_text(rep))
        return 0
    from local2global.numeric.dynamics import basins    # heavy imports only after validation
    try:
        rep = basins.flow_report(_chain(p, q), e0, w0, dps=dps, progress=progress_enabled())
    except (ValueError, ArithmeticError) as ex:       # e.g. mpmath's findroot not converging for w0 = 1e-50
        raise computation_error("the flow from this start", ex, dps) from None
    print(json.dumps(rep, indent=2) if args.json else basins.flow_report_text(rep))
    return 0


def _chain(p, q):
    """The one chain of this command (validated (p, q), regime and mpf values computed once), passed down."""
    from local2global.numeric.chain import NumericChain
    return NumericChain(p, q)


def attention_text(rep: dict) -> str:
    """Text of `l2g flow --a0` (`attention_flow`'s report), with the same header and lines as the flow in R^2."""
    from local2global.numeric.dynamics.basins import report_tail
    from local2global.numeric.precision import shown_text
    th = rep["theta0"]
    it, pr = rep["integrated"], rep["predicted"]
    lines = [f"p = {rep['p']}, q = {rep['q']}, theta0 = (e, w, a) = ({th[0]}, {th[1]}, {th[2]}), dps = {rep['dps']}"]
    lines.append(f"basin ({rep['basin']}): {pr['class']} ({pr['reason']})" if rep["basin"] != "p+q=1" else
                 f"regime:            p + q = 1 (i.i.d. chain; Thms A/B do not apply) -> {pr['class']}")
    where = shown_text(pr, "(e, w, a)") if "limit" in pr else pr["limit_note"]
    lines += [f"predicted limit:   {pr['class']} at {where}" if "limit" in pr else
              f"predicted limit:   {pr['class']}; {where}",
              f"integrated limit:  {it['class']} at {shown_text(it, '(e, w, a)')}, t = {it['t']} "
              f"({it['status']}, {it['steps']} steps)",
              f"energy drift:      {rep['energy_drift']}"]
    return "\n".join(lines + report_tail(rep))


def _ks(text) -> tuple[int, ...]:
    try:
        ks = tuple(int(x) for x in str(text).split(",") if x.strip())
    except ValueError:
        raise UsageError(f"--integrate-k must be a comma list of integers, got {text!r}") from None
    if not ks or any(k not in SUITE_KS for k in ks):
        raise UsageError(f"--integrate-k must list values among {', '.join(map(str, SUITE_KS))}, got {text!r}")
    return ks


def _suite(args) -> int:
    dps = dps_of(args.dps, "flow --suite")
    ks = _ks(args.integrate_k if args.integrate_k is not None else "20")
    jobs = integer(args.jobs, "--jobs", lo=1, hi=64) if args.jobs is not None else None    # None: one per core
    if args.out is not None:
        output_file(args.out, "--out")
    from local2global.numeric.dynamics import basins
    from tqdm import tqdm
    bar = tqdm(desc="boundary suite", unit="start", file=sys.stderr, leave=False, disable=not progress_enabled())

    def progress(done, total):
        bar.total = total
        bar.update(done - bar.n)
        if done in (0, total):
            bar.refresh()                 # the first frame shows the total, the last one the full count

    def say(line):
        if args.json:
            return
        if not bar.disable and sys.stdout.isatty():
            tqdm.write(line, file=sys.stdout)          # above the bar, not through it
        else:
            print(line, flush=True)

    rows = []
    bad = 0
    try:
        for r in basins.boundary_suite(ks=SUITE_KS, dps=dps, integrate_ks=ks, jobs=jobs, progress=progress):
            rows.append(r)
            bad += not r["agree"]
            k = "-" if r["k"] is None else str(r["k"])
            say(f"p={r['p']:5s} q={r['q']:5s} {r['boundary']:32s} {r['side']:8s} k={k:3s} theorem={r['theorem']:10s} "
                f"predicted={r['predicted']:10s} integrated={str(r['integrated']):10s} {'ok' if r['agree'] else 'DISAGREE'}")
    finally:
        bar.close()
    summary = f"{plural(len(rows), 'start')}, {plural(bad, 'disagreement')} (dps {dps})"
    import mpmath as mp
    clean = [{k: (mp.nstr(v, 6) if isinstance(v, mp.mpf) else ([mp.nstr(x, 25) for x in v] if k == "theta" else v))
              for k, v in r.items()} for r in rows]
    text = json.dumps(clean, indent=2) + "\n"
    if args.json:
        sys.stdout.write(text)
        print(f"l2g: {summary}", file=sys.stderr)
    else:
        print(summary)
    if args.out is not None:
        write_atomic(args.out, text)
    return 1 if bad else 0
