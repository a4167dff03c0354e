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


@pytest.mark.slow
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


@pytest.mark.slow
def test_training_is_deterministic_per_seed_and_differs_across_seeds():
    a = X.train(_quick(X.FIG4, init="paper", steps=20), progress=False)
    b = X.train(_quick(X.FIG4, init="paper", steps=20), progress=False)
    c = X.train(_quick(X.FIG4, init="paper", steps=20, seed=1), progress=False)
    assert a.loss == b.loss and a.loss != c.loss


def test_recorded_loss_is_the_exact_population_loss():
    cfg = _quick(X.FIG3, steps=0)
    res = X.train(cfg, progress=False)
    theta = X.initial_parameters(cfg, torch.Generator().manual_seed(cfg.seed))
    assert res.loss_kind == "exact" and len(res.loss) == 1
    assert abs(res.loss[0] - float(fm.population_loss_enumerated(theta, cfg.p, cfg.q))) <= 1e-14


def test_paper_initialization_is_the_one_of_sec_5_2():
    cfg = _quick(X.FIG4, init="paper")
    theta = X.initial_parameters(cfg, torch.Generator().manual_seed(0))
    assert bool((theta.token == 0.5).all() and (theta.W_1 == 1).all() and (theta.W_2 == -1).all())
    with pytest.raises(ValueError):
        X.initial_parameters(_quick(X.FIG4, init="xavier"), torch.Generator())


@pytest.mark.slow
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
    stored["result"]["runs"][0]["loss"][-1] += 1.0
    files[0].write_text(json.dumps(stored))
    fixed = X.run_cached(cfg, str(tmp_path), progress=False)
    assert fixed.as_dict() == first.as_dict()
    assert json.loads(files[0].read_text())["result"]["runs"][0]["loss"] == first.loss
    # truncated file, and a stale code hash: both recomputed
    files[0].write_text(files[0].read_text()[:50])
    assert X.run_cached(cfg, str(tmp_path), progress=False).as_dict() == first.as_dict()
    stored = json.loads(files[0].read_text())
    stored["code"] = "0" * 16
    files[0].write_text(json.dumps(stored))
    assert X.run_cached(cfg, str(tmp_path), progress=False).as_dict() == first.as_dict()
    assert json.loads(files[0].read_text())["code"] == X._code_hash()


@pytest.mark.slow
def test_quick_figures_are_byte_identical_across_runs(tmp_path, monkeypatch):
    monkeypatch.setenv("L2G_CACHE", str(tmp_path))   # the training cache goes to tmp_path/fullmodel
    from local2global.proofs.outputs.figures import fig_fullmodel
    from local2global.proofs.outputs.figures import plotting
    a = plotting.save(fig_fullmodel.fig4(quick=True), str(tmp_path / "a"), "fig4")
    b = plotting.save(fig_fullmodel.fig4(quick=True), str(tmp_path / "b"), "fig4")
    for pa, pb in zip(a, b):
        assert open(pa, "rb").read() == open(pb, "rb").read()
    assert len(fig_fullmodel.fig6(quick=True).axes) == 4
    assert {"fig3_fullmodel", "fig4_fullmodel", "fig6_fullmodel"} <= set(plotting.FIGURES)


# --------------------------------------------------------------------------------------------
# The vectorised trainer: one group of runs is the same as the runs alone
# --------------------------------------------------------------------------------------------

def test_a_vectorised_group_trains_each_run_as_it_would_be_trained_alone():
    """Seeds and inits batched along a leading dimension: Adam/SGD act elementwise and clipping is per run,
    so each run's trajectory equals its solo run up to float64 rounding of the batched kernels."""
    cfgs = [_quick(X.FIG4, init=i, seed=s, steps=25, eval_every=5) for i in ("gaussian", "paper") for s in (0, 1)]
    group = X.train_group(cfgs, progress=False)
    for cfg, res in zip(cfgs, group):
        alone = X.train(cfg, progress=False)
        assert res.steps == alone.steps
        assert max(abs(a - b) for a, b in zip(res.loss, alone.loss)) <= 1e-12
        for m in X.MATRICES:
            assert max(abs(a - b) for a, b in zip(res.sv_ratio[m], alone.sv_ratio[m])) <= 1e-9
    # paired data: the two inits of one seed see the same sequences, different seeds different ones
    assert torch.equal(X._data_stream(cfgs[0]), X._data_stream(cfgs[2]))
    assert not torch.equal(X._data_stream(cfgs[0]), X._data_stream(cfgs[1]))


def test_a_group_must_share_every_setting_but_seed_and_init():
    with pytest.raises(ValueError):
        X.train_group([_quick(X.FIG3), _quick(X.FIG3, lr=0.1)], progress=False)
    with pytest.raises(ValueError):
        X.train_group([_quick(X.FIG3, optimizer="lbfgs")], progress=False)


def test_gradient_clipping_is_per_run():
    """A run whose gradient is clipped must not change the run beside it (clipping the joint norm would)."""
    base = dict(X.FIG4, grad_clip=1e-3)
    a, b = _quick(base, init="paper"), _quick(base, init="gaussian")
    together = X.train_group([a, b], progress=False)
    assert max(abs(x - y) for x, y in zip(together[1].loss, X.train(b, progress=False).loss)) <= 1e-12


def test_training_is_byte_identical_across_runs_and_through_the_cache(tmp_path):
    cfgs = [_quick(X.FIG3, seed=s) for s in (0, 1)]
    fresh = [r.as_dict() for r in X.train_group(cfgs, progress=False)]
    first = [r.as_dict() for r in X.run_group_cached(cfgs, str(tmp_path), progress=False)]
    again = [r.as_dict() for r in X.run_group_cached(cfgs, str(tmp_path), progress=False)]
    assert json.dumps(first, sort_keys=True) == json.dumps(again, sort_keys=True) == json.dumps(fresh, sort_keys=True)


def test_training_groups_side_by_side_each_draw_their_bar_on_their_own_line(tmp_path, monkeypatch, capsys):
    """`l2g all` trains its groups in two processes: bar i sits i lines below the cursor (tqdm's `position`),
    so the two bars do not overwrite each other; piped stderr gets no bar at all."""
    import sys
    cfg = _quick(X.FIG3, steps=3)
    X.train_group([cfg], progress=True, position=1)
    assert capsys.readouterr().err == ""                        # not a terminal
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    X.train_group([cfg], progress=True, position=1)
    below = capsys.readouterr().err
    X.train_group([cfg], progress=True, position=0)
    first = capsys.readouterr().err
    assert "train 1 runs" in below and "train 1 runs" in first
    assert "\x1b[A" in below and "\x1b[A" not in first             # drawn one line down, then back up


def test_looking_up_a_missing_cache_neither_trains_nor_writes(tmp_path, monkeypatch):
    """What `l2g check` does: the experiment claims read the cache and never train."""
    def refuse(*a, **k):
        raise AssertionError("trained inside a lookup")
    monkeypatch.setattr(X, "train_group", refuse)
    assert X.run_group_cached([_quick(X.FIG3)], str(tmp_path), train_if_missing=False) is None
    assert X.fig4_runs(cache_dir=str(tmp_path), train_if_missing=False) is None
    assert not list(tmp_path.iterdir())


def test_sampled_chain_has_the_stationary_markov_law():
    g = torch.Generator().manual_seed(0)
    x = X.sample_chain(0.2, 0.3, (40_000,), 4, g)
    assert abs(float(x[:, 2].double().mean()) - 0.4) < 0.01                    # x_n ~ pi, pi_1 = p/(p+q)
    after0 = x[:, 3][~x[:, 2]].double().mean()                                 # P(1 | 0) = p
    after1 = x[:, 3][x[:, 2]].double().mean()                                  # P(1 | 1) = 1 - q
    assert abs(float(after0) - 0.2) < 0.01 and abs(float(after1) - 0.7) < 0.01


def test_long_sequences_record_an_estimated_loss_on_held_out_sequences():
    cfg = X.TrainConfig(**dict(X.FIG3, N=X.EXACT_MAX_N + 2, steps=2, eval_every=1, test_sequences=8))
    res = X.train(cfg, progress=False)
    assert res.loss_kind.startswith("estimated on 8 held-out") and len(res.loss) == 3


def test_no_progress_output_when_stderr_is_not_a_terminal(capsys):
    X.train(_quick(X.FIG3, steps=3), progress=True)
    assert capsys.readouterr().err == ""


def test_a_diverging_run_is_recorded_as_nan_without_stopping_the_others():
    """Unclipped SGD at lr 2 from the paper's init overflows; its records become NaN, the run beside it is unaffected."""
    cfgs = [_quick(X.FIG4, init=i, lr=2.0, grad_clip=0.0, steps=20, eval_every=10) for i in ("paper", "gaussian")]
    blown, fine = X.train_group(cfgs, progress=False)
    assert any(v != v for v in blown.loss) and all(v == v for v in fine.loss)
    assert fine.loss == X.train(cfgs[1], progress=False).loss
