"""The speed-up of `l2g sweep` on 2 Dask workers over 1, and the cost of one point: `python benchmarks/sweep_speedup.py`.

Runs the same grid (default: `l2g sweep`'s default grid, 5 chains x 4 scales = 20 points of 3 seeds each) three
ways, each into an empty cache of its own: serially in this process (`--workers 1`), and through a LocalCluster of 1
and of 2 worker processes. For each cluster two wall times: "end to end" (start the cluster, run the sweep, close it:
what a user of `l2g sweep` waits for on this grid) and "sweep" (only `run_sweep`, the cluster started and every
worker warmed by importing the training module first: what a long sweep on a running cluster pays per point). The
speed-up of 2 workers over 1 is reported for both (target >= 1.7 for the sweep), with the CPU time of one point
(this process, serial run; and on the workers, summed over them), and the 1-minute load average before and after
each run: the machine is shared, and a speed-up measured while other jobs hold the cores says more about them than
about the sweep. The results of the three runs are compared bitwise. Writes build/bench_sweep.json (or --out FILE).

Why the default grid and the two times: starting a LocalCluster costs seconds of CPU per worker (each process
imports torch), and two workers start two such processes on the same two cores; on a grid of a few points that
start-up is most of the wall time and the end-to-end ratio says nothing about the sweep (an 8-point grid measured
0.79x). Once the workers are up the points are independent tasks.

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


def _worker_cpu(client) -> float:
    """The CPU seconds used so far by every worker process of the client's cluster, summed."""
    return sum(client.run(time.process_time).values())


def _warm(client, workers: int) -> None:
    """Wait for every worker, and import the training module (torch with it) on each, so that the sweep's time is
    the training's."""
    client.wait_for_workers(workers)
    client.run(lambda: __import__("local2global.numeric.transformer.sweep"))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    from local2global.numeric.transformer import sweep as S
    ap.add_argument("--chains", default=",".join(f"{p}:{q}" for p, q in S.DEFAULT_CHAINS))
    ap.add_argument("--sigmas", default=",".join(S.DEFAULT_SIGMAS))
    ap.add_argument("--seeds", type=int, default=S.DEFAULT_SEEDS)
    ap.add_argument("--out", default=str(ROOT / "build" / "bench_sweep.json"))
    args = ap.parse_args(argv)
    chains = tuple(tuple(c.split(":")) for c in args.chains.split(","))
    grid = S.Grid(chains, tuple(args.sigmas.split(",")), args.seeds)
    n = len(grid.points())
    report = {"grid": grid.spec(), "points": n, "cpus": os.cpu_count()}
    with tempfile.TemporaryDirectory() as tmp:
        serial, report["serial"] = _timed("serial (in process)", lambda: S.run_sweep(grid, folder=f"{tmp}/serial"))
        report["serial"]["cpu_s_per_point"] = round(report["serial"]["cpu_s_this_process"] / n, 2)
        results = {}
        for w in (1, 2):
            inner = {}

            def on_cluster(w=w, inner=inner):
                client, cluster = S.connect(w, None)
                try:
                    _warm(client, w)
                    cpu0 = _worker_cpu(client)
                    out, inner["sweep"] = _timed(f"  sweep only, {w} worker{'s' if w > 1 else ''}",
                                                 lambda: S.run_sweep(grid, client=client, folder=f"{tmp}/dask{w}"))
                    inner["sweep"]["cpu_s_per_point_on_workers"] = round((_worker_cpu(client) - cpu0) / n, 2)
                    return out
                finally:
                    S.close(client, cluster)
            results[w], report[f"dask_{w}"] = _timed(f"LocalCluster, {w} worker{'s' if w > 1 else ''}, end to end",
                                                     on_cluster)
            report[f"dask_{w}"]["sweep_only"] = inner["sweep"]
    same = all(json.dumps(r, sort_keys=True) == json.dumps(serial, sort_keys=True) for r in results.values())
    report["bitwise_identical"] = same
    report["speedup_2_over_1"] = round(report["dask_1"]["sweep_only"]["wall_s"] / report["dask_2"]["sweep_only"]["wall_s"], 2)
    report["speedup_2_over_1_end_to_end"] = round(report["dask_1"]["wall_s"] / report["dask_2"]["wall_s"], 2)
    report["speedup_2_over_serial_end_to_end"] = round(report["serial"]["wall_s"] / report["dask_2"]["wall_s"], 2)
    print(f"speed-up of 2 workers over 1: {report['speedup_2_over_1']} for the sweep (cluster up), "
          f"{report['speedup_2_over_1_end_to_end']} end to end (over serial: {report['speedup_2_over_serial_end_to_end']}); "
          f"one point: {report['serial']['cpu_s_per_point']} s of CPU; results bitwise identical: {same}")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(report, indent=2) + "\n")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
