"""Figs. 3, 4, 6 at the paper's setting (`l2g train --setting paper`): the learning-rate rule, the pilots, the held-out
references, and the claims naming what is missing."""
from __future__ import annotations

import math

import pytest
import torch

from local2global.numeric.transformer import experiments as X


def _run(cfg, losses):
    r = X.TrainResult(cfg, loss_kind="estimated")
    r.steps, r.loss = list(range(len(losses))), list(losses)
    return r


def test_divergence_is_a_non_finite_loss_or_no_descent():
    cfg = X.pilot_configs("fig3", 1.0)[0]
    assert not X.diverged(_run(cfg, [0.69, 0.6, 0.55]))
    assert X.diverged(_run(cfg, [0.69, float("nan")]))
    assert X.diverged(_run(cfg, [0.69, 0.7]))
    assert X.diverged(_run(cfg, [0.69, math.inf, 0.5]))


@pytest.mark.parametrize("fig", X.PAPER_FIGURES)
def test_the_rule_keeps_the_largest_rate_whose_pilots_do_not_diverge(fig, monkeypatch):
    seen = []

    def fake(cfgs, *a, pilot=False, **k):
        assert pilot and [c.init for c in cfgs] == list(X._paper_inits(fig)) and {c.seed for c in cfgs} == {0}
        lr = cfgs[0].lr
        seen.append(lr)
        return [_run(c, [0.7, float("nan") if lr > 2 and c is cfgs[-1] else 0.6]) for c in cfgs]
    monkeypatch.setattr(X, "run_group_cached", fake)
    out = X.paper_lr(fig)
    assert out["lr"] == 2.0 and seen == [8.0, 4.0, 2.0]
    assert [x for x, _ in out["tried"]] == [8.0, 4.0, 2.0] and "diverged" in out["tried"][0][1]


def test_the_rule_refuses_when_every_rate_diverges(monkeypatch):
    monkeypatch.setattr(X, "run_group_cached", lambda cfgs, *a, **k: [_run(c, [0.7, 0.8]) for c in cfgs])
    with pytest.raises(ValueError, match="every learning rate"):
        X.paper_lr("fig4")


def test_nothing_is_reported_when_a_pilot_is_not_cached(monkeypatch):
    monkeypatch.setattr(X, "run_group_cached", lambda *a, **k: None)
    assert X.paper_lr("fig3", train_if_missing=False) is None
    assert X.paper_runs("fig3") is None and X.paper_runs("fig4") is None


def test_the_paper_settings_are_the_stated_ones():
    c = X.paper_configs("fig3", 1.0)
    assert {(x.p, x.q, x.N, x.d, x.sigma, x.optimizer, x.batch, x.steps) for x in c} == {(0.2, 0.3, 1024, 8, 0.001, "sgd", 16, 800)}
    assert [x.init for x in c] == ["gaussian"] * 3 + ["rank_one"] * 3 and all(x.fused for x in c)
    f4 = X.paper_configs("fig4", 1.0)
    assert {(x.p, x.q, x.sigma) for x in f4} == {(0.5, 0.8, 0.02)} and [x.init for x in f4] == ["gaussian"] * 3 + ["paper"] * 3
    ctrl = X.control_configs(1.0)
    assert {(x.N, x.optimizer, x.lr) for x in ctrl} == {(12, "sgd", 1.0)} and not any(x.fused for x in ctrl)


def test_a_pilot_stops_at_the_first_divergence_and_a_group_records_every_step():
    cfgs = [X.TrainConfig(**dict(X.PAPER_FIG3, init=i, N=16, steps=40, eval_every=10, test_sequences=4), lr=50.0, seed=0)
            for i in ("gaussian", "rank_one")]
    pilot = X.train_group(cfgs, progress=False, pilot=True)
    assert len(pilot[0].steps) < 10 and any(not math.isfinite(v) for r in pilot for v in r.loss)
    full = X.train_group(cfgs, progress=False)
    assert full[0].steps[-1] == 40 and all(not math.isfinite(r.loss[-1]) for r in full)


def test_the_heldout_sequences_are_the_recorders_and_the_bigram_predictor_beats_the_unigram():
    cfg = X.TrainConfig(**dict(X.PAPER_FIG4, N=64, test_sequences=32), lr=1.0)
    rec = X._Recorder([cfg])
    assert torch.equal(rec.test, X.heldout_sequences(cfg).to(rec.test.dtype))
    ref = X.heldout_references(cfg)
    chain = X.chain_losses(cfg.p, cfg.q)
    assert ref["bigram"] < ref["unigram"]
    # sampled estimates of the entropy rate and H(pi): 32 x 64 tokens, a few hundredths at most
    assert abs(ref["bigram"] - chain["entropy_rate"]) < 0.05 and abs(ref["unigram"] - chain["unigram"]) < 0.05


def test_the_claims_name_the_paper_setting_command_when_it_is_not_cached(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    # an empty training cache: runs cached by earlier tests (or the user) would make the claims experiments
    monkeypatch.setenv("L2G_CACHE", str(tmp_path / "cache"))
    from local2global.proofs import Context, run_claim, select
    for cid in ("fig3.rank_one_emerges", "fig4.initialization", "fig6.rank_one_stays"):
        rec = run_claim(select([cid])[0], Context())
        assert rec.status == "open" and "l2g train --setting paper" in rec.evidence, rec.evidence
