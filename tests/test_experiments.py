"""Smoke versions of the full-model experiments (Figs. 3, 4, 6): training, the rank-one invariance,
the content-addressed cache, and the figures' determinism. The full runs live in `l2g figures`."""
from __future__ import annotations

import json
import os

import pytest
import torch

from local2global.numeric.transformer import experiments as X
from local2global.numeric.transformer import fullmodel as fm


pytestmark = pytest.mark.usefixtures("one_torch_thread")


def _quick(base, **over):
    return X.TrainConfig(**{**base, **X.QUICK, **over})


def test_rank_one_initialization_stays_rank_one_under_unconstrained_training():
    """Fig. 6: the family (embeddings along alpha, W_1 = u alpha^T, W_2 = alpha v^T, W_{Q,K,V} ~ alpha alpha^T)
    is invariant under the full gradient (and Adam, since |alpha_j| is constant): ratios stay at rounding level."""
    res = X.train(_quick(X.FIG6, steps=60), progress=False)
    for m in X.MATRICES:
        assert max(res.sv_ratio[m]) <= 1e-12, (m, max(res.sv_ratio[m]))
    assert max(res.embedding_spread) <= 1e-12
    assert res.loss[-1] < res.loss[0]


def test_gaussian_initialization_is_not_rank_one_at_the_start():
    """Control for the test above: the ratio measure does see full-rank matrices."""
    res = X.train(_quick(X.FIG3, steps=10), progress=False)
    for m in ("W_V", "W_1", "W_2"):
        assert res.sv_ratio[m][0] > 0.3


def test_training_is_deterministic_per_seed_and_differs_across_seeds():
    a = X.train(_quick(X.FIG4, init="paper", steps=20), progress=False)
    b = X.train(_quick(X.FIG4, init="paper", steps=20), progress=False)
    c = X.train(_quick(X.FIG4, init="paper", steps=20, seed=1), progress=False)
    assert a.loss == b.loss and a.loss != c.loss


def test_recorded_loss_is_the_exact_population_loss():
    cfg = _quick(X.FIG3, steps=0)
    res = X.train(cfg, progress=False)
    theta = X.initial_parameters(cfg, torch.Generator().manual_seed(cfg.seed))
    assert res.loss == [float(fm.population_loss(theta, cfg.p, cfg.q))]


def test_paper_initialization_is_the_one_of_sec_5_2():
    cfg = _quick(X.FIG4, init="paper")
    theta = X.initial_parameters(cfg, torch.Generator().manual_seed(0))
    assert bool((theta.token == 0.5).all() and (theta.W_1 == 1).all() and (theta.W_2 == -1).all())
    with pytest.raises(ValueError):
        X.initial_parameters(_quick(X.FIG4, init="xavier"), torch.Generator())


def test_cache_reuses_valid_results_and_rebuilds_corrupted_or_stale_ones(tmp_path):
    cfg = _quick(X.FIG3, steps=10)
    first = X.run_cached(cfg, str(tmp_path), progress=False)
    files = list(tmp_path.glob("*.json"))
    assert len(files) == 1
    stamp = os.stat(files[0]).st_mtime_ns
    again = X.run_cached(cfg, str(tmp_path), progress=False)
    assert again.as_dict() == first.as_dict() and os.stat(files[0]).st_mtime_ns == stamp    # reused
    # corrupted payload (digest no longer matches): detected, recomputed, rewritten
    stored = json.loads(files[0].read_text())
    stored["result"]["loss"][-1] += 1.0
    files[0].write_text(json.dumps(stored))
    fixed = X.run_cached(cfg, str(tmp_path), progress=False)
    assert fixed.as_dict() == first.as_dict()
    assert json.loads(files[0].read_text())["result"]["loss"] == first.loss
    # truncated file, and a stale code hash: both recomputed
    files[0].write_text(files[0].read_text()[:50])
    assert X.run_cached(cfg, str(tmp_path), progress=False).as_dict() == first.as_dict()
    stored = json.loads(files[0].read_text())
    stored["code"] = "0" * 16
    files[0].write_text(json.dumps(stored))
    assert X.run_cached(cfg, str(tmp_path), progress=False).as_dict() == first.as_dict()
    assert json.loads(files[0].read_text())["code"] == X._code_hash()


def test_quick_figures_are_byte_identical_across_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)                      # the cache goes to ./build/cache
    from local2global.proofs.outputs.figures import fig_fullmodel
    from local2global.proofs.outputs.figures import plotting
    a = plotting.save(fig_fullmodel.fig4(quick=True), str(tmp_path / "a"), "fig4")
    b = plotting.save(fig_fullmodel.fig4(quick=True), str(tmp_path / "b"), "fig4")
    for pa, pb in zip(a, b):
        assert open(pa, "rb").read() == open(pb, "rb").read()
    assert len(fig_fullmodel.fig6(quick=True).axes) == 3
    assert {"fig3_fullmodel", "fig4_fullmodel", "fig6_fullmodel"} <= set(plotting.FIGURES)
