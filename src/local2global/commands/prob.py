"""`l2g prob`: probability of each basin of Thm 2/8 under Gaussian initialization N(0, sigma^2 I_2)."""
from __future__ import annotations

import json

import sys

from ._common import UsageError, add_json_flag, exact_number, precision, probability, progress_enabled

NAME = "prob"
HELP = ("P(theta0 in I_min), P(theta0 in I*) for theta0 ~ N(0, sigma^2 I_2) by exact 1-D quadrature "
        "(mp.quad) of the basins of Thm 2/8; optionally a seeded Monte Carlo cross-check.")
SUMMARY = 'probability of each basin of Thm 2/8 under Gaussian initialization'
EXAMPLE = "l2g prob --p 0.9 --q 0.9 --sigma 0.02 --mc 1000"


def add_arguments(parser):
    parser.add_argument("--p", required=True, help="switching probability p in (0, 1)")
    parser.add_argument("--q", required=True, help="switching probability q in (0, 1)")
    parser.add_argument("--sigma", required=True, help="standard deviation sigma > 0 (at most 10)")
    parser.add_argument("--dps", default="40", help="working precision in digits (30..200, default 40)")
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
    if not 0 < sigma <= 10:
        raise UsageError(f"--sigma must lie in (0, 10], got {args.sigma}")
    dps = precision(args.dps, lo=30, hi=200)
    mc = _count(args.mc, "--mc", 10**6)
    seed = _count(args.seed, "--seed", 2**32)
    if p + q == 1:
        raise UsageError("Thms 2 and 8 assume p+q != 1: the basins (and their probabilities) are not defined there")
    from local2global.numeric.dynamics import gaussian
    from tqdm import tqdm
    with tqdm(total=mc, desc="Monte Carlo", unit="start", file=sys.stderr, leave=False,
              disable=not (mc and progress_enabled())) as bar:
        rep = gaussian.prob_report(p, q, sigma, dps=dps, mc=mc, seed=seed,
                                   progress=lambda done, n: bar.update(done - bar.n))
    print(json.dumps(rep, indent=2) if args.json else gaussian.prob_report_text(rep))
    return 0
