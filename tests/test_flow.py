"""Gradient flow in R^2: the derived energy, the generic integrator, the R^2 gradient and `l2g flow`."""
from __future__ import annotations

import json
import random
from fractions import Fraction

import mpmath as mp
import pytest
import sympy as sp

from local2global.numeric.chain import NumericChain
from local2global.cli import main
from local2global.numeric.dynamics.flow import ReducedFlow, integrate
from local2global.numeric.evaluate.landscape import Landscape
from local2global.symbolic import symbols as S
from local2global.symbolic import energy as senergy

P9 = (Fraction(9, 10), Fraction(9, 10))
P1 = (Fraction(1, 10), Fraction(1, 10))


def test_energy_is_the_first_integral_of_the_trajectory_ode():
    r = senergy.derive_energy()
    # an independent route: sp.dsolve of the trajectory ODE de/dw = (dA/de)/(dA/dw); E is constant on its solutions
    from local2global.symbolic.model import canonical_model
    A = canonical_model().A
    for lab, wb in senergy.HALF_PLANES.items():
        ratio = sp.cancel((sp.diff(A, S.e) / sp.diff(A, S.w)).subs(S.w, wb))
        ef = sp.Function("e_of_w")
        sols = sp.dsolve(sp.Eq(ef(wb).diff(wb), ratio.subs(S.e, ef(wb))), ef(wb), hint="separable")
        for sol in (sols if isinstance(sols, list) else [sols]):
            assert sp.cancel(sp.expand(sp.diff(r[f"E_{lab}"].subs(S.e, sol.rhs), wb))) == 0
    c = senergy.conservation()
    assert c["gradE_dot_gradA_w>0"] == 0 and c["gradE_dot_gradA_w<0"] == 0
    # E is real on both half-planes (log|w|, not log w + i*pi on w < 0)
    assert r["E_w<0"].is_real and r["E_w>0"].is_real


def test_e_axis_is_an_energy_barrier_and_invariant():
    c = senergy.conservation()
    assert c["E_limit_w_to_0-"] == -sp.oo and c["E_limit_w_to_0+"] == sp.oo
    assert c["dA_dw_at_w0"] == 0 and c["dA_de_at_e0"] == 0


def test_energy_on_w_axis_has_its_maximum_E_sad_only_at_the_saddle():
    r = senergy.energy_on_w_axis()
    assert sp.simplify(r["w_sad"] + 1 / sp.sqrt(2)) == 0
    assert sp.expand(r["E_sad_minus_f_in_t"] - r["t_minus_1_minus_log_t_over_2"]) == 0
    assert senergy.saddle_asymptotes()["g_squared_minus_gap"] == 0


def test_flow_gradient_matches_landscape_gradient_to_45_digits():
    rng = random.Random(3)
    for p, q in (P9, P1, (Fraction(1, 5), Fraction(7, 10))):
        fl, land = ReducedFlow(p, q), Landscape(p, q)
        for _ in range(4):
            th = (Fraction(rng.randint(-200, 200), 100), Fraction(rng.randint(-200, 200), 100))
            ref = land.at(th, dps=50).grad
            with mp.workdps(60):
                got = fl.grad([mp.mpf(th[0].numerator) / th[0].denominator, mp.mpf(th[1].numerator) / th[1].denominator])
                assert max(abs(a - b) for a, b in zip(got, ref)) < mp.mpf(10) ** -45 * (1 + max(abs(x) for x in ref))


def test_generic_integrator_matches_exact_solution_in_three_dimensions():
    # dθ/dt = -Λθ with Λ = diag(1, 2, 3): θ(1) = θ0 exp(-Λ)
    lam = (1, 2, 3)
    res = integrate(lambda y: [l * x for l, x in zip(lam, y)], (1, Fraction(1, 2), -2), dps=40, t_max=1,
                    rtol=mp.mpf(10) ** -30)
    with mp.workdps(50):
        # integrate stops at the first step past t_max: compare with the exact solution at the reached t
        exact = [x0 * mp.exp(-l * res.t) for l, x0 in zip(lam, (mp.mpf(1), mp.mpf(1) / 2, mp.mpf(-2)))]
        assert max(abs(a - b) for a, b in zip(res.theta, exact)) < mp.mpf(10) ** -25
    assert res.status == "t_max"


def test_generic_integrator_detects_the_limit_by_gradient_norm():
    res = integrate(lambda y: [x for x in y], (Fraction(1, 3), Fraction(-1, 7)), dps=30)
    assert res.status == "converged_gradient" and res.grad_norm <= mp.mpf(10) ** -25


def test_energy_is_conserved_along_gradient_flow():
    fl = ReducedFlow(*P9)
    res = fl.run((Fraction(1, 2), Fraction(-1, 2)), dps=30, project=False, t_max=2)
    assert res.energy_drift < mp.mpf(10) ** -12
    # negative control: a wrong "energy" (coefficient 2 on e^2) is not conserved by the same flow
    wrong = sp.lambdify((S.e, S.w), 2 * S.e**2 - S.w**2 + sp.log(-S.w), "mpmath")
    res2 = integrate(fl.grad, (Fraction(1, 2), Fraction(-1, 2)), dps=30, energy_fn=lambda y: wrong(*y), t_max=2)
    assert res2.energy_drift > mp.mpf(10) ** -3


def test_e_axis_start_stays_on_the_e_axis_and_reaches_the_origin_for_p_plus_q_above_one():
    res = ReducedFlow(*P9).run((Fraction(1, 2), Fraction(0)), dps=30)
    assert res.theta[1] == 0 and res.converged and abs(res.theta[0]) < mp.mpf(10) ** -10


def test_critical_start_on_theta_max_is_stationary():
    res = ReducedFlow(*P9).run((Fraction(0), Fraction(-1)), dps=30)
    assert res.status == "stationary" and res.t == 0


def test_loss_decreases_along_the_integrated_flow():
    res = ReducedFlow(*P1).run((Fraction(1, 2), Fraction(-1, 2)), dps=20, loss=True)
    assert res.loss_monotone is True and res.converged


def _run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_l2g_flow_json_contract_and_agreement(capsys):
    code, out, err = _run(["flow", "--p", "0.9", "--q", "0.9", "--e0", "0.5", "--w0", "-0.5", "--dps", "20", "--json"], capsys)
    assert code == 0
    rep = json.loads(out)
    assert rep["predicted"]["class"] == "global_min" and rep["integrated"]["class"] == "global_min"
    assert rep["agree"] is True
    assert all(isinstance(x, str) for x in rep["predicted"]["limit"] + rep["integrated"]["limit"])
    assert rep["predicted"]["error_kind"] == "bound" and rep["integrated"]["error_kind"] == "estimate"
    assert set(rep["integrated"]) >= {"class", "limit", "t"} and "energy_drift" in rep


def test_l2g_flow_handles_a_start_on_the_e_axis(capsys):
    code, out, _ = _run(["flow", "--p", "1/10", "--q", "1/10", "--e0", "1/2", "--w0", "0", "--dps", "20", "--json"], capsys)
    rep = json.loads(out)
    assert code == 0 and rep["agree"] is True and rep["energy_drift"] == "undefined"
    assert rep["predicted"]["class"] == "global_min"


@pytest.mark.parametrize("argv", [
    ["--p", "nan", "--q", "0.9", "--e0", "1", "--w0", "1"],
    ["--p", "0.9", "--q", "1.2", "--e0", "1", "--w0", "1"],
    ["--p", "0.9", "--q", "0.9", "--e0", "inf", "--w0", "1"],
    ["--p", "0.9", "--q", "0.9", "--e0", "1", "--w0", "1", "--dps", "5"],
])
def test_l2g_flow_rejects_bad_numbers_with_one_line_and_exit_2(argv, capsys):
    code, out, err = _run(["flow"] + argv, capsys)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1


def test_l2g_flow_at_p_plus_q_one_predicts_a_global_minimum_on_the_w_axis(capsys):
    # p + q = 1: A* = 0, every critical point a global minimum; from w0 > 0 the contour runs to f(w) = E0 on e = 0
    code, out, _ = _run(["flow", "--p", "1/2", "--q", "1/2", "--e0", "1/2", "--w0", "1/2", "--dps", "15", "--json"], capsys)
    rep = json.loads(out)
    assert code == 0 and rep["basin"] == "p+q=1" and rep["agree"] is True
    assert rep["predicted"]["class"] == rep["integrated"]["class"] == "global_min"
    assert mp.mpf(rep["predicted"]["limit"][0]) == 0 and 0 < mp.mpf(rep["predicted"]["limit"][1]) < mp.mpf(1) / 2
    assert any("p + q = 1" in n for n in rep["notes"]) and "None" not in out and "null" not in out


def test_l2g_flow_at_p_plus_q_one_from_w0_below_zero_meets_the_line_w_equal_minus_one_over_sqrt2(capsys):
    code, out, _ = _run(["flow", "--p", "1/2", "--q", "1/2", "--e0", "2", "--w0", "-1", "--dps", "20", "--json"], capsys)
    rep = json.loads(out)
    assert code == 0 and rep["agree"] is True
    with mp.workdps(30):
        assert abs(mp.mpf(rep["predicted"]["limit"][1]) + 1 / mp.sqrt(2)) < mp.mpf(10) ** -18
        assert mp.mpf(rep["predicted"]["limit"][0]) > 1


@pytest.mark.parametrize("pq, th", [
    ((Fraction(9, 10), Fraction(9, 10)), (Fraction(1, 2), Fraction(3, 10))),
    ((Fraction(1, 10), Fraction(1, 10)), (Fraction(-1, 2), Fraction(-1, 2))),
    ((Fraction(3, 5), Fraction(4, 5)), (Fraction(1), Fraction(-1))),
    ((Fraction(1, 5), Fraction(3, 10)), (Fraction(3, 10), Fraction(1, 2))),
])
def test_integrated_trajectory_matches_an_independent_taylor_integrator(pq, th):
    # mpmath's odefun (Taylor series, its own step control) on the same vector field, at more digits:
    # our extrapolation method must agree at every accepted step to its tolerance 10^-(dps/2)
    dps = 25
    fl = ReducedFlow(*pq)
    res = fl.run(th, dps=dps, project=False, record=True, t_max=2)
    steps = [(t, y) for t, y in res.path[1:] if t <= 2]
    assert steps
    with mp.workdps(dps + 5):
        sol = mp.odefun(lambda t, y: [-g for g in fl.grad(y)], 0, [mp.mpf(x.numerator) / x.denominator for x in th])
        worst = max(max(abs(a - b) for a, b in zip(y, sol(t))) for t, y in steps)
    assert worst < mp.mpf(10) ** -(dps // 2)


def test_flow_report_agrees_with_its_prediction_on_starts_up_to_norm_5_in_both_regimes():
    """Issue: a converged flow once reported class null (stopping rule and classifier used different
    accuracies). Random starts with |theta_0| <= 5 (seeded), w0 < -2 included, p+q > 1 and p+q < 1."""
    import random
    from local2global.numeric.dynamics.basins import flow_report
    rng = random.Random(20261201)
    starts = [(Fraction(1), Fraction(-3)), (Fraction(1, 2), Fraction(-5)), (Fraction(-3), Fraction(-4))]
    while len(starts) < 9:
        e0, w0 = (Fraction(rng.randint(-500, 500), 100) for _ in range(2))
        if e0 * e0 + w0 * w0 <= 25 and w0 != 0:
            starts.append((e0, w0))
    bad = []
    for p, q in (P9, P1):
        for e0, w0 in starts:
            rep = flow_report(NumericChain(p, q), e0, w0, dps=30)
            if rep["agree"] is not True or rep["integrated"]["class"] is None:
                bad.append((p, q, e0, w0, rep["integrated"]["class"], rep["predicted"]["class"], rep.get("limit_gap")))
    assert not bad, bad
