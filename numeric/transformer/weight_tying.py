r"""Training the full transformer with and without weight tying from the same small initialization.

The paper ties the head to the token embedding (Sec. 2, after its ref. [23]); the untied model has a head of its
own (`fullmodel.FullParameters.head`). Here both are trained from the same N(0, σ²) draw (the untied head is
drawn last, `fullmodel.gaussian`) by plain gradient descent on the exact population loss (all 2^n contexts of
every position, `fullmodel.population_loss`): the discretised gradient flow whose limits the derivation predicts
(the canonical tied model: Thms 2 and 8; untied: every start off a null set ends at a global minimum). The runs
of one (chain, tying) pair are one batched model (leading dimension = the seeds), each run's gradient its own.

Imports nothing from `local2global.symbolic` (the reference losses are the caller's). The runs are cached
(`numeric.infra.cache`, keyed by the configuration and the code) by `l2g all`; the claims only read the cache.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path

import torch

from local2global.numeric.transformer import fullmodel as fm


@dataclass(frozen=True)
class TyingRuns:
    """One chain (p, q), model size (d, N), init N(0, σ²), gradient descent (lr, steps), the seeds, and how often
    the loss is recorded."""

    p: float
    q: float
    d: int = 4
    N: int = 4
    sigma: float = 0.02
    lr: float = 0.5
    steps: int = 300
    seeds: tuple[int, ...] = (0, 1, 2)
    record_every: int = 25

    def key(self) -> str:
        return ",".join(f"{k}={v!r}" for k, v in asdict(self).items())


#: the chains of the comparison: one with p + q > 1 (where the tied model stops at the unigram point, Thm 2)
#: and one with p + q < 1 (Thm 8); p = q = 0.9 and 0.2 give |G'(0)| = 0.2 and 0.15: every loss is within 1e-3 of its
#: end value after 100 steps of 0.5 (measured), 300 leave a margin
CONFIGS = (TyingRuns(0.9, 0.9), TyingRuns(0.2, 0.2))


def train(cfg: TyingRuns, untied: bool) -> dict:
    """Gradient descent on the exact population loss from N(0, σ²) for every seed: {"steps", "loss" (per seed, per
    recorded step), "head_token" (per seed: <a, e> at the end, the untied model's signed head-embedding product;
    |e|^2 tied)}. One torch thread: deterministic."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        thetas = [fm.gaussian(cfg.d, cfg.N, cfg.sigma, torch.Generator().manual_seed(s), untied=untied)
                  for s in cfg.seeds]
        theta = fm.stack_parameters(thetas).detach(requires_grad=True)
        params = list(theta.tensors())
        steps, losses = [], []
        for step in range(cfg.steps + 1):
            L = fm.population_loss(theta, cfg.p, cfg.q, fast=True)          # (seeds,)
            if step % cfg.record_every == 0 or step == cfg.steps:
                steps.append(step)
                losses.append([float(x) for x in L.detach()])
            if step == cfg.steps:
                break
            grads = torch.autograd.grad(L.sum(), params)
            with torch.no_grad():
                for t, g in zip(params, grads):
                    t -= cfg.lr * g
        head_token = (theta.head_vector * theta.token).sum(-1)
        return {"steps": steps, "loss": [list(x) for x in zip(*losses)],
                "head_token": [float(x) for x in head_token.detach()]}
    finally:
        torch.set_num_threads(before)


@lru_cache(maxsize=None)
def _code_hash() -> str:
    from local2global.numeric.infra.cache import source_hash
    here = Path(__file__).resolve().parent
    return source_hash([here / "fullmodel.py", here / "weight_tying.py"], [torch.__version__])


#: this module's cache (`numeric.infra.cache.KINDS`): $L2G_CACHE/weight_tying
CACHE_KIND = "weight_tying"


class _NotCached(Exception):
    pass


def runs(cfg: TyingRuns, cache_dir: str | None = None, train_if_missing: bool = True) -> dict | None:
    """{"tied": train(cfg, False), "untied": train(cfg, True)} through the cache; None if not cached and
    `train_if_missing` is False (nothing is written then)."""
    from local2global.numeric.infra.cache import cache_folder, cached_json

    def compute():
        if not train_if_missing:
            raise _NotCached
        return {"tied": train(cfg, False), "untied": train(cfg, True)}
    try:
        return cached_json(cache_dir or cache_folder(CACHE_KIND), "tying[" + cfg.key() + "]", _code_hash(), compute)
    except _NotCached:
        return None


def train_all(cache_dir: str | None = None) -> None:
    """Every run of `CONFIGS` into the cache (what `l2g all` does before the checks)."""
    for cfg in CONFIGS:
        runs(cfg, cache_dir)
