r"""Where does training end? The full transformer over a grid of chains (p, q) and initialization scales σ
(Sec. 5.2's question, asked of every chain and scale instead of one), next to the canonical model's basins.

A *point* is a chain (p, q), a scale σ and the training settings (`Point`); its runs are `seeds` independent
initializations θ0 of the full transformer (`fullmodel`), run k drawn from a generator seeded with k (every
parameter N(0, σ²), Sec. 5.2's "standard initialization"; or the paper's init with its Gaussian rest). The runs of a
point train together (a leading batch dimension, as `experiments.train_group`) by full-batch gradient descent on the
*exact* population loss over all 2^N sequences (`fullmodel.population_loss_enumerated`): nothing is sampled, so a run is a
deterministic function of its initialization, and so is the point. The default point (`DEFAULT_TRAINING`) is
chosen to be cheap (N = 6, d = 4, 400 steps of rate 1/2 with the gradient clipped to norm 1 per run: about 0.6 s
of CPU for three seeds, 0.49-0.74 s measured by `benchmarks/sweep_speedup.py` on two cores) while ending close to a
critical value: the canonical basins concern small initializations, whose outcome is settled within the first hundred
steps.

What a point records (`train_point`): per run the initial and final loss, the loss every 50 steps, and the
canonical parameters read off the trained weights (`canonical_readoff`). The outcome (`classify`: bigram, unigram or
neither) is decided when the cache is read, against the chain's reference losses, so the tolerance can be stated
and changed without training again.

Scale-out (`run_sweep`): one task per point, on a Dask cluster (a `LocalCluster` of worker processes, or an
existing scheduler), or serially in this process; each finished point is written to the cache by the caller as it
arrives (so an interrupted sweep keeps what finished, and a rerun computes only the rest), and a grid's manifest is
written once all its points are cached. The result of a point does not depend on where it ran: one torch thread,
the same operations on the same numbers (tested bitwise against a real LocalCluster).

This module's training imports nothing from `local2global.symbolic` (the torch witness stays independent); the
reference losses and the canonical model's probabilities are read in `phase_table`, after training.
"""
from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import math
import os
from dataclasses import asdict, dataclass, fields
from fractions import Fraction

import torch

from local2global.numeric.transformer import fullmodel as fm
from local2global.numeric.transformer.experiments import EXACT_MAX_N, torch_threads

#: the training of every point unless a grid says otherwise (see the module docstring for why)
DEFAULT_TRAINING = {"d": 4, "N": 6, "steps": 400, "lr": 0.5, "clip": 1.0, "optimizer": "gd", "init": "gaussian",
                    "attention": "softmax", "device": "cpu"}
#: the default grid: five chains (the paper's: Fig. 1's p = q = 0.1 and 0.9, Fig. 3's (0.2, 0.3), Fig. 4's (0.5, 0.8),
#: and p = q = 0.4 near p + q = 1) by four scales (those of the R^3 quadrature table of `prob_r3`), three seeds
DEFAULT_CHAINS = (("1/10", "1/10"), ("1/5", "3/10"), ("2/5", "2/5"), ("1/2", "4/5"), ("9/10", "9/10"))
DEFAULT_SIGMAS = ("1/20", "1/5", "1/2", "1")
DEFAULT_SEEDS = 3
#: `l2g sweep --quick`: two chains (one each side of p + q = 1) by a small and a large scale, three seeds, the
#: default training (its points are points of the default grid: they count there too)
QUICK_CHAINS = (("1/5", "3/10"), ("1/2", "4/5"))
QUICK_SIGMAS = ("1/20", "1/2")
OPTIMIZERS = ("gd", "adam")
INITS = ("gaussian", "paper")
DEVICES = ("cpu", "cuda")
#: record the loss every this many steps
LOSS_EVERY = 50
#: a run is at a reference loss when within this fraction of the gap H(pi) - H(x_{n+1} | x_n) of it
TOL_FRACTION = Fraction(1, 10)


@dataclass(frozen=True)
class Point:
    """One point of a sweep: chain (p, q) and scale σ as exact decimal or fraction strings (they name the cache
    entry), the number of seeds (runs 0..seeds-1) and the training settings (see `DEFAULT_TRAINING`)."""

    p: str
    q: str
    sigma: str
    seeds: int = DEFAULT_SEEDS
    d: int = 4
    N: int = 6
    steps: int = 400
    lr: float = 0.5
    clip: float = 1.0
    optimizer: str = "gd"
    init: str = "gaussian"
    attention: str = "softmax"
    device: str = "cpu"

    def __post_init__(self):
        p, q, s = Fraction(self.p), Fraction(self.q), Fraction(self.sigma)
        if not (0 < p < 1 and 0 < q < 1):
            raise ValueError(f"p and q must lie in (0, 1), got p = {self.p}, q = {self.q}")
        if s <= 0:
            raise ValueError(f"sigma must be positive, got {self.sigma}")
        if self.seeds < 1 or self.steps < 1 or self.d < 1 or not 1 <= self.N <= EXACT_MAX_N:
            raise ValueError(f"need seeds, steps, d >= 1 and 1 <= N <= {EXACT_MAX_N} (an exact population loss)")
        if self.optimizer not in OPTIMIZERS or self.init not in INITS or self.device not in DEVICES:
            raise ValueError(f"optimizer in {OPTIMIZERS}, init in {INITS}, device in {DEVICES}")
        if not (self.lr > 0 and math.isfinite(self.lr)) or self.clip < 0:
            raise ValueError("the learning rate must be positive and the clip non-negative")

    def key(self) -> str:
        """The cache key: every field, exact values as given (p = 1/5 and p = 0.2 are the same point)."""
        vals = {f.name: getattr(self, f.name) for f in fields(self)}
        for k in ("p", "q", "sigma"):
            vals[k] = str(Fraction(vals[k]))
        return "sweep-point[" + ",".join(f"{k}={v!r}" for k, v in vals.items()) + "]"

    @property
    def pq(self) -> tuple[Fraction, Fraction]:
        return Fraction(self.p), Fraction(self.q)


@dataclass(frozen=True)
class Grid:
    """A sweep: chains x scales, each point with `seeds` runs and the same training (`DEFAULT_TRAINING` overridden
    by `training`). `points()` lists them chain by chain, scales in the given order."""

    chains: tuple[tuple[str, str], ...]
    sigmas: tuple[str, ...]
    seeds: int = DEFAULT_SEEDS
    training: tuple[tuple[str, object], ...] = ()

    def points(self) -> list[Point]:
        kw = dict(DEFAULT_TRAINING, **dict(self.training))
        return [Point(p, q, s, seeds=self.seeds, **kw) for p, q in self.chains for s in self.sigmas]

    def spec(self) -> dict:
        return {"chains": [list(c) for c in self.chains], "sigmas": list(self.sigmas), "seeds": self.seeds,
                "training": dict(DEFAULT_TRAINING, **dict(self.training))}

    @property
    def runs(self) -> int:
        return len(self.chains) * len(self.sigmas) * self.seeds


def quick_grid(**training) -> Grid:
    return Grid(QUICK_CHAINS, QUICK_SIGMAS, DEFAULT_SEEDS, tuple(sorted(training.items())))


# ---------------------------------------------------------------------------------------------
# One point
# ---------------------------------------------------------------------------------------------


def initial_parameters(pt: Point, seed: int) -> fm.FullParameters:
    """θ0 of run `seed`: every parameter N(0, σ²) (`fullmodel.gaussian`), or the paper's init of Sec. 5.2 (token
    coordinates 0.5, W_1 ≡ 1, W_2 ≡ -1, the rest N(0, σ²)); drawn on the CPU from a generator seeded with `seed`."""
    g = torch.Generator().manual_seed(seed)
    theta = fm.gaussian(pt.d, pt.N, float(Fraction(pt.sigma)), g)
    if pt.init == "paper":
        theta = theta.with_(token=torch.full((pt.d,), 0.5, dtype=fm.DTYPE),
                            W_1=torch.ones(4 * pt.d, pt.d, dtype=fm.DTYPE), W_2=-torch.ones(pt.d, 4 * pt.d, dtype=fm.DTYPE))
    return theta


def canonical_readoff(theta: fm.FullParameters) -> dict:
    r"""The canonical scalars (e, w, b) read off full parameters, for a batch of R models (lists of R floats).

    On the rank-one manifold (`canonical_map`) token = |e| α_e, W_2 = (w/√d) α_e 1ᵀ and W_1 = (|w|/√d) 1 α_eᵀ, so
    with α_e = token/|token|: |e| = |token|, w = α_eᵀ W_2 1 / (4√d) and |w| = 1ᵀ W_1 α_e / (4√d) (both given: they
    agree only on the manifold), and b the bias. Off the manifold these are projections, nothing more."""
    tok = theta.token
    e = tok.norm(dim=-1)
    unit = tok / e.clamp(min=torch.finfo(tok.dtype).tiny)[..., None]
    d = tok.shape[-1]
    ones = torch.ones(4 * d, dtype=tok.dtype, device=tok.device)
    w2 = ((theta.W_2 @ ones) * unit).sum(dim=-1) / (4 * math.sqrt(d))              # α_eᵀ W_2 1
    w1 = ((ones @ theta.W_1) * unit).sum(dim=-1) / (4 * math.sqrt(d))              # 1ᵀ W_1 α_e
    return {"e": [float(x) for x in e], "w_from_W2": [float(x) for x in w2], "abs_w_from_W1": [float(x) for x in w1],
            "b": [float(x) for x in theta.b]}


def train_point(pt: Point) -> dict:
    """Train the point's runs (see the module docstring); JSON-ready, floats only. Module level: Dask pickles it."""
    p, q = (float(x) for x in pt.pq)
    with torch_threads(1):
        thetas = [initial_parameters(pt, k) for k in range(pt.seeds)]
    # factories inside the model follow a GPU (the device context costs a dispatch per call: not on the CPU)
    with torch_threads(1), (contextlib.nullcontext() if pt.device == "cpu" else torch.device(pt.device)):
        stacked = fm.stack_parameters(thetas).tensors()
        theta = fm.FullParameters(*[t.to(pt.device) for t in stacked]).detach(requires_grad=True)
        params = list(theta.tensors())
        opt = torch.optim.Adam(params, lr=pt.lr) if pt.optimizer == "adam" else None
        R, history, initial = pt.seeds, [], None
        for step in range(pt.steps + 1):
            # the literal sum over all 2^N sequences: at N = 6 one pass is 5x faster than the prefix sums of
            # `population_loss` (the step costs torch's dispatch, not arithmetic)
            loss = fm.population_loss_enumerated(theta, p, q, attention=pt.attention)     # (R,)
            if step % LOSS_EVERY == 0 or step == pt.steps:
                history.append([float(x) for x in loss.detach()])
            if initial is None:
                initial = [float(x) for x in loss.detach()]
            if step == pt.steps:
                break
            grads = torch.autograd.grad(loss.sum(), params)            # each run's gradient is its own
            if pt.clip > 0:                                              # torch's clip_grad_norm_ rule, per run
                norm = torch.sqrt(sum(g.pow(2).reshape(R, -1).sum(dim=1) for g in grads))
                coef = (pt.clip / (norm + 1e-6)).clamp(max=1.0)
                grads = [g * coef.reshape(-1, *([1] * (g.ndim - 1))) for g in grads]
            if opt is None:
                with torch.no_grad():
                    for p_, g_ in zip(params, grads):
                        p_.sub_(pt.lr * g_)
            else:
                for p_, g_ in zip(params, grads):
                    p_.grad = g_
                opt.step()
        readoff = canonical_readoff(theta.detach())
    runs = []
    for k in range(R):
        runs.append({"seed": k, "initial_loss": initial[k], "final_loss": history[-1][k],
                     "loss": [h[k] for h in history], "canonical": {n: v[k] for n, v in readoff.items()}})
    return {"point": asdict(pt), "loss_every": LOSS_EVERY, "runs": runs}


# ---------------------------------------------------------------------------------------------
# The cache: one file per point, one manifest per finished grid
# ---------------------------------------------------------------------------------------------


def cache_dir() -> str:
    """The folder of the sweep's points and manifests: $L2G_CACHE/sweep (`numeric.infra.cache.KINDS`)."""
    from local2global.numeric.infra.cache import cache_folder
    return str(cache_folder("sweep"))


@functools.lru_cache(maxsize=None)
def code_hash() -> str:
    """What determines a point's result: this module's training, the model, and torch's version (by their syntax
    without docstrings: `infra.cache.code_digest`)."""
    from local2global.numeric.infra.cache import code_digest
    return code_digest(fm.__file__, Point, initial_parameters, canonical_readoff, train_point,
                       extra=(str(LOSS_EVERY), torch.__version__))


class _Missing(Exception):
    pass


def cached_point(pt: Point, folder: str | None = None) -> dict | None:
    """The cached result of a point (key, code hash and payload digest all match), or None."""
    from local2global.numeric.infra.cache import cached_json

    def missing():
        raise _Missing
    try:
        return cached_json(folder or cache_dir(), pt.key(), code_hash(), missing)
    except _Missing:
        return None


def store_point(pt: Point, result: dict, folder: str | None = None) -> dict:
    """Write a point's result to the cache (atomically) and return it as it reads back."""
    from local2global.numeric.infra.cache import cached_json
    return cached_json(folder or cache_dir(), pt.key(), code_hash(), lambda: result)


def _manifest_path(grid: Grid, folder: str) -> str:
    name = hashlib.sha256(json.dumps(grid.spec(), sort_keys=True).encode()).hexdigest()[:24]
    return os.path.join(folder, "grids", f"{name}.json")


def write_manifest(grid: Grid, folder: str | None = None) -> str:
    """Record that every point of `grid` is cached (the claim and the figure read the largest such grid)."""
    from local2global.numeric.infra.atomic import atomic_write
    path = _manifest_path(grid, folder or cache_dir())
    atomic_write(path, json.dumps({"grid": grid.spec(), "code": code_hash()}, sort_keys=True, indent=1) + "\n",
                 make_parents=True)
    return path


def grid_from_spec(spec: dict) -> Grid:
    training = dict(spec["training"])
    return Grid(tuple(tuple(c) for c in spec["chains"]), tuple(spec["sigmas"]), int(spec["seeds"]),
                tuple(sorted((k, v) for k, v in training.items() if DEFAULT_TRAINING.get(k) != v)))


def cached_grids(folder: str | None = None) -> list[tuple[Grid, list[dict]]]:
    """Every grid with a manifest whose points are all cached for the present code, with their results; the
    largest first (most runs; ties by their manifest's name, so the choice is deterministic)."""
    folder = folder or cache_dir()
    gdir = os.path.join(folder, "grids")
    out = []
    for name in sorted(os.listdir(gdir)) if os.path.isdir(gdir) else ():
        try:
            with open(os.path.join(gdir, name), encoding="utf-8") as fh:
                grid = grid_from_spec(json.load(fh)["grid"])
        except (OSError, ValueError, KeyError, TypeError):
            continue
        results = [cached_point(pt, folder) for pt in grid.points()]
        if all(r is not None for r in results):
            out.append((grid, results, name))
    out.sort(key=lambda x: (-x[0].runs, x[2]))
    return [(g, r) for g, r, _ in out]


# ---------------------------------------------------------------------------------------------
# Running a grid: serially, on a LocalCluster of processes, or on a Dask scheduler
# ---------------------------------------------------------------------------------------------


def connect(workers: int | None, scheduler: str | None):
    """A Dask client: to `scheduler` (an address), else to a new LocalCluster of `workers` processes with one thread
    each (its dashboard on a free local port: the default 8787 may be taken). Returns (client, cluster or None). Raises OSError/TimeoutError when the scheduler cannot be
    reached (the caller refuses before any work)."""
    import logging

    from distributed import Client, LocalCluster
    if scheduler is not None:
        return Client(scheduler, timeout="10s"), None
    # workers log nothing below CRITICAL: their shutdown races (a heartbeat to a scheduler already closing) are not
    # the user's business, and a failing task reaches the caller through its future
    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address="127.0.0.1:0",
                           silence_logs=logging.CRITICAL)
    try:
        return Client(cluster), cluster
    except BaseException:
        cluster.close()
        raise


def close(client, cluster) -> None:
    """Close a client and the cluster it started (workers end with it); never raises."""
    for thing in (client, cluster):
        if thing is None:
            continue
        try:
            thing.close(timeout=10)
        except Exception:  # noqa: BLE001 - shutting down: nothing left to report to
            pass


def run_sweep(grid: Grid, *, client=None, folder: str | None = None, progress=None) -> list[dict]:
    """Every point of `grid`, from the cache where it is there, otherwise trained: on the Dask `client` when given
    (one task per point), else in this process one after the other. Each point is written to the cache as it
    arrives; the grid's manifest once all are cached. `progress(done, total, point)` after each point. Returns the
    results in `grid.points()` order."""
    folder = folder or cache_dir()
    points = grid.points()
    results: dict[int, dict] = {}
    for i, pt in enumerate(points):
        hit = cached_point(pt, folder)
        if hit is not None:
            results[i] = hit
    todo = [i for i in range(len(points)) if i not in results]
    say = progress or (lambda done, total, pt: None)
    say(len(results), len(points), None)
    if client is None:
        for i in todo:
            results[i] = store_point(points[i], train_point(points[i]), folder)
            say(len(results), len(points), points[i])
    elif todo:
        from distributed import as_completed
        futures = {client.submit(train_point, points[i], pure=False): i for i in todo}
        try:
            for fut in as_completed(futures):
                i = futures[fut]
                results[i] = store_point(points[i], fut.result(), folder)
                say(len(results), len(points), points[i])
        finally:
            client.cancel(list(futures))
    write_manifest(grid, folder)
    return [results[i] for i in range(len(points))]
