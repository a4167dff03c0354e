"""`l2g eval` against an independent witness: the loss built directly from the chain's definition
and minimised over b numerically (bisection bracket + mpmath findroot on dL/db), never the closed
form of Lemma 5 nor numeric/landscape.py; gradients against mpmath numerical differentiation."""
from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction

import mpmath as mp
import pytest

from local2global.cli import main

WITNESS_DPS = 90


def _chain(p, q):
    pi = (q / (p + q), p / (p + q))
    P = ((1 - p, p), (q, 1 - q))
    return pi, P


def direct_loss(p, q, e, w, b):
    """L(e, w, b) = -E[Y log sigma(z_X) + (1-Y) log(1-sigma(z_X))], (X, Y) ~ (pi, P)."""
    pi, P = _chain(p, q)
    tot = mp.mpf(0)
    for x in (0, 1):
        z = e**2 * (1 + 2 * w * abs(w)) * x + b - e**2 / 2
        # -log sigma(z) = log(1+exp(-z)), -log(1-sigma(z)) = log(1+exp(z))
        tot += pi[x] * (P[x][1] * mp.log1p(mp.exp(-z)) + P[x][0] * mp.log1p(mp.exp(z)))
    return tot


def direct_dloss_db(p, q, e, w, b):
    """dL/db = E[sigma(z_X) - Y] = pi0 sigma(z0) + pi1 sigma(z1) - pi1, written as pi0 sigma(z0) - pi1 sigma(-z1).

    The rearrangement (pi1 = pi1 sigma(z1) + pi1 sigma(-z1)) avoids the cancellation of the plain sum,
    which for |A| = 1e4 lies on a plateau where dL/db is of size exp(-|A|/2).
    """
    pi, _ = _chain(p, q)
    A = e**2 * (1 + 2 * w * abs(w))
    z0, z1 = b - e**2 / 2, A + b - e**2 / 2
    return pi[0] / (1 + mp.exp(-z0)) - pi[1] / (1 + mp.exp(z1))


def minimise_over_b(p, q, e, w):
    """argmin_b L(e, w, b): dL/db is increasing (L convex in b); bracket, bisect, then findroot."""
    f = lambda bb: direct_dloss_db(p, q, e, w, bb)
    lo, hi = mp.mpf(-1), mp.mpf(1)
    while f(lo) > 0:
        lo *= 2
    while f(hi) < 0:
        hi *= 2
    for _ in range(60):                     # narrow the bracket before the superlinear solver
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if f(mid) < 0 else (lo, mid)
    return mp.findroot(f, (lo, hi), solver="anderson")


def reduced_loss(p, q, e, w):
    return direct_loss(p, q, e, w, minimise_over_b(p, q, e, w))


def eval_json(capsys, *argv):
    assert main(["eval", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def digits(ours: str, ref, scale=None) -> float:
    """Number of agreeing significant digits, relative to |ref| (or to `scale`)."""
    a = mp.mpf(ours)
    s = abs(ref) if scale is None else scale
    err = abs(a - ref)
    if err == 0:
        return float("inf")
    return float(-mp.log10(err / s))


# (p, q, e, w): p != q, p+q below and above 1, extreme chains, |A| = 1e4 of both signs
CASES = [
    ("0.2", "0.3", "1", "0.5"),          # p+q < 1
    ("0.7", "0.6", "0.8", "-1.2"),       # p+q > 1, w < -1/sqrt2
    ("0.01", "0.02", "1.5", "0.3"),      # extreme, p+q << 1
    ("0.97", "0.99", "0.5", "-0.9"),     # extreme, p+q ~ 2
    ("0.3", "0.6", "100", "0"),          # A = +1e4
    ("0.6", "0.8", "100", "-1"),         # A = -1e4 (w < -1/sqrt2)
]


@pytest.mark.parametrize("p,q,e,w", CASES)
def test_eval_agrees_with_independent_minimisation_over_b(capsys, p, q, e, w):
    res = eval_json(capsys, "--p", p, "--q", q, "--e", e, "--w", w, "--dps", "50")
    with mp.workdps(WITNESS_DPS):
        P, Q, E, W = (mp.mpf(Fraction(x).numerator) / Fraction(x).denominator for x in (p, q, e, w))
        b_min = minimise_over_b(P, Q, E, W)
        L_min = direct_loss(P, Q, E, W, b_min)
        A = E**2 * (1 + 2 * W * abs(W))
        assert digits(res["A"], A) >= 40
        assert digits(res["b_star"], b_min, scale=max(abs(b_min), 1)) >= 40
        assert digits(res["loss"], L_min) >= 40
        # reduced gradient vs numerical differentiation of the independently minimised loss
        g = [mp.diff(lambda x: reduced_loss(P, Q, x, W), E), mp.diff(lambda x: reduced_loss(P, Q, E, x), W)]
        scale = max(abs(g[0]), abs(g[1]))
        for ours, ref in zip(res["grad"], g):
            assert digits(ours, ref, scale=scale) >= 40


def test_eval_with_bias_agrees_with_direct_loss_and_its_derivatives(capsys):
    p, q, e, w, b = "0.2", "0.3", "0.9", "-0.4", "0.25"
    res = eval_json(capsys, "--p", p, "--q", q, "--e", e, "--w", w, "--b", b, "--dps", "50")
    with mp.workdps(WITNESS_DPS):
        P, Q, E, W, B = (mp.mpf(Fraction(x).numerator) / Fraction(x).denominator for x in (p, q, e, w, b))
        L = lambda x, y, z: direct_loss(P, Q, x, y, z)
        assert digits(res["loss_b"], L(E, W, B)) >= 40
        g = [mp.diff(L, (E, W, B), n) for n in ((1, 0, 0), (0, 1, 0), (0, 0, 1))]
        scale = max(abs(x) for x in g)
        assert all(digits(o, r, scale=scale) >= 40 for o, r in zip(res["grad_b"], g))
        orders = {(0, 0): (2, 0, 0), (0, 1): (1, 1, 0), (0, 2): (1, 0, 1), (1, 1): (0, 2, 0), (1, 2): (0, 1, 1),
                  (2, 2): (0, 0, 2)}
        H = {k: mp.diff(L, (E, W, B), n) for k, n in orders.items()}
        scale = max(abs(x) for x in H.values())
        for (i, j), ref in H.items():
            assert digits(res["hessian_b"][i][j], ref, scale=scale) >= 35
            assert res["hessian_b"][i][j] == res["hessian_b"][j][i]


def test_point_on_global_minimum_set_is_reported_and_is_stationary(capsys):
    p, q, w = "0.2", "0.3", "0.5"
    with mp.workdps(WITNESS_DPS):
        P, Q, W = mp.mpf(1) / 5, mp.mpf(3) / 10, mp.mpf(1) / 2
        # e on Theta*: minimise the reduced loss along e independently (no closed form of A*)
        e_star = mp.findroot(lambda x: mp.diff(lambda y: reduced_loss(P, Q, y, W), x), mp.mpf(1))
        e_text = mp.nstr(e_star, 80)
    res = eval_json(capsys, "--p", p, "--q", q, "--e", e_text, "--w", w, "--dps", "40")
    assert res["critical"] == "Theta_star"
    assert all(abs(mp.mpf(g)) < mp.mpf(10) ** -35 for g in res["grad"])


def test_axis_points_are_classified_by_an_independent_local_comparison(capsys):
    # p+q > 1, w > 0: the e-axis is a local minimum of the reduced loss; w < -1/sqrt2 flips it
    for w, expected in (("0.5", "Theta_min"), ("-1", "Theta_max")):
        res = eval_json(capsys, "--p", "0.7", "--q", "0.6", "--e", "0", "--w", w, "--dps", "30")
        assert res["critical"] == expected
        with mp.workdps(40):
            P, Q, W = mp.mpf(7) / 10, mp.mpf(6) / 10, mp.mpf(Fraction(w).numerator) / Fraction(w).denominator
            L0 = reduced_loss(P, Q, mp.mpf(0), W)
            Lh = reduced_loss(P, Q, mp.mpf(1) / 100, W)
            assert (Lh > L0) == (expected == "Theta_min")


def test_p_plus_q_equal_one_is_computed_and_flagged(capsys):
    res = eval_json(capsys, "--p", "0.4", "--q", "0.6", "--e", "0", "--w", "0.3", "--b", "0.1", "--dps", "20")
    assert "p + q != 1" in res["note"]
    assert res["critical"] == "degenerate"
    assert res["critical_b"] is None          # b = 0.1 is not the optimal bias
    with mp.workdps(40):
        assert digits(res["loss"], reduced_loss(mp.mpf(2) / 5, mp.mpf(3) / 5, mp.mpf(0), mp.mpf(3) / 10)) >= 18


def test_json_keys_and_precision_are_the_contract(capsys):
    res = eval_json(capsys, "--p", "1/5", "--q", "0.3", "--e", "1", "--w", "1/2", "--b", "0", "--dps", "30")
    for key in ("A", "b_star", "loss", "grad", "hessian", "loss_b", "grad_b", "hessian_b", "critical"):
        assert key in res
    assert len(res["grad"]) == 2 and len(res["grad_b"]) == 3
    assert [len(r) for r in res["hessian"]] == [2, 2] and [len(r) for r in res["hessian_b"]] == [3, 3, 3]
    assert len(res["loss"].lstrip("0.").replace(".", "")) >= 29     # carries the requested digits


@pytest.mark.slow
def test_python_dash_m_runs_eval():
    out = subprocess.run([sys.executable, "-m", "local2global", "eval", "--p", "0.2", "--q", "0.3", "--e", "1",
                          "--w", "0.5", "--dps", "20", "--json"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["A"] == "1.5"


def test_bias_critical_sets_are_reported_at_independently_located_points(capsys):
    P, Q = "0.7", "0.6"                     # p+q > 1
    with mp.workdps(WITNESS_DPS):
        p, q = mp.mpf(7) / 10, mp.mpf(6) / 10
        b_axis = mp.nstr(minimise_over_b(p, q, mp.mpf(0), mp.mpf(1) / 2), 80)
        sad_w = mp.nstr(-1 / mp.sqrt(2), 80)
        # a point of Gamma*: minimise the reduced loss along e at w = -1 (A < 0 there, as p+q > 1 needs)
        W = mp.mpf(-1)
        e_star = mp.findroot(lambda x: mp.diff(lambda y: reduced_loss(p, q, y, W), x), mp.mpf(1))
        b_star = minimise_over_b(p, q, e_star, W)
        e_text, b_text = mp.nstr(e_star, 80), mp.nstr(b_star, 80)
    res = eval_json(capsys, "--p", P, "--q", Q, "--e", "0", "--w", "0.5", "--b", b_axis, "--dps", "40")
    assert (res["critical"], res["critical_b"]) == ("Theta_min", "Gamma_min")
    res = eval_json(capsys, "--p", P, "--q", Q, "--e", "0", "--w", "-1", "--b", b_axis, "--dps", "40")
    assert (res["critical"], res["critical_b"]) == ("Theta_max", "Gamma_sad")
    res = eval_json(capsys, "--p", P, "--q", Q, "--e", "0", "--w", sad_w, "--dps", "40")
    assert res["critical"] == "Theta_sad"
    res = eval_json(capsys, "--p", P, "--q", Q, "--e", e_text, "--w", "-1", "--b", b_text, "--dps", "40")
    assert (res["critical"], res["critical_b"]) == ("Theta_star", "Gamma_star")
    res = eval_json(capsys, "--p", P, "--q", Q, "--e", e_text, "--w", "-1", "--b", "0", "--dps", "40")
    assert (res["critical"], res["critical_b"]) == ("Theta_star", None)


def test_reduced_hessian_agrees_with_second_differences_of_the_minimised_loss(capsys):
    res = eval_json(capsys, "--p", "0.01", "--q", "0.02", "--e", "1.5", "--w", "-0.3", "--dps", "50")
    with mp.workdps(WITNESS_DPS):
        P, Q, E, W = mp.mpf(1) / 100, mp.mpf(2) / 100, mp.mpf(3) / 2, -mp.mpf(3) / 10
        R = lambda x, y: reduced_loss(P, Q, x, y)
        H = [[mp.diff(R, (E, W), (2, 0)), mp.diff(R, (E, W), (1, 1))],
             [mp.diff(R, (E, W), (1, 1)), mp.diff(R, (E, W), (0, 2))]]
        scale = max(abs(x) for row in H for x in row)
        for i in range(2):
            for j in range(2):
                assert digits(res["hessian"][i][j], H[i][j], scale=scale) >= 40
