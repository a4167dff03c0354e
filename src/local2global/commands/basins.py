"""`l2g basins`: P(the limit is a local minimum) for GF-Attention in R^3 under theta0 ~ N(0, sigma^2 I_3)
(Thm 11 made precise, by Thms A/B; our result): certified bounds, the quadrature estimate where tabulated, and an
optional seeded Monte Carlo of the classification."""
from __future__ import annotations

import json
import re
from fractions import Fraction

from ._common import ComputationError, UsageError, add_json_flag, dps_help, dps_of, exact_number, integer, probability, shown

NAME = "basins"
HELP = ("P(theta_lim is a local minimum) for the flow with attention in R^3, theta0 ~ N(0, sigma^2 I_3) (Thms A/B, "
        "our result): a certified lower bound (arb balls over the cells of Lemma C; for p+q > 1 also the bound "
        "uniform in sigma' <= sigma; for p+q < 1 a certified upper bound), the quadrature value where tabulated "
        "(labelled an estimate), and with --mc a seeded Monte Carlo of the classification with a z-score.")
SUMMARY = "certified P(local minimum) in R^3 under Gaussian initialization (Thm 11 made precise)"
EXAMPLE = "l2g basins --p 0.9 --q 0.9 --sigma 0.1"
#: a Dask scheduler address: [scheme://]host:port (tcp, tls, ws, ...), or an in-process inproc:// address
_ADDRESS = re.compile(r"(?:[a-z][a-z0-9+.-]*://)?(?:[^\s/:\[\]]+|\[[0-9a-fA-F:.]+\]):\d{1,5}|inproc://[^\s]+")


def add_arguments(parser):
    parser.add_argument("--p", required=True, help="switching probability p in (0, 1)")
    parser.add_argument("--q", required=True, help="switching probability q in (0, 1); p + q != 1")
    parser.add_argument("--sigma", required=True, help="standard deviation sigma, 1/1000 <= sigma <= 10")
    parser.add_argument("--dps", default=None, help=dps_help("basins", "ball precision in decimal digits") + "; "
                        "at most 20 digits of a bound are printed, rounded outward")
    parser.add_argument("--mc", default="0", help="Monte Carlo samples of the classification (0..100000, default 0)")
    parser.add_argument("--seed", default="0", help="Monte Carlo seed (default 0)")
    parser.add_argument("--workers", default=None,
                        help="Monte Carlo: local worker processes (1..64; default one per CPU; 1 = in this process)")
    parser.add_argument("--scheduler", default=None, metavar="ADDR",
                        help="Monte Carlo: a Dask distributed scheduler address (tcp://host:port); results are "
                             "bitwise those of a local run")
    add_json_flag(parser, "the bounds (and the Monte Carlo)")


def run(args) -> int:
    p = probability(args.p, "--p")
    q = probability(args.q, "--q")
    if p + q == 1:
        raise UsageError("Thms A and B assume p+q != 1: the basins (and their probabilities) are not defined there")
    sigma = exact_number(args.sigma, "--sigma")
    if not Fraction(1, 1000) <= sigma <= 10:
        raise UsageError(f"--sigma must lie in [1/1000, 10], got {shown(args.sigma)}")
    dps = dps_of(args.dps, "basins")
    mc = integer(args.mc, "--mc", 0, 10**5)
    seed = integer(args.seed, "--seed", 0, 2**32)
    workers = integer(args.workers, "--workers", 1, 64) if args.workers is not None else None
    scheduler = args.scheduler
    if scheduler is not None and not _ADDRESS.fullmatch(scheduler):
        raise UsageError(f"--scheduler must be a scheduler address such as tcp://127.0.0.1:8786, got {shown(scheduler)}")
    if (workers is not None or scheduler is not None) and mc == 0:
        raise UsageError("--workers and --scheduler apply only with --mc N (the bounds take a few seconds in this process)")
    if workers is not None and scheduler is not None:
        raise UsageError("give either --workers (local processes) or --scheduler (a Dask cluster), not both")
    from local2global.numeric.dynamics import prob_r3       # heavy imports only after validation
    try:
        rep = prob_r3.report(p, q, sigma, dps=dps, mc=mc, seed=seed, workers=workers, scheduler=scheduler)
    except (OSError, TimeoutError) as ex:                     # e.g. no Dask scheduler at that address
        raise ComputationError(f"cannot run the Monte Carlo on the scheduler {shown(scheduler)} "
                               f"({type(ex).__name__}: {str(ex)[:120]})") from None
    print(json.dumps(rep, indent=2) if args.json else prob_r3.report_text(rep))
    return 0
