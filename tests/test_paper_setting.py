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


def _tiny_paper_setting(monkeypatch, tmp_path):
    """The paper-setting groups shrunk to seconds (N = 16, 4 iterations, two candidate rates: the paper's init of Fig. 4 needs the small one) in an empty cache."""
    monkeypatch.setenv("L2G_CACHE", str(tmp_path / "cache"))
    tiny = dict(N=16, steps=4, eval_every=2, test_sequences=4)
    monkeypatch.setattr(X, "PAPER_FIG3", dict(X.PAPER_FIG3, **tiny))
    monkeypatch.setattr(X, "PAPER_FIG4", dict(X.PAPER_FIG4, **tiny))
    monkeypatch.setattr(X, "SGD_CONTROL", dict(X.SGD_CONTROL, N=4, steps=4, eval_every=2))
    monkeypatch.setattr(X, "LR_CANDIDATES", (1.0, 1 / 64))


def test_each_paper_setting_group_stores_its_wall_time_and_the_claims_print_the_stored_one(tmp_path, monkeypatch,
                                                                                           one_torch_thread):
    """`l2g train --setting paper` on a tiny configuration: every group it trains (pilots, runs, control) is cached
    with its wall time and core count; the claims' values name them, and read them from the cache (two checks give
    the same record, byte for byte, although a second training would take another time)."""
    import json
    from local2global.proofs import Context, run_claim, select
    _tiny_paper_setting(monkeypatch, tmp_path)
    X.train_setting("paper", progress=False)
    for fig in ("fig3", "fig4"):
        t = X.paper_runs(fig)["timing"]
        groups = t["pilots"] + [t["runs"]] + ([t["control"]] if fig == "fig3" else [])
        assert groups and all(g is not None and g["wall_s"] > 0 and g["cores"] >= 1 and g["device"] == "cpu"
                              for g in groups), t
    first = {}
    for cid in ("fig3.rank_one_emerges", "fig4.initialization", "fig6.rank_one_stays"):
        rec = run_claim(select([cid])[0], Context())
        vals = dict(v for s in rec.steps for v in s.values)
        wall = next(v for k, v in vals.items() if k.startswith("training wall time"))
        assert "runs at N = 16" in wall and "pilots" in wall and "total" in wall and "core" in wall, wall
        assert ("SGD control" in wall) == (cid != "fig4.initialization"), wall
        first[cid] = json.dumps([s.as_dict() for s in rec.steps], sort_keys=True)
    for cid, text in first.items():
        assert json.dumps([s.as_dict() for s in run_claim(select([cid])[0], Context()).steps], sort_keys=True) == text


def test_a_group_cached_before_wall_times_were_stored_reads_as_not_recorded(tmp_path):
    """An entry written by the earlier code (a bare list of runs) still gives its runs; its timing is None, and the
    claims' text says "not recorded" instead of inventing a time."""
    from local2global.numeric.infra.cache import cached_json
    cfgs = [X.TrainConfig(**dict(X.FIG3, N=4, steps=2, eval_every=1))]
    runs = [r.as_dict() for r in X.train_group(cfgs, progress=False)]
    cached_json(str(tmp_path), X._group_cache_key(cfgs), X._code_hash(), lambda: runs)
    assert [r.as_dict() for r in X.run_group_cached(cfgs, str(tmp_path), train_if_missing=False)] == runs
    assert X.group_timing(cfgs, str(tmp_path)) is None
    from local2global.proofs import claims_40_fullmodel as C
    data = {"lr": {"lr": 1.0, "tried": [(1.0, "kept")]}, "device": "cpu", "runs": [],
            "timing": {"pilots": [None], "runs": None, "control": None}}
    name, text = C._paper_wall(data, "fig3")
    assert name == "training wall time" and text.count("not recorded") == 3 and "total" not in text
