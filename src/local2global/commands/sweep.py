"""`l2g sweep`: train the full transformer over a grid of chains (p, q) and initialization scales sigma, several
seeds per point, on a Dask cluster (a LocalCluster of processes by default, an existing scheduler with
--scheduler, in this process with --workers 1), and draw the phase diagram against the canonical model's basins.

Parsing and validation only (every value is checked before any work: a bad grid, an unreachable scheduler or a GPU
that is not there is one line on stderr and exit code 2); the training is `numeric.transformer.sweep`, the table
`numeric.transformer.phase`, the figure `proofs.outputs.figures.fig_phase`."""
from __future__ import annotations

import json
import signal
import sys
from fractions import Fraction

from ._common import (UsageError, add_json_flag, exact_number, integer, output_dir, plural, probability,
                      progress_enabled, shown)
from .basins import _ADDRESS

NAME = "sweep"
HELP = ("train the full transformer over a grid of chains (p, q) and init scales sigma, several seeds per point "
        "(exact population loss, full-batch gradient descent), on Dask; cached per point (an interrupted sweep "
        "resumes); the phase diagram: the fraction of seeds at the bigram loss beside the canonical model's "
        "certified probability of the global-minimum basin")
SUMMARY = "the full transformer over a grid of (p, q, sigma) on Dask, and the phase diagram against the basins"
EXAMPLE = "l2g sweep --quick"
EPILOG = ("default grid: chains 1/10:1/10, 1/5:3/10, 2/5:2/5, 1/2:4/5, 9/10:9/10 x sigma 1/20, 1/5, 1/2, 1 x 3 seeds\n"
          "(20 points, about 0.6 s of CPU each); --quick: chains 1/5:3/10, 1/2:4/5 x sigma 1/20, 1/2 x 3 seeds.\n"
          "training per point: N = 6, d = 4, 400 steps of gradient descent, rate 1/2, gradient clipped to norm 1.\n"
          "writes DIR/phase_diagram.pdf, .png and DIR/phase_table.json (default DIR: build/sweep); the points are\n"
          "cached in $L2G_CACHE/sweep, where `l2g check` and `l2g all` read the largest finished grid.")

OUT_FILES = ("phase_diagram.pdf", "phase_diagram.png", "phase_table.json")
MAX_POINTS = 100_000
_TRAINING = ("d", "N", "steps", "lr", "clip", "optimizer", "init")


def add_arguments(parser):
    parser.add_argument("--quick", action="store_true", help="the small documented grid (smoke tests, CI)")
    parser.add_argument("--chains", default=None, metavar="P:Q,...",
                        help="the chains as p:q pairs, e.g. 1/5:3/10,0.9:0.9 (p, q in (0, 1), p + q != 1)")
    parser.add_argument("--p", default=None, metavar="LIST", help="with --q: the grid of every p in LIST with every q")
    parser.add_argument("--q", default=None, metavar="LIST", help="with --p (comma-separated values in (0, 1))")
    parser.add_argument("--sigma", default=None, metavar="LIST",
                        help="the init scales, comma-separated, each in [1/1000, 10] (default 1/20,1/5,1/2,1)")
    parser.add_argument("--seeds", default=None, help="runs per point, seeds 0..N-1 (1..100, default 3)")
    parser.add_argument("--d", default=None, help="embedding dimension (1..64, default 4)")
    parser.add_argument("--N", default=None, help="sequence length (1..10, default 6; the loss sums all 2^N sequences)")
    parser.add_argument("--steps", default=None, help="gradient steps per run (1..100000, default 400)")
    parser.add_argument("--lr", default=None, help="learning rate (0 < lr <= 10, default 1/2)")
    parser.add_argument("--clip", default=None, help="per-run gradient-norm clip (0 = none; default 1)")
    parser.add_argument("--optimizer", default=None, choices=("gd", "adam"), help="gd (default) or adam")
    parser.add_argument("--init", default=None, choices=("gaussian", "paper"),
                        help="gaussian: every parameter N(0, sigma^2) (default); paper: Sec. 5.2's init, the rest N(0, sigma^2)")
    parser.add_argument("--workers", default=None, metavar="N",
                        help="Dask LocalCluster worker processes (1..64, default one per CPU core; 1 = in this process)")
    parser.add_argument("--scheduler", default=None, metavar="ADDR",
                        help="an existing Dask scheduler (tcp://host:port) instead of a LocalCluster")
    parser.add_argument("--device", default="cpu", choices=("cpu", "cuda"),
                        help="where torch trains (cuda only when torch sees a GPU; results may differ in the last bits)")
    parser.add_argument("--out", default=None, metavar="DIR", help="folder of the phase diagram and table (default build/sweep)")
    add_json_flag(parser, "the phase table")


def _list(text, name: str) -> list[str]:
    items = [t.strip() for t in str(text).split(",")]
    if not text or not str(text).strip() or any(not t for t in items):
        raise UsageError(f"{name} needs a comma-separated list of values, got {shown(text)}")
    return items


def _chains(args) -> tuple[tuple[str, str], ...] | None:
    if args.chains is not None and (args.p is not None or args.q is not None):
        raise UsageError("give either --chains or --p with --q, not both")
    if (args.p is None) != (args.q is None):
        raise UsageError("--p and --q go together (every p with every q); for single chains use --chains P:Q")
    if args.chains is not None:
        pairs = []
        for item in _list(args.chains, "--chains"):
            if item.count(":") != 1:
                raise UsageError(f"--chains takes p:q pairs, got {shown(item)}")
            pairs.append(tuple(item.split(":")))
    elif args.p is not None:
        pairs = [(p, q) for p in _list(args.p, "--p") for q in _list(args.q, "--q")]
    else:
        return None
    out = []
    for p, q in pairs:
        pv, qv = probability(p, "p"), probability(q, "q")
        if pv + qv == 1:
            raise UsageError(f"the chain p = {p}, q = {q} has p + q = 1: its unigram and bigram losses coincide and "
                             "the basins are not defined")
        out.append((str(pv), str(qv)))
    if len(set(out)) != len(out):
        raise UsageError("a chain is listed twice")
    return tuple(out)


def _sigmas(text) -> tuple[str, ...] | None:
    if text is None:
        return None
    out = []
    for item in _list(text, "--sigma"):
        s = exact_number(item, "--sigma")
        # the certified probabilities of the canonical basins are computed for 1/1000 <= sigma <= 10 (`l2g prob`)
        if not Fraction(1, 1000) <= s <= 10:
            raise UsageError(f"--sigma values must lie in [1/1000, 10], got {shown(item)}")
        out.append(str(s))
    if len(set(out)) != len(out):
        raise UsageError("a value of --sigma is listed twice")
    return tuple(out)


def _training(args) -> dict:
    kw = {}
    if args.d is not None:
        kw["d"] = integer(args.d, "--d", 1, 64)
    if args.N is not None:
        kw["N"] = integer(args.N, "--N", 1, 10)
    if args.steps is not None:
        kw["steps"] = integer(args.steps, "--steps", 1, 100_000)
    if args.lr is not None:
        lr = exact_number(args.lr, "--lr")
        if not 0 < lr <= 10:
            raise UsageError(f"--lr must lie in (0, 10], got {shown(args.lr)}")
        kw["lr"] = float(lr)
    if args.clip is not None:
        clip = exact_number(args.clip, "--clip")
        if not 0 <= clip <= 1000:
            raise UsageError(f"--clip must lie in [0, 1000], got {shown(args.clip)}")
        kw["clip"] = float(clip)
    for name in ("optimizer", "init"):
        if getattr(args, name) is not None:
            kw[name] = getattr(args, name)
    if args.device != "cpu":
        kw["device"] = args.device
    return kw


def grid_values(args):
    """The grid's values as the arguments give them (UsageError for a bad one), without any heavy import."""
    chains, sigmas = _chains(args), _sigmas(args.sigma)
    seeds = integer(args.seeds, "--seeds", 1, 100) if args.seeds is not None else None
    training = _training(args)
    if args.quick and (chains is not None or sigmas is not None or seeds is not None):
        raise UsageError("--quick is a fixed grid: it takes no --chains, --p, --q, --sigma or --seeds")
    if chains is not None and sigmas is not None and len(chains) * len(sigmas) > MAX_POINTS:
        raise UsageError(f"the grid has {len(chains) * len(sigmas)} points, at most {MAX_POINTS} are allowed")
    return chains, sigmas, seeds, training


def grid_of(args, values):
    """The grid of the validated `values`; the sweep module validates its points once more."""
    chains, sigmas, seeds, training = values
    from local2global.numeric.transformer import sweep as S
    if args.quick:
        grid = S.quick_grid(**training)
    else:
        grid = S.Grid(chains or S.DEFAULT_CHAINS, sigmas or S.DEFAULT_SIGMAS, seeds or S.DEFAULT_SEEDS,
                      tuple(sorted(training.items())))
    try:
        grid.points()
    except ValueError as ex:
        raise UsageError(str(ex)) from None
    return grid


class _Terminated(BaseException):
    """SIGTERM while the sweep runs: unwinds like an interruption (the cluster is closed on the way out)."""


def _on_sigterm(signum, frame):
    raise _Terminated


def run(args) -> int:
    out = output_dir(args.out if args.out is not None else "build/sweep", "--out", files=OUT_FILES)
    values = grid_values(args)
    workers = integer(args.workers, "--workers", 1, 64) if args.workers is not None else None
    if workers is not None and args.scheduler is not None:
        raise UsageError("give either --workers (a LocalCluster) or --scheduler (an existing cluster), not both")
    if args.scheduler is not None and not _ADDRESS.fullmatch(args.scheduler):
        raise UsageError(f"--scheduler must be a scheduler address such as tcp://127.0.0.1:8786, got {shown(args.scheduler)}")
    grid = grid_of(args, values)
    from local2global.numeric.transformer import sweep as S
    output_dir(S.cache_dir(), "cache folder")
    if args.device == "cuda":
        import torch
        if not torch.cuda.is_available():
            raise UsageError("--device cuda: torch sees no GPU on this machine (torch.cuda.is_available() is False)")
    # SIGTERM unwinds through the `finally` that closes the cluster (unless a handler is installed already)
    if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        signal.signal(signal.SIGTERM, _on_sigterm)
    client = cluster = None
    points = grid.points()
    try:
        cached = sum(S.cached_point(pt) is not None for pt in points)
        if cached < len(points) and workers != 1:
            try:
                client, cluster = S.connect(workers, args.scheduler)
            except (OSError, TimeoutError) as ex:
                raise UsageError(f"cannot reach the Dask scheduler {shown(args.scheduler)} "
                                 f"({type(ex).__name__}: {str(ex)[:100]})") from None
        bar = _bar(len(points)) if progress_enabled() else None
        try:
            results = S.run_sweep(grid, client=client, progress=bar)
        finally:
            if bar is not None:
                bar.close()
    except _Terminated:
        S.close(client, cluster)
        client = cluster = None
        print("l2g: terminated (SIGTERM); finished points are cached, a rerun resumes", file=sys.stderr)
        return 143
    finally:
        S.close(client, cluster)
    from local2global.numeric.transformer import phase
    rows = phase.phase_table(grid, results)
    from local2global.proofs.outputs.figures import fig_phase
    fig_phase.write(grid, rows, out)
    table = {"grid": grid.spec(), "rows": rows, "verdict": phase.verdict(rows)}
    from ._common import write_atomic
    write_atomic(f"{out}/phase_table.json", json.dumps(table, indent=2, sort_keys=True) + "\n")
    print(json.dumps(table, indent=2, sort_keys=True) if args.json else phase.table_text(grid, rows))
    print(f"l2g: {plural(len(points), 'point')} x {plural(grid.seeds, 'seed')}; phase diagram and table in {out}",
          file=sys.stderr)
    return 0


class _bar:
    """A tqdm bar over the points (terminal only), as `run_sweep`'s progress callback."""

    def __init__(self, total: int):
        from tqdm import tqdm
        self.bar = tqdm(total=total, desc="[l2g sweep] points", file=sys.stderr, leave=True)

    def __call__(self, done, total, point):
        if point is not None:
            self.bar.set_postfix_str(f"p={point.p}, q={point.q}, sigma={point.sigma}", refresh=False)
        self.bar.update(done - self.bar.n)

    def close(self):
        self.bar.close()
