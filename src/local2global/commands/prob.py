"""`l2g prob`: probability of each basin of Thm 2/8 under Gaussian initialization N(0, sigma^2 I_2)."""
from __future__ import annotations

import json
import sys
from fractions import Fraction

from ._common import UsageError, add_json_flag, dps_help, dps_of, exact_number, probability, progress_enabled

NAME = "prob"
HELP = ("P(theta0 in I_min), P(theta0 in I*) for theta0 ~ N(0, sigma^2 I_2): certified enclosures (arb ball "
        "arithmetic, flint.acb.integral over the basins of Thm 2/8); only guaranteed digits are printed; "
        "optionally a seeded Monte Carlo cross-check.")
SUMMARY = "certified probability of each basin of Thm 2/8 under Gaussian initialization"
EXAMPLE = "l2g prob --p 0.9 --q 0.9 --sigma 0.02 --mc 1000"


def add_arguments(parser):
    parser.add_argument("--p", required=True, help="switching probability p in (0, 1)")
    parser.add_argument("--q", required=True, help="switching probability q in (0, 1)")
    parser.add_argument("--sigma", required=True, help="standard deviation sigma, 1/1000 <= sigma <= 10")
    parser.add_argument("--dps", default=None,
                        help=dps_help("prob", "working precision in decimal digits") + "; the enclosures are "
                             "about 10^-dps relative (never wider than 10^-(dps/2)) and at most dps digits are printed")
    parser.add_argument("--mc", default="0", help="Monte Carlo samples for a cross-check (default 0: none)")
    parser.add_argument("--seed", default="0", help="Monte Carlo seed (default 0)")
    add_json_flag(parser, "the probabilities")


def _count(text, name, hi):
    try:
        v = int(str(text).strip())
    except ValueError:
        raise UsageError(f"{name} must be an integer, got {text!r}") from None
    if not 0 <= v <= hi:
        raise UsageError(f"{name} must be between 0 and {hi}, got {v}")
    return v


def run(args) -> int:
    p = probability(args.p, "--p")
    q = probability(args.q, "--q")
    sigma = exact_number(args.sigma, "--sigma")
    # below 1/1000 the tiny probability is < 10^-75000 and the integrands vary on the scale sigma^2:
    # the certified integration becomes slow (minutes at 1/5000); refused rather than left running
    if not Fraction(1, 1000) <= sigma <= 10:
        raise UsageError(f"--sigma must lie in [1/1000, 10], got {args.sigma}")
    dps = dps_of(args.dps, "prob")
    mc = _count(args.mc, "--mc", 10**6)
    seed = _count(args.seed, "--seed", 2**32)
    if p + q == 1:
        raise UsageError("Thms 2 and 8 assume p+q != 1: the basins (and their probabilities) are not defined there")
    from local2global.numeric.dynamics import gaussian
    rep = None
    try:
        rep = gaussian.prob_report(p, q, sigma, dps=dps, mc=mc, seed=seed, progress=bool(mc) and progress_enabled())
    except ArithmeticError as ex:      # the enclosure could not be made as tight as promised: say so, print nothing
        print(f"l2g prob: {ex}", file=sys.stderr)
        return 1
    print(json.dumps(rep, indent=2) if args.json else gaussian.prob_report_text(rep))
    return 0
