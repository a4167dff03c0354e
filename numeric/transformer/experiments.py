r"""Numerical experiments with the full transformer (Sec. 5, App. A-C, H): reduction, Thms 4/5, training.

Two kinds of experiment live here, both built on the torch witness `fullmodel` + `canonical_map`:

* exact comparisons at canonical points (the reduction of formula sheet §3/§7): full-model loss
  and autograd gradient against the derived symbolic values (`numeric.evaluate.landscape.Landscape`,
  with or without attention), the normal component of the full gradient to the
  canonical manifold, and probes of the local minima of Thm 5;
* training runs (Fig. 3/6: rank-one structure; Fig. 4: effect of initialization), with fixed seeds
  and the population loss evaluated exactly by enumeration (`fullmodel.population_loss`).

Floats enter only here, at the torch boundary: the symbolic side is evaluated from exact inputs.
"""
from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field
from fractions import Fraction

import mpmath as mp
import sympy as sp
import torch
from torch.autograd.functional import jacobian

from local2global.numeric.transformer import canonical_map as cmap
from local2global.numeric.transformer import fullmodel as fm
from local2global.numeric.evaluate.landscape import Landscape

# ---------------------------------------------------------------------------------------------
# The reduction at canonical points: symbolic next to full
# ---------------------------------------------------------------------------------------------


def _exact(x) -> Fraction:
    return x if isinstance(x, Fraction) else Fraction(str(x))


def symbolic_values(p, q, e, w, b=None, a=None, dps: int = 30) -> dict:
    r"""The derived loss and gradient at (e, w[, a], b): L(e, w, b) (Lemma 2/3) or L(e, w, a, b) (Lemma 13).

    Exact inputs (Fraction/str/int). b = None means b = b*(e, w[, a]) (Lemma 5 / 13). Returns floats:
    {"vars", "b", "loss", "grad"} with grad a dict over (e, w[, a], b).
    """
    p, q, e, w = map(_exact, (p, q, e, w))
    with mp.workdps(dps):
        theta = (e, w) if a is None else (e, w, _exact(a))
        land = Landscape(p, q, attention=a is not None)
        b_mp = land.b_star(theta) if b is None else mp.mpf(_exact(b).numerator) / _exact(b).denominator
        names = ("e", "w", "b") if a is None else ("e", "w", "a", "b")
        loss, grad = land.loss_b(theta, b_mp), land.grad_b(theta, b_mp, side=1)
        return {"vars": list(names), "b": float(b_mp), "loss": float(loss),
                "grad": {n: float(g) for n, g in zip(names, grad)}}


def full_values(p, q, e, w, b, a=None, d: int = 2, N: int = 5, signs=None) -> dict:
    r"""Full-model population loss (exact enumeration) and autograd gradient through the canonical map.

    a = None: softmax attention at theta(e, w, b); otherwise linear attention at theta(e, w, a, b).
    Returns {"vars", "loss", "grad"} (floats; grad a dict over (e, w[, a], b)).
    """
    names = ("e", "w", "b") if a is None else ("e", "w", "a", "b")
    vals = [float(v) for v in ((e, w, b) if a is None else (e, w, a, b))]
    s = [torch.tensor(v, dtype=fm.DTYPE, requires_grad=True) for v in vals]
    kw = dict(d=d, N=N, signs=signs)
    if a is None:
        theta = cmap.canonical_parameters(s[0], s[1], s[2], **kw)
        L = fm.population_loss(theta, float(p), float(q), attention="softmax")
    else:
        theta = cmap.canonical_parameters(s[0], s[1], s[3], a=s[2], **kw)
        L = fm.population_loss(theta, float(p), float(q), attention="linear")
    grads = torch.autograd.grad(L, s)
    return {"vars": list(names), "loss": float(L.detach()), "grad": {n: float(g) for n, g in zip(names, grads)}}


def side_by_side(p, q, e, w, b=None, a=None, d: int = 2, N: int = 5, signs=None) -> dict:
    r"""Symbolic and full-model loss and gradient at one canonical point, with their largest difference.

    b = None uses b* (the full model is then evaluated at that same b). JSON-ready dict with keys
    "point", "symbolic", "full", "max_abs_diff"; for the softmax model "full" also has the norm of the
    full gradient (all parameters) and of its part normal to the canonical manifold.
    """
    sym = symbolic_values(p, q, e, w, b, a)
    full = full_values(p, q, e, w, sym["b"], a, d=d, N=N, signs=signs)
    diffs = [abs(sym["loss"] - full["loss"])] + [abs(sym["grad"][n] - full["grad"][n]) for n in sym["vars"]]
    point = {"p": str(p), "q": str(q), "e": str(e), "w": str(w), "b": (str(b) if b is not None else "b*"),
             "b_value": sym["b"], "d": d, "N": N, "attention": "softmax" if a is None else "linear"}
    out = {"point": point,
           "symbolic": {"loss": sym["loss"], "grad": sym["grad"]},
           "full": {"loss": full["loss"], "grad": full["grad"]},
           "max_abs_diff": max(diffs)}
    if a is not None:
        point["a"] = str(a)
    else:       # how far the full gradient points off the canonical manifold (see `normal_component`)
        nc = normal_component(float(p), float(q), float(e), float(w), sym["b"], d=d, N=N, signs=signs)
        out["full"]["gradient_norm"] = nc.grad_norm
        out["full"]["normal_norm"] = nc.normal_norm
    return out


# ---------------------------------------------------------------------------------------------
# The full gradient against the tangent space of the canonical manifold
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class NormalComponent:
    """Decomposition of the full gradient g at theta(e, w, b) into tangent and normal parts.

    `blocks` gives |normal| per parameter block; `coefficients` the normal part in the basis
    u_1 = (token alpha_e, p_n = (2/N) alpha_e) / norm and u_2 = alpha_e alpha_e^T in W_V (unit), and
    `residual` what the normal part has outside span{u_1, u_2}.
    """

    grad_norm: float
    tangent_norm: float
    normal_norm: float
    blocks: dict
    coefficients: tuple
    residual: float


def normal_component(p: float, q: float, e: float, w: float, b: float, d: int = 2, N: int = 5,
                     signs=None) -> NormalComponent:
    r"""Full gradient at a canonical point (softmax model) projected off the tangent space of theta(e, w, b).

    The tangent space is the column space of the Jacobian of the canonical map (autograd); the
    projection is Euclidean in the full parameter space.
    """
    theta = cmap.canonical_parameters(e, w, b, d=d, N=N, signs=signs)
    flat = theta.flatten().detach().clone().requires_grad_(True)
    L = fm.population_loss(theta.unflatten(flat), p, q)
    g, = torch.autograd.grad(L, flat)

    def chart(s):
        return cmap.canonical_parameters(s[0], s[1], s[2], d=d, N=N, signs=signs).flatten()

    J = jacobian(chart, torch.tensor([e, w, b], dtype=fm.DTYPE))
    coef = torch.linalg.lstsq(J, g[:, None]).solution
    tangent = (J @ coef)[:, 0]
    normal = g - tangent
    parts = theta.unflatten(normal)
    blocks = {n: float(t.norm()) for n, t in zip(parts.names(), parts.tensors())}
    al = cmap.alpha(signs if signs is not None else (1,) * d)
    al_e = al if e >= 0 else -al
    zero = fm.zeros(d, N)
    u1 = zero.with_(token=al_e, positional=(2 / N) * al_e.expand(N, d).clone()).flatten()
    u1 = u1 / u1.norm()
    u2 = zero.with_(W_V=torch.outer(al_e, al_e)).flatten()
    u2 = u2 / u2.norm()
    c1, c2 = float(normal @ u1), float(normal @ u2)
    residual = float((normal - c1 * u1 - c2 * u2).norm())
    return NormalComponent(float(g.norm()), float(tangent.norm()), float(normal.norm()), blocks, (c1, c2), residual)


# ---------------------------------------------------------------------------------------------
# Thm 4 / Thm 5 in the full model
# ---------------------------------------------------------------------------------------------


def theta_star_point(p, q, w) -> tuple[float, float, float]:
    r"""A point (e, w, b*) of Theta* (Thm 1 / Gamma*): e^2(1 + 2w|w|) = A* = log((1-p)(1-q)/(pq)).

    Needs A*(1 + 2w|w|) > 0 (for p+q > 1: w < -1/sqrt 2). b* from the derived Lemma 5 (`Landscape`).
    """
    p, q, w = map(_exact, (p, q, w))
    A_star = math.log((1 - p) * (1 - q) / (p * q))
    t = 1 + 2 * float(w) * abs(float(w))
    if A_star * t <= 0:
        raise ValueError(f"no point of Theta* with w = {w}: A* (1 + 2w|w|) = {A_star * t} <= 0")
    e = Fraction(math.sqrt(A_star / t))
    b = float(Landscape(p, q).at((e, w)).b_star)
    return float(e), float(w), b


def full_loss_at(p, q, e, w, b, d=2, N=5, signs=None) -> float:
    """Full-model population loss at the canonical point theta(e, w, b) (softmax model)."""
    return float(fm.population_loss(cmap.canonical_parameters(e, w, b, d=d, N=N, signs=signs), p, q))


def theta_min_probe(p: float, q: float, w: float, d: int = 2, N: int = 3, radius: float = 1e-2,
                    directions: int = 500, seed: int = 0, signs=None) -> dict:
    r"""Local-minimum probe of the full loss at the canonical point of Theta_min: e = 0, b = log(p/q).

    Returns the loss change along (i) `directions` random perturbations of norm `radius` (all
    parameters), (ii) the three directions that decide the order-radius^2 term: token = r alpha_e with
    p_n = -(r/2) alpha_e (along the manifold), token = r alpha_e with p_n = 0 (ReLU fully active at the
    kink), token = r u with u orthogonal to alpha (d >= 2). Near e = 0 the logit changes by
    r^2 h(x) and the loss by r^2 pi0 pi1 (p+q-1) (h(1) - h(0)) + O(r^4); see `theta_min_slopes`.
    """
    b = math.log(p / q)
    theta = cmap.canonical_parameters(0.0, w, b, d=d, N=N, signs=signs)
    L0 = fm.population_loss(theta, p, q)
    flat0 = theta.flatten()
    g = torch.Generator().manual_seed(seed)
    worst = math.inf
    for _ in range(directions):
        v = torch.randn(flat0.shape, dtype=fm.DTYPE, generator=g)
        v = radius * v / v.norm()
        worst = min(worst, float(fm.population_loss(theta.unflatten(flat0 + v), p, q) - L0))
    al = cmap.alpha(signs if signs is not None else (1,) * d)
    zeros_pos = torch.zeros(N, d, dtype=fm.DTYPE)
    dirs = {
        "along_manifold": theta.with_(token=radius * al, positional=(-(radius / 2) * al).expand(N, d).clone()),
        "relu_active": theta.with_(token=radius * al, positional=zeros_pos),
    }
    if d >= 2:
        perp = torch.zeros(d, dtype=fm.DTYPE)
        perp[0], perp[1] = al[1], -al[0]          # orthogonal to alpha in the first two coordinates
        dirs["orthogonal"] = theta.with_(token=radius * perp / perp.norm(), positional=zeros_pos)
    named = {k: float(fm.population_loss(t, p, q) - L0) for k, t in dirs.items()}
    return {"loss": float(L0), "worst_random": worst, "directions": named, "radius": radius}


def theta_min_slopes(p: float, q: float, w: float) -> dict:
    r"""Predicted loss change / r^2 along the probe directions of `theta_min_probe` (derived by hand, tested).

    With token r u, positional r v (v along alpha) and the canonical W_1, W_2 at e = 0, the logit is
    b + r^2 h(x) with h(1) - h(0) = |u|^2 + 4w|w| s [ReLU(s + v) - ReLU(v)], s = <u, alpha>; the first-
    order loss change is E[(sigma(b) - P(1|X)) h(X)] = pi0 pi1 (p+q-1)(h(1) - h(0)). So:
    along the manifold (s = 1, v = -1/2): 1 + 2w|w|; ReLU active (s = 1, v = 0): 1 + 4w|w|;
    orthogonal (s = 0): 1.
    """
    g = (p / (p + q)) * (q / (p + q)) * (p + q - 1)
    return {"along_manifold": g * (1 + 2 * w * abs(w)), "relu_active": g * (1 + 4 * w * abs(w)), "orthogonal": g}


# ---------------------------------------------------------------------------------------------
# Training runs (Figs. 3, 4, 6)
# ---------------------------------------------------------------------------------------------

MATRICES = ("W_Q", "W_K", "W_V", "W_1", "W_2")


class torch_threads:
    """Context manager: run torch with n intra-op threads, restoring the previous setting.

    The machine is shared; intra-op threads only contend there (up to 20x slower under load).
    """

    def __init__(self, n: int = 1):
        self.n = n

    def __enter__(self):
        self.before = torch.get_num_threads()
        torch.set_num_threads(self.n)
        return self

    def __exit__(self, *exc):
        torch.set_num_threads(self.before)


@dataclass(frozen=True)
class TrainConfig:
    """One training run of the full model on the chain (p, q): data, model size, init, optimizer.

    init: "gaussian" (every parameter N(0, sigma^2), Sec. 5), "rank_one" (App. H: embeddings on a
    scaled hypercube, every weight matrix rank one with alpha as the embedding-side factor) or
    "paper" (Sec. 5.2: token coordinates 0.5, W_1 = 1, W_2 = -1, the rest N(0, sigma^2)).
    Training uses minibatches of sampled sequences of length N; the population loss is evaluated
    exactly (all 2^N sequences) every `eval_every` steps.
    """

    p: float
    q: float
    d: int = 8
    N: int = 12
    init: str = "gaussian"
    sigma: float = 0.02
    optimizer: str = "adam"
    lr: float = 1e-2
    steps: int = 1000
    batch: int = 16
    seed: int = 0
    eval_every: int = 25
    attention: str = "softmax"
    grad_clip: float = 0.0
    schedule: str = "constant"

    def key(self) -> str:
        """A stable text key of the configuration (cache file names, figure captions)."""
        return ",".join(f"{f}={getattr(self, f)!r}" for f in self.__dataclass_fields__)


@dataclass
class TrainResult:
    """Trajectory of one run: steps, exact population loss, singular-value ratios s2/s1 per matrix,
    and the final embedding's spread (std |e_i| / mean |e_i|: 0 for a scaled hypercube vector)."""

    config: TrainConfig
    steps: list = field(default_factory=list)
    loss: list = field(default_factory=list)
    sv_ratio: dict = field(default_factory=lambda: {m: [] for m in MATRICES})
    embedding_spread: list = field(default_factory=list)
    alignment_W1: list = field(default_factory=list)

    def as_dict(self) -> dict:
        return {"config": self.config.__dict__, "steps": self.steps, "loss": self.loss,
                "sv_ratio": self.sv_ratio, "embedding_spread": self.embedding_spread,
                "alignment_W1": self.alignment_W1}

    @classmethod
    def from_dict(cls, data: dict) -> "TrainResult":
        return cls(TrainConfig(**data["config"]), data["steps"], data["loss"], data["sv_ratio"],
                   data["embedding_spread"], data["alignment_W1"])


def initial_parameters(cfg: TrainConfig, g: torch.Generator) -> fm.FullParameters:
    """theta_0 for the configured initialization (see `TrainConfig`)."""
    d, N = cfg.d, cfg.N
    if cfg.init == "gaussian":
        return fm.gaussian(d, N, cfg.sigma, g)
    if cfg.init == "paper":
        theta = fm.gaussian(d, N, cfg.sigma, g)
        return theta.with_(token=torch.full((d,), 0.5, dtype=fm.DTYPE),
                           W_1=torch.ones(4 * d, d, dtype=fm.DTYPE), W_2=-torch.ones(d, 4 * d, dtype=fm.DTYPE))
    if cfg.init == "rank_one":
        signs = torch.where(torch.rand(d, generator=g) < 0.5, -1.0, 1.0).to(fm.DTYPE)
        al = signs / math.sqrt(d)
        r = lambda *s: torch.randn(*s, dtype=fm.DTYPE, generator=g)      # noqa: E731
        aa = torch.outer(al, al)
        return fm.FullParameters(
            token=0.5 * signs, positional=(-0.25 + 0.05 * r(N, 1)) * signs,
            W_Q=float(r(())) * aa, W_K=float(r(())) * aa, W_V=0.1 * float(r(())) * aa,
            W_1=torch.outer(r(4 * d) / math.sqrt(4 * d), al), W_2=torch.outer(al, r(4 * d) / math.sqrt(4 * d)),
            b=torch.zeros((), dtype=fm.DTYPE))
    raise ValueError(f"unknown init {cfg.init!r}")


def _record(res: TrainResult, step: int, theta: fm.FullParameters, cfg: TrainConfig) -> None:
    with torch.no_grad():
        res.steps.append(step)
        res.loss.append(float(fm.population_loss(theta, cfg.p, cfg.q, attention=cfg.attention)))
        for m in MATRICES:
            ratios = fm.singular_value_ratios(getattr(theta, m))
            res.sv_ratio[m].append(float(ratios[0]) if ratios.numel() else 0.0)
        t = theta.token.abs()
        res.embedding_spread.append(float(t.std() / t.mean()) if t.numel() > 1 else 0.0)
        v = torch.linalg.svd(theta.W_1).Vh[0]
        res.alignment_W1.append(float((v @ theta.token).abs() / theta.token.norm()))


def train(cfg: TrainConfig, progress: bool = True) -> TrainResult:
    """Train the full model (all parameters, no constraint) from `initial_parameters`; deterministic per seed."""
    from tqdm import tqdm

    with torch_threads(1):
        g = torch.Generator().manual_seed(cfg.seed)
        theta = initial_parameters(cfg, g).detach(requires_grad=True)
        params = list(theta.tensors())
        opt = (torch.optim.Adam(params, lr=cfg.lr) if cfg.optimizer == "adam"
               else torch.optim.SGD(params, lr=cfg.lr))
        sched = (torch.optim.lr_scheduler.CosineAnnealingLR(opt, cfg.steps) if cfg.schedule == "cos"
                 else torch.optim.lr_scheduler.LambdaLR(opt, lambda _: 1.0))
        res = TrainResult(cfg)
        _record(res, 0, theta, cfg)
        # a bar only on a terminal: redirected to a log it would be thousands of carriage-return frames
        for step in tqdm(range(1, cfg.steps + 1), desc=f"train {cfg.init} seed={cfg.seed}",
                         disable=not progress or not sys.stderr.isatty(), leave=False):
            seqs = fm.sample_sequences(cfg.p, cfg.q, cfg.N + 1, cfg.batch, g)
            opt.zero_grad()
            fm.empirical_loss(theta, seqs, cfg.attention).backward()
            if cfg.grad_clip > 0:
                torch.nn.utils.clip_grad_norm_(params, cfg.grad_clip)
            opt.step()
            sched.step()
            if step % cfg.eval_every == 0 or step == cfg.steps:
                _record(res, step, theta, cfg)
        return res


def chain_losses(p, q) -> dict:
    """The two reference losses of Fig. 4: unigram H(pi) and the entropy rate (from `symbolic.MarkovChain`)."""
    from local2global.symbolic.markov import MarkovChain
    ch = MarkovChain(sp.Rational(str(p)), sp.Rational(str(q)))
    return {"unigram": float(ch.marginal_entropy), "entropy_rate": float(ch.entropy_rate)}


# ---------------------------------------------------------------------------------------------
# The paper's experiments, CPU-sized, with a content-addressed cache under build/
# ---------------------------------------------------------------------------------------------

SEEDS = (0, 1, 2)
#: Fig. 4 (Sec. 5.2): p = 0.5, q = 0.8; the same optimizer for both inits (SGD, clipped, cosine decay)
FIG4 = dict(p=0.5, q=0.8, d=8, N=12, sigma=0.02, optimizer="sgd", lr=0.05, grad_clip=1.0, batch=64,
            schedule="cos", steps=2000, eval_every=100)
#: Fig. 3 (Sec. 5.1): p = 0.2, q = 0.3, d = 8, init std 0.001, batch 16, 800 iterations (Adam: see report)
FIG3 = dict(p=0.2, q=0.3, d=8, N=12, init="gaussian", sigma=0.001, optimizer="adam", lr=0.002, batch=16,
            steps=800, eval_every=25)
#: Fig. 6 (App. H): rank-one init (hypercube embeddings), same training as Fig. 3
FIG6 = dict(FIG3, init="rank_one")
QUICK = dict(N=6, steps=40, eval_every=10)


def _code_hash() -> str:
    """Hash of the code that determines a run's result: the model, the map and the training functions."""
    import hashlib
    import inspect
    import pathlib
    here = pathlib.Path(__file__).resolve().parent
    h = hashlib.sha256()
    for name in ("fullmodel.py", "canonical_map.py"):
        h.update((here / name).read_bytes())
    for obj in (TrainConfig, TrainResult, initial_parameters, _record, train, torch_threads):
        h.update(inspect.getsource(obj).encode())
    h.update(torch.__version__.encode())
    return h.hexdigest()[:16]


def _cache_dir() -> str:
    import os
    return os.path.join("build", "cache", "fullmodel")


def run_cached(cfg: TrainConfig, cache_dir: str | None = None, progress: bool = True) -> TrainResult:
    """`train(cfg)`, reusing a cached result when its config, code hash and payload digest all match
    (`numeric._cache`: a truncated, edited or stale file is detected and the run is redone)."""
    from local2global.numeric.infra.cache import cached_json
    stored = cached_json(cache_dir or _cache_dir(), cfg.key(), _code_hash(),
                         lambda: train(cfg, progress=progress).as_dict())
    return TrainResult.from_dict(stored)


def _configs(base: dict, quick: bool, seeds=SEEDS, **over) -> list[TrainConfig]:
    kw = dict(base, **over)
    if quick:
        kw.update(QUICK)
        seeds = seeds[:1]
    return [TrainConfig(**kw, seed=s) for s in seeds]


def fig4_runs(quick: bool = False, cache_dir=None, progress=True) -> dict:
    """Fig. 4: {"standard": [...], "paper": [...]} runs over the seeds (standard = N(0, 0.02^2) init)."""
    return {label: [run_cached(c, cache_dir, progress) for c in _configs(FIG4, quick, init=init)]
            for label, init in (("standard", "gaussian"), ("paper", "paper"))}


def fig3_runs(quick: bool = False, cache_dir=None, progress=True) -> list[TrainResult]:
    """Fig. 3: small Gaussian init, runs over the seeds."""
    return [run_cached(c, cache_dir, progress) for c in _configs(FIG3, quick)]


def fig6_runs(quick: bool = False, cache_dir=None, progress=True) -> list[TrainResult]:
    """Fig. 6: rank-one init, runs over the seeds."""
    return [run_cached(c, cache_dir, progress) for c in _configs(FIG6, quick)]


def summary(quick: bool = False, progress: bool = True) -> dict:
    """The numbers of the three experiments (final losses vs references, singular-value ratios)."""
    out = {}
    f4 = fig4_runs(quick, progress=progress)
    ref = chain_losses(FIG4["p"], FIG4["q"])
    out["fig4"] = {"references": ref,
                   "standard_final": [r.loss[-1] for r in f4["standard"]],
                   "paper_final": [r.loss[-1] for r in f4["paper"]],
                   "standard_rel_to_unigram": [r.loss[-1] / ref["unigram"] - 1 for r in f4["standard"]],
                   "paper_rel_to_entropy_rate": [r.loss[-1] / ref["entropy_rate"] - 1 for r in f4["paper"]]}
    for key, runs in (("fig3", fig3_runs(quick, progress=progress)), ("fig6", fig6_runs(quick, progress=progress))):
        ref = chain_losses(runs[0].config.p, runs[0].config.q)
        out[key] = {"references": ref, "final_loss": [r.loss[-1] for r in runs],
                    "sv_ratio_initial": {m: [r.sv_ratio[m][0] for r in runs] for m in MATRICES},
                    "sv_ratio_final": {m: [r.sv_ratio[m][-1] for r in runs] for m in MATRICES},
                    "sv_ratio_max_over_training": {m: [max(r.sv_ratio[m]) for r in runs] for m in MATRICES},
                    "embedding_spread_final": [r.embedding_spread[-1] for r in runs],
                    "alignment_W1_final": [r.alignment_W1[-1] for r in runs]}
    return out


def main(argv=None) -> int:
    """`python -m local2global.numeric.transformer.experiments [--quick]`: the summary as JSON on stdout."""
    import argparse
    import json
    ap = argparse.ArgumentParser(prog="python -m local2global.numeric.transformer.experiments",
                                 description="Train the full transformer for Figs. 3, 4 and 6 (cached under "
                                             "build/cache/fullmodel) and print the summary numbers as JSON.")
    ap.add_argument("--quick", action="store_true", help="a few steps of one seed (smoke test)")
    args = ap.parse_args(argv)
    print(json.dumps(summary(quick=args.quick), indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
