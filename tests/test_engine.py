"""The float64 engine (numeric/engine.py) held against the derived expressions through the mpmath path.

Error measure (stated once, used for every quantity): err(x) = |x - x_ref| / max(|x_ref|, S_x), where
x_ref is `Landscape(p, q).at(e, w)` (mpmath, exact float inputs, 25 digits) and S_x is the scale of
the terms float64 must add to form x, plus the first-order effect of rounding the slope A to float64
(the input conditioning; A = e^2(1+2w|w|) itself cancels near w = -1/sqrt 2):
  A and L: plain relative error (S = 0);  S_A = e^2 (1 + 2 w^2) enters below;
  b* = c* + e^2/2:  S = |c*| + e^2/2  (b* = 0 exactly when p = q and w = 0: only the terms set a scale);
  S_G' = pi1 min(max(s1, P11), max(1-s1, q)) + G'' S_A     (G' = pi1 (s1 - P11), s1 = sigma(A + c*))
  grad_i:   S = S_G' * a_i,  with a_e = 2|e|(1 + 2w^2), a_w = 4 e^2 |w|  (|d_i A| without cancellation)
  hess_ij:  S = G''(1 + S_A) a_i a_j + S_G' h_ij, with h = [[2(1+2w^2), 8|e w|], [8|e w|, 4 e^2]]
So a gradient entry that is not near a zero of G' is held to plain relative error, and one at
A ~ A* (where G' = 0 and the relative error is meaningless) to 1e-12 of its terms.
"""
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest
import sympy as sp

from local2global.numeric import Landscape
from local2global.numeric.evaluate import engine as E
from local2global.numeric.evaluate.lambdify import mpf_exact
from local2global.symbolic import symbols as S
from local2global.symbolic.model import canonical_model

_M = canonical_model()

TOL = 1e-12
EDGE = (1e-6, 0.3, 1 - 1e-6)
A_VALUES = (0.0, 1e-9, 1e-3, 0.5, 3.0, 37.0, 40.0, 200.0, 700.0, 709.9, 710.5, 745.5, 800.0, 3000.0, 1e4)
W_VALUES = (-1.9, -0.7, -0.1, 0.0, 0.3, 1.4)


def _points():
    """Grid over edge (p, q), |A| up to 1e4 with both signs, several w; then random points."""
    pts = []
    for p in EDGE:
        for q in EDGE:
            for k, A in enumerate(A_VALUES):
                for sgn in (1.0, -1.0):
                    w = W_VALUES[(k + (sgn > 0)) % len(W_VALUES)]
                    m = 1 + 2 * w * abs(w)
                    if A != 0 and np.sign(m) != sgn:
                        w = -w if w != 0 else 0.3
                        m = 1 + 2 * w * abs(w)
                    e = float(np.sqrt(A / abs(m))) * (-1) ** k
                    pts.append((p, q, e, w))
    rng = np.random.default_rng(20240603)
    for _ in range(150):
        p, q = (float(x) for x in np.clip(rng.uniform(-6, 0, 2), -6, np.log10(1 - 1e-6)))
        p, q = 10**p, 10**q
        if rng.random() < 0.5:
            p = 1 - p if p < 1 - 1e-6 else p
        p, q = min(max(p, 1e-6), 1 - 1e-6), min(max(q, 1e-6), 1 - 1e-6)
        A = float(rng.choice([-1, 1]) * 10 ** rng.uniform(-4, 4))
        w = float(rng.uniform(-2, 2))
        m = 1 + 2 * w * abs(w)
        if np.sign(m) != np.sign(A):
            A = -A
        e = float(np.sqrt(A / m)) * float(rng.choice([-1, 1]))
        pts.append((p, q, e, w))
    return pts


def _reference(p, q, e, w):
    """mpmath values at the exact binary inputs, with the scales S_x of the module docstring."""
    L = Landscape(Fraction(p), Fraction(q))
    v = L.at((Fraction(e), Fraction(w)), dps=25)
    with mp.workdps(40):
        A = v.A
        _, G1, G2, c = L.G_parts(A)
        pi1 = mpf_exact(Fraction(p)) / (mpf_exact(Fraction(p)) + mpf_exact(Fraction(q)))
        qq = mpf_exact(Fraction(q))
        s1 = 1 / (1 + mp.exp(-(A + c)))
        SA = float(e * e * (1 + 2 * w * w))
        SG1 = float(pi1 * min(max(s1, 1 - qq), max(1 - s1, qq))) + float(G2) * SA
    a = (2 * abs(e) * (1 + 2 * w * w), 4 * e * e * abs(w))
    h = ((2 * (1 + 2 * w * w), 8 * abs(e * w)), (8 * abs(e * w), 4 * e * e))
    ref = {"A": (float(v.A), 0.0), "b_star": (float(v.b_star), float(abs(c)) + e * e / 2), "loss": (float(v.loss), 0.0)}
    for i in range(2):
        ref[f"grad[{i}]"] = (float(v.grad[i]), SG1 * a[i])
        for j in range(2):
            ref[f"hess[{i},{j}]"] = (float(v.hessian[i][j]), float(G2) * (1 + SA) * a[i] * a[j] + SG1 * h[i][j])
    return ref


@pytest.fixture(scope="module")
def accuracy_table():
    pts = _points()
    worst = {}
    for p, q, e, w in pts:
        v = E.evaluate(p, q, e, w)
        got = {"A": v.A, "b_star": v.b_star, "loss": v.loss}
        for i in range(2):
            got[f"grad[{i}]"] = v.grad[i]
            for j in range(2):
                got[f"hess[{i},{j}]"] = v.hessian[i, j]
        for key, (r, scale) in _reference(p, q, e, w).items():
            x = float(got[key])
            err = 0.0 if x == r else abs(x - r) / max(abs(r), scale, 1e-300)
            if err > worst.get(key, (-1.0,))[0]:
                worst[key] = (err, (p, q, e, w))
    return len(pts), worst


def test_engine_matches_mpmath_path_to_1e12_over_the_whole_range(accuracy_table):
    n, worst = accuracy_table
    assert n > 400
    bad = {k: v for k, v in worst.items() if not v[0] <= TOL}
    assert not bad, f"max errors above {TOL}: {bad}"


def test_engine_values_are_finite_at_overflow_and_underflow_of_exp_A():
    # e^A overflows for A > 709.78 and underflows for A < -745.13: the log-space root must not care
    for p, q in ((0.2, 0.9), (0.9, 0.2), (0.5, 0.5)):
        for A in (-1e4, -746.0, -745.0, 709.0, 710.0, 1e4):
            e = np.sqrt(abs(A))
            w = 0.0 if A > 0 else -1.0
            v = E.evaluate(p, q, e, w)
            assert np.isfinite([v.A, v.b_star, v.loss]).all() and np.isfinite(v.grad).all() and np.isfinite(v.hessian).all()


def test_fast_loss_and_gradient_agree_with_the_full_evaluation():
    rng = np.random.default_rng(1)
    e, w = rng.uniform(-3, 3, 2000), rng.uniform(-2, 2, 2000)
    for p, q in ((0.9, 0.8), (0.1, 0.3), (1e-6, 1 - 1e-6)):
        v = E.evaluate(p, q, e, w)
        G, ge, gw = E.loss_and_grad(p, q, e, w)
        assert np.array_equal(G, v.loss)
        np.testing.assert_allclose(np.stack([ge, gw], -1), v.grad, rtol=1e-15, atol=0)


def test_blocked_fast_path_is_bitwise_independent_of_the_blocking():
    rng = np.random.default_rng(4)
    e, w = rng.uniform(-40, 40, 3 * E._BLOCK + 17), rng.uniform(-2, 2, 3 * E._BLOCK + 17)
    whole = E.loss_and_grad(0.3, 0.6, e, w)
    pieces = [E.loss_and_grad(0.3, 0.6, e[i:i + 1000], w[i:i + 1000]) for i in range(0, e.size, 1000)]
    for k in range(3):
        assert np.concatenate([pc[k] for pc in pieces]).tobytes() == whole[k].tobytes()


def test_slope_is_the_lambdified_derivation():
    rng = np.random.default_rng(2)
    e, w = rng.uniform(-3, 3, 50), rng.uniform(-2, 2, 50)
    Aexpr = sp.lambdify((S.e, S.w), _M.A, "mpmath")
    for ei, wi, Ai in zip(e, w, E.slope_A(e, w)):
        assert abs(Ai - float(Aexpr(mp.mpf(ei), mp.mpf(wi)))) <= 4e-16 * ei * ei * (1 + 2 * wi * wi)


def test_energy_matches_the_energy_expression_up_to_a_constant():
    f = sp.lambdify((S.e, S.w), _M.energy, "mpmath")      # the derived energy (symbolic/model.py)
    rng = np.random.default_rng(3)
    e, w = rng.uniform(-3, 3, 200), rng.uniform(-3, 3, 200)
    got = E.energy(e, w)
    with mp.workdps(30):
        ref = np.array([float(f(mp.mpf(a), mp.mpf(b))) for a, b in zip(e, w)])
    # an energy is defined up to an additive constant on each side of w = 0
    for side in (w > 0, w < 0):
        shift = ref[side] - got[side]
        assert np.ptp(shift) <= 1e-13 * (1 + np.abs(ref[side]).max())
    assert np.isnan(E.energy(1.0, 0.0))


def test_engine_rejects_p_or_q_outside_the_open_unit_interval():
    for p, q in ((0.0, 0.5), (1.0, 0.5), (0.5, float("nan")), (-0.1, 0.2)):
        with pytest.raises(ValueError):
            E.evaluate(p, q, 1.0, 1.0)
