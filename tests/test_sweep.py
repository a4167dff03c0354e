"""`l2g sweep`: the points, the cache and its resumption, the scale-out (serial and a real LocalCluster give the same
bits), the phase table's arithmetic, the sweep claim on synthetic caches, and the command's refusals."""
from __future__ import annotations

import json
import math
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from fractions import Fraction
from itertools import product

import pytest

from local2global.numeric.transformer import phase as P
from local2global.numeric.transformer import sweep as S

#: a grid small enough for a test: 1 chain x 2 scales, 2 seeds, 15 steps at N = 3, d = 2
TINY = S.Grid((("1/5", "3/10"),), ("1/20", "1/2"), 2, (("N", 3), ("d", 2), ("steps", 15)))


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    """Run in an empty folder with an empty cache ($L2G_CACHE/sweep)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("L2G_CACHE", str(tmp_path / "cache"))
    return tmp_path


def test_point_refuses_values_outside_its_domain():
    for bad in ({"p": "1"}, {"q": "0"}, {"sigma": "0"}, {"sigma": "-1/2"}, {"seeds": 0}, {"N": 15},
                {"optimizer": "sgd"}, {"init": "rank_one"}, {"lr": 0.0}, {"device": "tpu"}):
        kw = dict({"p": "1/5", "q": "3/10", "sigma": "1/2"}, **bad)
        with pytest.raises(ValueError):
            S.Point(**kw)


def test_a_point_is_named_by_its_exact_values():
    assert S.Point("0.2", "0.3", "0.5").key() == S.Point("1/5", "3/10", "1/2").key()
    assert S.Point("0.2", "0.3", "0.5").key() != S.Point("0.2", "0.3", "0.5", seeds=4).key()


def test_a_point_depends_only_on_its_parameters():
    """Seeded per run: the same point trains to the same bits twice, and its first run is the same whatever
    the other points of the grid (a point is its own task)."""
    pt = TINY.points()[0]
    a, b = S.train_point(pt), S.train_point(pt)
    assert a == b
    assert a["runs"][0]["loss"] != a["runs"][1]["loss"]            # the seeds are different initializations


def test_canonical_readoff_recovers_the_scalars_on_the_manifold():
    import torch

    from local2global.numeric.transformer import canonical_map as cmap
    from local2global.numeric.transformer import fullmodel as fm
    thetas = [cmap.canonical_parameters(e, w, b, d=4, N=5, signs=(1, -1, 1, 1)) for e, w, b in
              ((0.7, -0.4, 0.3), (-1.2, 0.9, -0.5))]
    got = S.canonical_readoff(fm.stack_parameters(thetas))
    assert got["e"] == pytest.approx([0.7, 1.2], abs=1e-14)
    assert got["w_from_W2"] == pytest.approx([-0.4, 0.9], abs=1e-14)
    assert got["abs_w_from_W1"] == pytest.approx([0.4, 0.9], abs=1e-14)
    assert got["b"] == pytest.approx([0.3, -0.5], abs=1e-15)
    assert torch.is_tensor(thetas[0].token)


def test_an_interrupted_sweep_resumes_without_recomputing_finished_points(in_tmp, monkeypatch):
    calls = []
    real = S.train_point

    def counting(pt):
        calls.append(pt.key())
        return real(pt)
    monkeypatch.setattr(S, "train_point", counting)

    def interrupt_after_first(done, total, pt):
        if pt is not None:
            raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        S.run_sweep(TINY, progress=interrupt_after_first)
    assert len(calls) == 1 and S.cached_grids() == []              # one point cached, no manifest yet
    first = S.cached_point(TINY.points()[0])
    assert first is not None
    results = S.run_sweep(TINY)
    assert calls == [pt.key() for pt in TINY.points()]              # the second run trained only the second point
    assert results[0] == first
    assert [g for g, _ in S.cached_grids()] == [TINY]
    S.run_sweep(TINY)
    assert len(calls) == 2                                          # a finished sweep trains nothing


def test_a_stale_or_corrupted_point_is_recomputed(in_tmp):
    S.run_sweep(TINY)
    path = next(p for p in (in_tmp / "cache" / "sweep").iterdir() if p.suffix == ".json")
    path.write_text(path.read_text()[:-40])
    assert len(S.cached_grids()) == 0                               # one point no longer valid: the grid is not cached
    S.run_sweep(TINY)
    assert len(S.cached_grids()) == 1


@pytest.mark.slow
def test_a_local_cluster_of_processes_gives_the_serial_results_bitwise(tmp_path):
    serial = S.run_sweep(TINY, folder=str(tmp_path / "serial"))
    client, cluster = S.connect(2, None)
    try:
        assert len(client.scheduler_info()["workers"]) == 2
        pids = set(client.run(os.getpid).values())
        assert os.getpid() not in pids and len(pids) == 2            # two worker processes, not this one
        dask = S.run_sweep(TINY, client=client, folder=str(tmp_path / "dask"))
    finally:
        S.close(client, cluster)
    assert json.dumps(serial, sort_keys=True) == json.dumps(dask, sort_keys=True)
    for pid in pids:                                                # the workers ended with the cluster
        assert not _alive(pid)


def _alive(pid: int) -> bool:
    for _ in range(50):
        try:
            with open(f"/proc/{pid}/stat") as fh:
                if fh.read().split()[2] == "Z":
                    return False
        except FileNotFoundError:
            return False
        time.sleep(0.1)
    return True


# --------------------------------------------------------------------------------------------- the phase table


def test_classes_are_decided_by_a_tenth_of_the_gap():
    ref = P.references(Fraction(1, 2), Fraction(4, 5))
    assert ref["gap"] > 0 and ref["tolerance"] == pytest.approx(ref["gap"] / 10)
    assert P.classify(ref["entropy_rate"] + 0.99 * ref["tolerance"], ref) == "bigram"
    assert P.classify(ref["unigram"] - 0.99 * ref["tolerance"], ref) == "unigram"
    assert P.classify(ref["entropy_rate"] + 1.01 * ref["tolerance"], ref) == "neither"
    assert P.classify(float("nan"), ref) == "neither"


def test_poisson_binomial_tails_equal_the_sum_over_outcomes():
    rng = random.Random(3)
    probs = [rng.random() for _ in range(6)]
    for k in range(8):
        brute = sum(math.prod(p if x else 1 - p for p, x in zip(probs, xs))
                    for xs in product((0, 1), repeat=len(probs)) if sum(xs) >= k)
        assert P.binomial_upper_tail(k, probs) == pytest.approx(brute, abs=1e-14)


def test_rounded_prints_only_digits_both_ends_share():
    assert P.rounded("0.18901", "0.18902") == "0.189"
    assert P.rounded("0.1945", "0.1955", 2) == "[0.19, 0.20]"
    assert P.rounded("0.99999999", "1.00000001", 4) == "1.000"
    assert P.rounded("5.02560007e-32", "5.02560008e-32", 4) == "5.026e-32"


def _row(p, q, sigma, classes):
    r2 = P.canonical_r2(P.regime(Fraction(p), Fraction(q)), Fraction(sigma))
    counts = {c: classes.count(c) for c in P.CLASSES}
    return {"p": p, "q": q, "p_plus_q": str(Fraction(p) + Fraction(q)), "sigma": sigma, "seeds": len(classes),
            "classes": classes, "counts": counts, "canonical_R2": r2, "fraction_bigram": counts["bigram"] / len(classes)}


def test_the_verdict_counts_decisive_points_and_tails():
    rows = [_row("1/2", "4/5", "1/20", ["unigram"] * 3), _row("1/5", "3/10", "1/20", ["bigram", "bigram", "neither"]),
            _row("1/2", "4/5", "1", ["bigram"] * 3)]
    v = P.verdict(rows)
    assert (v["decisive"]["cells"], v["decisive"]["runs"], v["decisive"]["as_predicted"]) == (2, 6, 5)
    assert [m["sigma"] for m in v["decisive"]["misses"]] == ["1/20"]
    b = v["beyond"]["p+q>1"]
    p = rows[2]["canonical_R2"]["float"]
    assert b["bigram"] == 3 and b["expected"] == pytest.approx(3 * p)
    assert b["upper_tail"] == pytest.approx(p ** 3) and b["lower_tail"] == pytest.approx(1.0)
    assert b["direction"] is None and p ** 3 >= 0.025          # 3 of 3 at P(I*) = 0.38: not significant
    assert "p+q<1" not in v["beyond"]


def test_the_two_sided_test_rejects_in_either_direction_at_half_the_level_per_tail():
    probs = [0.2] * 10
    assert P.two_sided(2, probs)["direction"] is None
    assert P.two_sided(7, probs)["direction"] == "more"           # P(K >= 7) = 8.6e-4
    assert P.two_sided(0, [0.4] * 10)["direction"] == "fewer"      # P(K <= 0) = 0.6^10 = 0.0060
    # each tail against half the level: P(K <= 0) = 0.7^10 = 0.028 would be rejected one-sided at 0.05, not here
    assert P.two_sided(0, [0.3] * 10)["direction"] is None
    assert P.two_sided(0, [0.3] * 10, level=0.06)["direction"] == "fewer"


# --------------------------------------------------------------------------------------------- the claim


def _fake_sweep(grid, final):
    """Cache `grid` with every run ending at `final(point, seed)` (a loss), as if trained."""
    for pt in grid.points():
        runs = [{"seed": k, "initial_loss": 0.7, "final_loss": final(pt, k), "loss": [0.7, final(pt, k)],
                 "canonical": {}} for k in range(pt.seeds)]
        S.store_point(pt, {"point": {}, "loss_every": S.LOSS_EVERY, "runs": runs})
    S.write_manifest(grid)


def _at(kind):
    def final(pt, k):
        return P.references(*pt.pq)[{"bigram": "entropy_rate", "unigram": "unigram"}[kind(pt, k)]]
    return final


def _claim():
    from local2global.proofs import Context, run_claim, select
    return run_claim(select(["sweep.canonical_predicts"])[0], Context())


GRID = S.Grid((("1/5", "3/10"), ("1/2", "4/5")), ("1/20", "1"), 3)


def test_the_claim_is_open_without_a_sweep_and_names_the_command(in_tmp):
    rec = _claim()
    assert rec.status == "open" and "l2g sweep --quick" in rec.evidence


def test_the_claim_holds_when_the_runs_end_where_the_basins_say(in_tmp):
    """Decisive points as predicted; elsewhere 3 of 3 at the bigram loss where P(I*) is 0.887 (p + q < 1) and 0.381
    (p + q > 1: P(K >= 3) = 0.055, not below 0.025). The control, with the basins exchanged, is rejected by both
    kinds of step: the decisive runs are not at the other loss, and 3 of 3 against P(I_min) = 0.113 is too many."""
    _fake_sweep(GRID, _at(lambda pt, k: "bigram" if sum(pt.pq) < 1 or pt.sigma == "1" else "unigram"))
    rec = _claim()
    assert rec.status == "experiment", rec.evidence
    assert "runs as predicted = 6 of 6" in rec.evidence and rec.control.startswith("rejected")
    beyond = [s for s in rec.steps if "not decisive" in s.states]
    assert len(beyond) == 2 and all(s.ok and dict(s.values)["verdict"].startswith("consistent") for s in beyond)
    failing = [s for s in rec.control_steps if not s.ok]
    assert any("decisive" in s.states for s in failing) and any("P(I_min)" in s.states for s in failing)


def test_the_claim_fails_when_one_decisive_run_ends_elsewhere(in_tmp):
    _fake_sweep(GRID, _at(lambda pt, k: "bigram" if sum(pt.pq) < 1 or pt.sigma == "1" or k == 2 else "unigram"))
    rec = _claim()
    assert rec.status == "failed" and "5 of 6" in rec.evidence


def test_the_claim_fails_when_the_canonical_model_overestimates(in_tmp):
    """Beyond the decisive points: no run at the bigram loss where P(I*) is about 0.89 (p + q < 1, sigma = 1):
    P(K <= 0) = 0.113^3 = 0.0014 < 0.025."""
    _fake_sweep(GRID, _at(lambda pt, k: "unigram" if sum(pt.pq) > 1 or pt.sigma == "1" else "bigram"))
    rec = _claim()
    assert rec.status == "failed" and "0 of 3" in rec.evidence
    assert "significantly less often than P(I*) predicts" in rec.evidence


def test_the_claim_fails_when_the_full_transformer_reaches_the_global_minimum_more_often_than_predicted(in_tmp):
    """The default grid's finding, planted: p + q > 1, every run at the bigram loss where P(I*) is 0.189 (sigma =
    1/2) and 0.381 (sigma = 1): 12 of 12 against 3.42 expected, P(K >= 12) = 9e-8 < 0.025. The decisive points
    (sigma = 1/20, at the unigram loss) are as predicted; the claim must not read as confirmed."""
    grid = S.Grid((("1/2", "4/5"), ("9/10", "9/10")), ("1/20", "1/2", "1"), 3)
    _fake_sweep(grid, _at(lambda pt, k: "unigram" if pt.sigma == "1/20" else "bigram"))
    rec = _claim()
    assert rec.status == "failed", rec.evidence
    assert "runs as predicted = 6 of 6" in rec.evidence and "12 of 12, 3.42 expected" in rec.evidence
    assert "significantly more often than P(I*) predicts" in rec.evidence
    [beyond] = [s for s in rec.steps if "not decisive" in s.states]
    assert not beyond.ok and beyond.kind == "experiment"


def test_the_largest_cached_grid_is_read(in_tmp):
    small = S.Grid((("1/5", "3/10"),), ("1/20",), 3)
    _fake_sweep(small, _at(lambda pt, k: "bigram"))
    _fake_sweep(GRID, _at(lambda pt, k: "bigram" if sum(pt.pq) < 1 or pt.sigma == "1" else "unigram"))
    assert [g for g, _ in S.cached_grids()] == [GRID, small]


# --------------------------------------------------------------------------------------------- the command


def _l2g(*args, cwd):
    return subprocess.run([sys.executable, "-m", "local2global", "sweep", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=300, env=dict(os.environ, L2G_TRACEBACK="", L2G_CACHE=str(Path(cwd) / "cache")))


@pytest.mark.parametrize("args, says", [
    (("--chains", "1.2:0.3"), "(0, 1)"),
    (("--chains", "0.2:0.8"), "p + q = 1"),
    (("--chains", "0.2"), "p:q"),
    (("--chains", "0.2:0.3,0.2:0.3"), "twice"),
    (("--sigma", "0"), "[1/1000, 10]"),
    (("--sigma", "-1"), "[1/1000, 10]"),
    (("--sigma", ""), "comma-separated"),
    (("--sigma", "0.1,,0.2"), "comma-separated"),
    (("--p", "0.2"), "--p and --q"),
    (("--quick", "--sigma", "0.1"), "--quick"),
    (("--seeds", "0"), "--seeds"),
    (("--workers", "2", "--scheduler", "tcp://127.0.0.1:8786"), "not both"),
    (("--scheduler", "nowhere"), "address"),
])
def test_bad_grids_are_refused_before_any_work(tmp_path, args, says):
    r = _l2g(*args, cwd=tmp_path)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.count("\n") == 1 and says in r.stderr, r.stderr
    assert not (tmp_path / "build").exists() and not (tmp_path / "cache").exists()


def test_a_gpu_that_is_not_there_is_refused(tmp_path):
    import torch
    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    r = _l2g("--quick", "--device", "cuda", cwd=tmp_path)
    assert r.returncode == 2 and "torch sees no GPU" in r.stderr and r.stderr.count("\n") == 1


@pytest.mark.slow
def test_an_unreachable_scheduler_is_refused_before_any_work(tmp_path):
    r = _l2g("--quick", "--scheduler", "tcp://127.0.0.1:9", cwd=tmp_path)
    assert r.returncode == 2 and "cannot reach the Dask scheduler" in r.stderr and r.stderr.count("\n") == 1
    assert not (tmp_path / "cache" / "sweep").exists() or not any(
        (tmp_path / "cache" / "sweep").glob("*.json"))


def _descendants(pid: int) -> set[int]:
    kids, out = {}, set()
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as fh:
                    kids.setdefault(int(fh.read().rsplit(")", 1)[1].split()[1]), []).append(int(d))
            except (OSError, IndexError, ValueError):
                pass
    todo = [pid]
    while todo:
        for c in kids.get(todo.pop(), []):
            out.add(c)
            todo.append(c)
    return out


def _cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return fh.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


@pytest.mark.slow
@pytest.mark.parametrize("sig, code", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_ends_the_cluster_and_its_workers(tmp_path, sig, code):
    proc = subprocess.Popen([sys.executable, "-m", "local2global", "sweep", "--workers", "2", "--chains", "1/5:3/10",
                             "--sigma", "1/20,1/10,1/5,1/2", "--steps", "3000"], cwd=tmp_path, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=dict(os.environ, L2G_TRACEBACK=""))
    deadline = time.time() + 240
    workers = set()
    while time.time() < deadline and len(workers) < 2:              # the two worker processes (spawned)
        time.sleep(1)
        workers = {p for p in _descendants(proc.pid) if "spawn_main" in _cmdline(p)}
    assert len(workers) == 2, "the cluster did not start"
    workers = _descendants(proc.pid)                                # with the resource tracker
    time.sleep(5)
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == code, err
    assert err.strip().count("\n") == 0 and err.startswith("l2g:"), err
    assert not [p for p in workers if _alive(p)]                    # no orphans


def test_the_phase_diagram_is_drawn_from_the_largest_cached_grid_and_not_before_one(in_tmp):
    from local2global.proofs.outputs.figures import fig_phase, plotting
    assert fig_phase.fig_phase() is None
    assert plotting._render_one(str(in_tmp / "figs"), "fig_phase") == []          # no file, no error
    _fake_sweep(GRID, _at(lambda pt, k: "bigram" if sum(pt.pq) < 1 else "unigram"))
    one = plotting._render_one(str(in_tmp / "one"), "fig_phase")
    two = plotting._render_one(str(in_tmp / "two"), "fig_phase")
    assert [p.rsplit("/", 1)[1] for p in one] == ["fig_phase.pdf", "fig_phase.png"]
    assert [open(p, "rb").read() for p in one] == [open(p, "rb").read() for p in two]


def test_the_figure_prints_only_digits_both_ends_of_an_enclosure_share():
    from local2global.proofs.outputs.figures import fig_phase
    assert fig_phase._signed(Fraction(-1, 10**35), Fraction(1, 10**34)) == "0.00"
    assert fig_phase._signed(Fraction(4749, 10000), Fraction(4751, 10000)) == "[+0.47, +0.48]"
    assert fig_phase._signed(Fraction(-62, 100), Fraction(-619, 1000)) == "-0.62"


def test_the_code_digest_ignores_docstrings_and_comments_but_not_code(tmp_path):
    from local2global.numeric.infra.cache import code_digest
    a = tmp_path / "a.py"
    a.write_text('"""Module."""\n\ndef f(x):\n    """Doc."""\n    return x + 1  # why\n')
    b = tmp_path / "b.py"
    b.write_text('"""Another module text."""\n# a comment\n\ndef f(x):\n    """Other doc."""\n    return x + 1\n')
    c = tmp_path / "c.py"
    c.write_text('"""Module."""\n\ndef f(x):\n    """Doc."""\n    return x + 2\n')
    assert code_digest(a) == code_digest(b) != code_digest(c)
    assert code_digest(a, extra=("1",)) != code_digest(a, extra=("2",))
