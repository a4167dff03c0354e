"""The R^3 characterisation (Thms A, B; our result) against integrated flows, at a size too large for a claim.

`python benchmarks/r3_validation.py [--random N] [--seed S] [--ks 2,4,8,12] [--jobs J] [--out FILE]` compares
`basins_r3.predict_R3` with the repository integrator (`compare_R3`) on

* both sides of every part of the basin boundary at distance 10^-k (the separatrix cylinder S x [0, oo) for
  p+q > 1, the race surface, the station surface; `boundary_starts`), for p = q = 9/10 and p = q = 1/10, at
  `dps_for(k)` digits;
* N exact random starts in [-2, 2]^3 (denominator 1000, the same starts for both chains) at 30 digits,

and writes one row per start (predicted, integrated, case, limit gap, seconds) and a summary to FILE (default
build/r3_validation.json). The claims `r3.basins_A` / `r3.basins_B` run a small subset of this (k = 4 and 4
random starts per chain). Starts run in fixed chunks through `infra.executor.map_chunks`, so the rows do not
depend on --jobs.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHAINS = {1: (Fraction(9, 10), Fraction(9, 10)), -1: (Fraction(1, 10), Fraction(1, 10))}


def _one(item):
    from local2global.numeric.dynamics import basins_r3 as nr3
    regime, label, k, theta, dps = item
    p, q = CHAINS[regime]
    t0 = time.perf_counter()
    c = nr3.compare_R3(p, q, theta, dps=dps, limit=True)
    gap = c["limit_gap"]
    return {"p": str(p), "q": str(q), "part": label, "k": k, "theta0": c["theta0"], "predicted": c["predicted"],
            "integrated": c["integrated"], "agree": c["agree"], "case": c["case"], "status": c["status"],
            "limit_gap": None if gap is None else f"{float(gap):.2e}", "seconds": round(time.perf_counter() - t0, 2)}


def chunk(items):
    return [_one(it) for it in items]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--random", type=int, default=50)
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--ks", default="2,4,8,12")
    ap.add_argument("--jobs", type=int, default=None)
    ap.add_argument("--out", default=str(ROOT / "build" / "r3_validation.json"))
    args = ap.parse_args(argv)
    from local2global.numeric.dynamics import basins_r3 as nr3
    from local2global.numeric.infra.executor import map_chunks
    ks = tuple(int(x) for x in args.ks.split(",") if x)
    items = []
    for regime in (1, -1):
        for r in nr3.boundary_starts(regime, ks=ks):
            items.append((regime, f"{r['part']} {r['side']}", r["k"], r["theta"], nr3.dps_for(r["k"])))
        for th in nr3.random_starts(args.random, args.seed):
            items.append((regime, "random", None, th, 30))
    t0 = time.perf_counter()
    rows = map_chunks(chunk, items, workers=args.jobs, chunk=4)
    wall = time.perf_counter() - t0
    bad = [r for r in rows if not r["agree"]]
    summary = {"starts": len(rows), "disagreements": len(bad), "wall_seconds": round(wall, 1),
               "max_seconds_per_start": max(r["seconds"] for r in rows),
               "classes": {c: sum(r["predicted"] == c for r in rows) for c in sorted({r["predicted"] for r in rows})}}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps({"summary": summary, "rows": rows}, indent=1) + "\n")
    print(json.dumps(summary), file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
