"""MPFR arithmetic for the flows (numeric/evaluate/mpfr.py): exact conversions, the same compiled code, and a
flow integrated in MPFR that ends where the mpmath flow ends."""
from __future__ import annotations

from fractions import Fraction

import gmpy2
import mpmath as mp
import pytest
import sympy as sp

from local2global.numeric.dynamics.flow import ReducedFlow, integrate
from local2global.numeric.evaluate.lambdify import compile_mp
from local2global.numeric.evaluate.mpfr import MPFR, MPMATH, from_mpfr, rebind, to_mpfr

P9, P1 = (Fraction(9, 10), Fraction(9, 10)), (Fraction(1, 10), Fraction(1, 10))


def test_conversions_are_exact_both_ways_including_huge_tiny_and_infinite_values():
    with mp.workdps(60), MPFR.context():
        for x in (mp.mpf(1) / 3, -mp.mpf(2) / 7, mp.mpf(0), mp.mpf(10) ** -400000, mp.mpf(10) ** 100000, mp.inf,
                  -mp.inf):
            assert from_mpfr(to_mpfr(x)) == x
        assert gmpy2.get_context().precision == mp.mp.prec


def test_rebound_code_gives_the_mpmath_values_and_refuses_names_without_an_mpfr_counterpart():
    x, y = sp.symbols("x y", real=True)
    expr = sp.sqrt(x**2 + 1) * sp.exp(-x) + sp.log(1 + y**2) * sp.sign(y) - sp.Abs(x - y) / 3
    f = compile_mp(expr, (x, y))
    g = rebind(f)
    with mp.workdps(40), MPFR.context():
        for xv, yv in ((mp.mpf(1) / 3, -mp.mpf(5) / 7), (mp.mpf(-2), mp.mpf(3) / 2)):
            want, got = f(xv, yv), g(to_mpfr(xv), to_mpfr(yv))
            assert isinstance(got, gmpy2.mpfr)
            assert abs(from_mpfr(got) - want) <= mp.mpf(10) ** -38 * (1 + abs(want))
    with pytest.raises(ValueError, match="airyai"):
        rebind(compile_mp(sp.airyai(x), (x,)))


@pytest.mark.parametrize("chain,attention,start", [(P9, False, (Fraction(1, 2), Fraction(-1, 3))),
                                                    (P1, False, (Fraction(1, 2), Fraction(-1, 2))),
                                                    (P9, True, (Fraction(1, 5), Fraction(-1, 2), Fraction(-1))),
                                                    (P1, True, (Fraction(1, 2), Fraction(-1, 3), Fraction(1, 4)))])
def test_a_flow_in_mpfr_takes_the_steps_of_the_mpmath_flow_and_ends_at_its_end_point(chain, attention, start):
    fl = ReducedFlow(*chain, attention=attention)
    a = fl.run(start, dps=30, arithmetic=MPMATH)
    b = fl.run(start, dps=30, arithmetic=MPFR)
    assert (a.status, a.steps, a.rejected, a.evals) == (b.status, b.steps, b.rejected, b.evals)
    assert all(isinstance(x, mp.mpf) for x in b.theta + [b.t, b.grad_norm])
    with mp.workdps(40):
        assert max(abs(x - y) for x, y in zip(a.theta, b.theta)) <= mp.mpf(10) ** -35
        assert abs(a.energy_drift - b.energy_drift) <= mp.mpf(10) ** -35


def test_the_generic_integrator_runs_in_either_arithmetic_on_the_same_linear_flow():
    # θ' = -θ: θ(1) = θ0/e in both arithmetics (the exact solution, not one arithmetic against the other)
    for ar in (MPMATH, MPFR):
        res = integrate(lambda y: list(y), (Fraction(1, 3), Fraction(-1, 7)), dps=30, t_max=1, arithmetic=ar)
        with mp.workdps(40):
            exact = [mp.mpf(1) / 3 * mp.exp(-res.t), -mp.mpf(1) / 7 * mp.exp(-res.t)]
            assert max(abs(x - y) for x, y in zip(res.theta, exact)) <= mp.mpf(10) ** -13
