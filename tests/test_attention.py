"""The attention scalar a (Sec. 4.1, App. G, N): derivation, landscape, flow, Theta_station, claims."""
from __future__ import annotations

import random
from fractions import Fraction

import mpmath as mp
import pytest
import sympy as sp

from local2global.numeric.chain import NumericChain
from local2global.numeric.dynamics import basins as nb
from local2global.numeric.dynamics.flow import ReducedFlow
from local2global.numeric.evaluate.landscape import Landscape
from local2global.numeric.evaluate.pointeval import attention_point
from local2global.numeric.evaluate.lambdify import compile_mp, mpf_exact
from local2global.symbolic import symbols as S
from local2global.symbolic.model import canonical_model

_M = canonical_model()
_MA = canonical_model(True)

P9 = (Fraction(9, 10), Fraction(9, 10))
P1 = (Fraction(1, 10), Fraction(1, 10))


def _rand_points(n, seed, negative_gain=None):
    """Random exact (e, w, a, b); negative_gain=True/False forces the sign of 1 + a e^2."""
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        e, w, a, b = (Fraction(rng.randint(-1500, 1500), 1000) for _ in range(4))
        if e == 0 or w == 0:
            continue
        s = 1 + a * e * e
        if negative_gain is not None and (s < 0) != negative_gain:
            continue
        out.append((e, w, a, b))
    return out


def test_logit_with_attention_matches_the_torch_linear_attention_model():
    torch = pytest.importorskip("torch")
    from local2global.numeric.transformer.canonical_map import canonical_parameters
    from local2global.numeric.transformer.fullmodel import all_sequences, logits
    z = compile_mp(_MA.logit(S.X), (S.X, S.e, S.w, S.a, S.b))
    seqs = all_sequences(4)
    worst = 0.0
    for neg in (False, True):
        for e, w, a, b in _rand_points(4, 7 + neg, negative_gain=neg):
            theta = canonical_parameters(float(e), float(w), float(b), d=3, N=4, signs=(1, -1, 1), a=float(a))
            got = logits(theta, seqs, attention="linear")
            ref = {x: float(z(x, *map(mpf_exact, (e, w, a, b)))) for x in (0, 1)}
            want = torch.tensor([[ref[int(x)] for x in row] for row in seqs.tolist()], dtype=got.dtype)
            worst = max(worst, float(((got - want).abs() / (1 + want.abs())).max()))
    assert worst < 1e-12


def test_logit_slope_and_offset_reduce_to_eq3_at_a_zero():
    assert sp.expand(_MA.A.subs(S.a, 0) - _M.A) == 0
    assert sp.expand(_MA.z0.subs(S.a, 0) - _M.z0) == 0


def test_optimal_bias_minimises_the_raw_loss_on_both_signs_of_the_gain():
    """b* of Lemma 13 against a root of dL/db of the loss compiled directly from Eq. 41 (not via F(A, c))."""
    L4 = compile_mp(_MA.loss_with_bias, (S.p, S.q, S.e, S.w, S.a, S.b))
    for (pp, qq), neg in ((P9, False), (P1, True), ((Fraction(1, 5), Fraction(7, 10)), True)):
        e, w, a, _ = _rand_points(1, 11 + neg, negative_gain=neg)[0]
        with mp.workdps(70):
            args = [mpf_exact(x) for x in (pp, qq, e, w, a)]
            root = mp.findroot(lambda bb: mp.diff(lambda t: L4(*args, t), bb), mp.mpf(0))
            lam = Landscape(pp, qq, attention=True)
            assert abs(lam.b_star((e, w, a)) - root) < mp.mpf(10) ** -45
            assert abs(lam.loss((e, w, a)) - L4(*args, root)) < mp.mpf(10) ** -45


def test_reduced_gradient_and_hessian_match_finite_differences():
    lam = Landscape(*P9, attention=True)
    e, w, a, _ = _rand_points(1, 3)[0]
    with mp.workdps(60):
        pt = [mpf_exact(x) for x in (e, w, a)]
        g, H = lam.grad(pt), lam.hessian(pt)
        for i in range(3):
            d = [0, 0, 0]
            d[i] = 1
            num = mp.diff(lambda h: lam.loss([x + h * y for x, y in zip(pt, d)]), 0)
            assert abs(num - g[i]) < mp.mpf(10) ** -40
            numH = mp.diff(lambda h: lam.grad([x + h * y for x, y in zip(pt, d)])[i], 0)
            assert abs(numH - H[i][i]) < mp.mpf(10) ** -40


def test_gradient_with_bias_matches_finite_differences_across_the_gain_sign():
    for neg in (False, True):
        lam = Landscape(*P1, attention=True)
        e, w, a, b = _rand_points(1, 5 + neg, negative_gain=neg)[0]
        with mp.workdps(60):
            pt = [mpf_exact(x) for x in (e, w, a, b)]
            g = lam.grad_b(pt[:3], pt[3])
            for i in range(4):
                num = mp.diff(lambda h: lam.loss_b([x + (h if j == i else 0) for j, x in enumerate(pt)][:3], [x + (h if j == i else 0) for j, x in enumerate(pt)][3]), 0)
                assert abs(num - g[i]) < mp.mpf(10) ** -40


def test_energy_is_integrated_from_the_flow_and_orthogonal_to_the_gradient():
    E = _MA.energy
    recon = S.e**2 - 2 * S.a**2 - (S.w**2 + sp.sign(S.w) * sp.log(sp.Abs(S.w)))
    for sub in _MA.branches.values():
        assert sp.expand(sp.expand_log((E - recon).subs(sub), force=True)) == 0
        dot = (_MA.grad_energy.T * _MA.grad_A)[0, 0].subs(sub)
        assert sp.expand(dot) == 0
    # negative control: the R^2 energy (no -2a^2) is not conserved
    wrong = S.e**2 - (S.w**2 + sp.sign(S.w) * sp.log(sp.Abs(S.w)))
    gw = sp.Matrix([sp.diff(wrong, v) for v in _MA.params])
    assert sp.expand((gw.T * _MA.grad_A)[0, 0].subs(_MA.branches["w>0"])) != 0


def test_grad_A_vanishes_exactly_on_the_solved_station_family():
    fams = [f for f in _MA.grad_A_zeros if f.get("e") != 0]
    assert fams and all(sp.simplify(f["w"] + 1 / sp.sqrt(2)) == 0 and sp.expand(f["a"] * S.e**2 + 1) == 0 for f in fams)


def test_theta_station_is_a_strict_saddle_with_the_derived_eigenvalues():
    res = _MA.station_hessian
    es = sp.Symbol("e", positive=True)
    for pp, qq in (P9, P1):
        with mp.workdps(60):
            ee = mp.mpf(3) / 4
            th = [ee, -1 / mp.sqrt(2), -1 / ee**2]
            H = mp.matrix(Landscape(pp, qq, attention=True).hessian(th))
            ev = sorted(mp.eigsy(H)[0])
            sub = {S.p: sp.Rational(pp), S.q: sp.Rational(qq), es: sp.Rational(3, 4)}
            want = sorted(mp.mpf(sp.N(l.subs(sub), 60)) for l in res["eigenvalues"])
            assert max(abs(x - y) for x, y in zip(ev, want)) < mp.mpf(10) ** -40
            assert ev[0] < 0 < ev[2]


def test_hessian_with_bias_is_undefined_on_the_kink_but_gradient_exists_at_station():
    lam = Landscape(*P9, attention=True)
    with mp.workdps(60):
        ee = mp.mpf(1) / 2
        th = [ee, -1 / mp.sqrt(2), -1 / ee**2]
        b0 = lam.b_star(th)
        assert lam.hessian_b(th, b0) is None
        g = lam.grad_b(th, b0)
        assert g is not None and max(abs(x) for x in g) < mp.mpf(10) ** -45
        # away from b*, the one-sided gradients differ on 1 + ae^2 = 0: no gradient there
        assert lam.grad_b(th, b0 + 1) is None


def test_eval_contract_at_a_zero_agrees_with_the_R2_evaluation():
    from local2global.numeric.evaluate.pointeval import evaluate_point
    e, w, b = Fraction(3, 7), Fraction(-2, 5), Fraction(1, 3)
    att = attention_point(*P9, e, w, 0, b=b, dps=30)
    ref = evaluate_point(*P9, e, w, b, dps=30)
    assert set(att) >= {"A", "b_star", "loss", "grad", "hessian", "critical", "loss_b", "grad_b", "hessian_b",
                        "critical_b", "dps"}
    assert len(att["grad"]) == 3 and len(att["grad_b"]) == 4 and len(att["hessian_b"]) == 4
    for key in ("A", "b_star", "loss", "loss_b"):
        assert abs(mp.mpf(att[key]) - mp.mpf(ref[key])) < mp.mpf(10) ** -27
    for i in range(2):
        assert abs(mp.mpf(att["grad"][i]) - mp.mpf(ref["grad"][i])) < mp.mpf(10) ** -27
    assert attention_point(*P9, 0, Fraction(1, 3), Fraction(1, 5), dps=30)["critical"] == "Theta_min"


def test_limit_classes_of_points_on_each_critical_set():
    with mp.workdps(40):
        tol = dict(tol_e=mp.mpf(10) ** -30, tol_sad=mp.mpf(10) ** -30, tol_A=mp.mpf(10) ** -30)
        f9, f1 = ReducedFlow(*P9, attention=True), ReducedFlow(*P1, attention=True)
        ee = mp.mpf(1) / 2
        assert nb.critical_class(f9, (ee, -1 / mp.sqrt(2), -1 / ee**2), **tol) == "station"
        assert nb.critical_class(f9, (mp.mpf(0), mp.mpf(1) / 3, mp.mpf(0)), **tol) == "local_min"
        assert nb.critical_class(f1, (mp.mpf(0), mp.mpf(1) / 3, mp.mpf(0)), **tol) == "local_max"
        assert nb.critical_class(f9, (mp.mpf(0), -1 / mp.sqrt(2), mp.mpf(1)), **tol) == "saddle"
        Ast = f9.A_star()
        w0 = mp.mpf(-2)
        e0 = mp.sqrt(Ast / (1 + 2 * w0 * abs(w0)))
        assert nb.critical_class(f9, (e0, w0, mp.mpf(0)), **tol) == "global_min"


def test_energy_is_conserved_along_an_attention_flow_at_50_digits():
    rep = nb.attention_flow(NumericChain(*P9), 1, -1, Fraction(1, 2), dps=50)
    assert rep["integrated"]["class"] == "global_min"
    assert mp.mpf(rep["energy_drift"]) < mp.mpf(10) ** -30
    assert abs(mp.mpf(rep["energy_limit"]["value"][0]) - mp.mpf(rep["energy0"]["value"][0])) < mp.mpf(10) ** -30


def test_flow_started_on_theta_station_is_classified_station():
    with mp.workdps(50):
        ee = mp.mpf(1) / 2
        th = (ee, -1 / mp.sqrt(2), -1 / ee**2)
        rep = nb.attention_flow(NumericChain(*P9), *th, dps=30)
    assert rep["integrated"]["class"] == "station"


def test_small_gaussian_starts_end_in_local_minima_only_for_p_plus_q_above_one():
    up = nb.gaussian_fractions(*P9, Fraction(1, 20), n=3, seed=1, dps=15)
    down = nb.gaussian_fractions(*P1, Fraction(1, 20), n=3, seed=1, dps=15)
    assert up["counts"] == {"local_min": 3}
    assert down["counts"].get("local_min", 0) == 0
    lo, hi = up["local_min_ci95"]
    assert lo < 1 <= hi


def test_basin_boundary_bisection_brackets_a_class_change():
    r = nb.bisect_boundary(*P9, (Fraction(1, 2), 1, 0), (2, 1, 0), digits=1, dps=15)
    assert r["width"] < mp.mpf(10) ** -1
    assert r["classes_inside"] == ["local_min"] and "local_min" not in r["classes_outside"]


def test_attention_claims_pass_and_their_negative_controls_are_rejected(claim_records):
    from local2global.proofs import select
    claims = [c for c in select() if c.section == "attention"]
    assert len(claims) >= 16
    for c in claims:
        rec = claim_records[c.id]           # the session's run of every claim (run_claim, Context())
        assert rec.own_status in ("proved", "certified", "sampled", "erratum"), (c.id, rec.evidence)
        assert rec.control.startswith("rejected"), (c.id, rec.control)
    station = [c for c in claims if c.id == "thm10.station_class"][0]
    assert station.printed()["Theta_station"] == "saddle"


def test_basin_slice_cache_is_reused_and_never_used_corrupted_or_stale(tmp_path, monkeypatch):
    from local2global.proofs.outputs.figures import fig_attention as FA

    monkeypatch.setenv("L2G_CACHE", str(tmp_path))
    calls = []
    real = FA.nbasins.basin_slice
    monkeypatch.setattr(FA.nbasins, "basin_slice", lambda *a, **k: calls.append(1) or real(*a, **k))
    first = FA.slice_grid(Fraction(9, 10), Fraction(9, 10), "a", 0, n=3)
    assert FA.slice_grid(Fraction(9, 10), Fraction(9, 10), "a", 0, n=3) == first and len(calls) == 1
    (path,) = (tmp_path / "attention").glob("*.json")
    path.write_text(path.read_text().replace("local_min", "global_min", 1))     # edited: digest fails
    assert FA.slice_grid(Fraction(9, 10), Fraction(9, 10), "a", 0, n=3) == first and len(calls) == 2
    path.write_text(path.read_text()[:40])                                         # truncated
    assert FA.slice_grid(Fraction(9, 10), Fraction(9, 10), "a", 0, n=3) == first and len(calls) == 3
    monkeypatch.setattr(FA, "_code_hash", lambda: "other code")                   # stale
    assert FA.slice_grid(Fraction(9, 10), Fraction(9, 10), "a", 0, n=3) == first and len(calls) == 4
