"""`numeric.evaluate.mpfr.specialise`: the flows' gradient with p, q fixed and its terms in p, q alone computed once
gives the numbers of the plain rebound code, bit for bit (the flows' steps, and so every record, depend on it)."""
from __future__ import annotations

import random
from fractions import Fraction

import gmpy2
import mpmath as mp
import pytest
import sympy as sp

from local2global.numeric.evaluate.lambdify import compile_mp
from local2global.numeric.evaluate.landscape import compiled_model
from local2global.numeric.evaluate.mpfr import MPFR, _hoisting_plan, rebind, specialise, to_mpfr


def _points(dim, rng):
    """Random rational points, with zeros and signed small/large coordinates (the kinks of |w| and sign(w))."""
    vals = [Fraction(0), Fraction(1, 10**12), -Fraction(1, 10**12), Fraction(37, 3), -Fraction(5, 2)]
    pts = [tuple(rng.choice(vals) for _ in range(dim)) for _ in range(20)]
    pts += [tuple(Fraction(rng.randint(-400, 400), rng.randint(1, 200)) for _ in range(dim)) for _ in range(60)]
    return pts


@pytest.mark.parametrize("attention", [False, True])
@pytest.mark.parametrize("dps", [15, 40])
def test_the_specialised_gradient_gives_the_rebound_gradient_bit_for_bit(attention, dps):
    fn = compiled_model(attention)["grad_L"]
    plan = _hoisting_plan(fn.__code__, 2)
    # p + q, pq and p^2 + q^2 come out of the loop (unless the code was read back from the derivation cache)
    assert plan is None or len(plan.constants) >= 4
    rng = random.Random(7)
    with mp.workdps(dps + 10), MPFR.context():
        for p, q in ((Fraction(9, 10), Fraction(9, 10)), (Fraction(1, 10), Fraction(3, 10)), (Fraction(1, 3), Fraction(4, 5))):
            pv, qv = (to_mpfr(mp.mpf(x.numerator) / x.denominator) for x in (p, q))
            fast, plain = specialise(fn, pv, qv), rebind(fn)
            for th in _points(3 if attention else 2, rng):
                z = [to_mpfr(mp.mpf(x.numerator) / x.denominator) for x in th]
                got, want = fast(*z), plain(pv, qv, *z)
                assert all(isinstance(x, gmpy2.mpfr) for x in got)
                assert [(x.as_integer_ratio() if gmpy2.is_finite(x) else str(x)) for x in got] \
                    == [(x.as_integer_ratio() if gmpy2.is_finite(x) else str(x)) for x in want], th
                assert [gmpy2.is_signed(x) for x in got] == [gmpy2.is_signed(x) for x in want]


def test_whole_assignments_nested_calls_and_functions_read_back_without_source():
    x, y, a = sp.symbols("x y a", real=True)
    expr = (sp.exp(a**2 + 1) * x - sp.sqrt(a + 2) * sp.sign(y) * y**3 / (a + 1), sp.log(a**2 + x**2 + 1) + a / 3)
    fn = sp.lambdify((a, x, y), expr, modules="mpmath", cse=True)        # lambdify itself: its source is at hand
    # a function whose source linecache does not hold (as one read back from the derivation cache): no plan,
    # the partial application of the rebound function instead
    scope: dict = {}
    exec(compile("def _f(a, x, y):\n    return (a*x, y)\n", "<no source>", "exec"), {}, scope)
    src_less = scope["_f"]
    assert _hoisting_plan(src_less.__code__, 1) is None
    with mp.workdps(30), MPFR.context():
        av = to_mpfr(mp.mpf(3) / 7)
        fast, plain = specialise(fn, av), rebind(fn)
        assert _hoisting_plan(fn.__code__, 1) is not None
        for xv, yv in ((mp.mpf(1) / 3, -mp.mpf(5) / 7), (mp.mpf(-2), mp.mpf(0)), (mp.mpf(10) ** 20, mp.mpf(3))):
            assert fast(to_mpfr(xv), to_mpfr(yv)) == plain(av, to_mpfr(xv), to_mpfr(yv))
        assert specialise(src_less, av)(to_mpfr(mp.mpf(2)), 5) == (av * 2, 5)
    with pytest.raises(ValueError, match="airyai"):
        specialise(compile_mp(sp.airyai(x) + a, (a, x)), 1)
