"""The speed-up of `l2g sweep` on 2 Dask workers over 1, and the cost of one point: `python benchmarks/sweep_speedup.py`.

Runs the same grid (default: 2 chains x 4 scales x 3 seeds = 8 points of the default training) three ways, each into
an empty cache of its own: serially in this process (`--workers 1`), and through a LocalCluster of 1 and of 2
worker processes; the cluster times include starting and closing it (what a user waits for). Reports the wall
times, the speed-up of 2 workers over 1 worker process and over serial (target >= 1.7), the CPU time of one point
(this process, serial run), and the 1-minute load average before and after each run: the machine is shared, and a
speed-up measured while other jobs hold the cores says more about them than about the sweep. The results of the
three runs are compared bitwise. Writes build/bench_sweep.json (or --out FILE).

Options: --chains, --sigmas (as `l2g sweep`), --seeds, --out.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _timed(label, fn):
    load0 = os.getloadavg()[0]
    t0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    print(f"{label:>22}: {wall:7.1f} s wall, {cpu:6.1f} s CPU here, load {load0:.2f} -> {os.getloadavg()[0]:.2f}",
          flush=True)
    return out, {"wall_s": round(wall, 2), "cpu_s_this_process": round(cpu, 2), "load_before": round(load0, 2),
                 "load_after": round(os.getloadavg()[0], 2)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chains", default="1/5:3/10,1/2:4/5")
    ap.add_argument("--sigmas", default="1/20,1/5,1/2,1")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--out", default=str(ROOT / "build" / "bench_sweep.json"))
    args = ap.parse_args(argv)
    from local2global.numeric.transformer import sweep as S
    chains = tuple(tuple(c.split(":")) for c in args.chains.split(","))
    grid = S.Grid(chains, tuple(args.sigmas.split(",")), args.seeds)
    n = len(grid.points())
    report = {"grid": grid.spec(), "points": n, "cpus": os.cpu_count()}
    with tempfile.TemporaryDirectory() as tmp:
        serial, report["serial"] = _timed("serial (in process)", lambda: S.run_sweep(grid, folder=f"{tmp}/serial"))
        report["serial"]["cpu_s_per_point"] = round(report["serial"]["cpu_s_this_process"] / n, 2)
        results = {}
        for w in (1, 2):
            def on_cluster(w=w):
                client, cluster = S.connect(w, None)
                try:
                    return S.run_sweep(grid, client=client, folder=f"{tmp}/dask{w}")
                finally:
                    S.close(client, cluster)
            results[w], report[f"dask_{w}"] = _timed(f"LocalCluster, {w} worker{'s' if w > 1 else ''}", on_cluster)
    same = all(json.dumps(r, sort_keys=True) == json.dumps(serial, sort_keys=True) for r in results.values())
    report["bitwise_identical"] = same
    report["speedup_2_over_1"] = round(report["dask_1"]["wall_s"] / report["dask_2"]["wall_s"], 2)
    report["speedup_2_over_serial"] = round(report["serial"]["wall_s"] / report["dask_2"]["wall_s"], 2)
    print(f"speed-up, 2 workers over 1: {report['speedup_2_over_1']} (over serial: {report['speedup_2_over_serial']}); "
          f"one point: {report['serial']['cpu_s_per_point']} s of CPU; results bitwise identical: {same}")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(report, indent=2) + "\n")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
