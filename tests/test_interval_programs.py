"""The compiled interval programs of `arb_function` give, bit for bit, the intervals of the plain definitions.

`arb_function` compiles one straight-line function per expression shape, multiplies by a point constant with two
endpoint products instead of four, shares the partial folds of sums and products that start alike, and calls
`Iv.exp` / `reciprocal` directly. The reference below evaluates the same tree node by node with the definitions:
every product the hull of its four endpoint products, constants as the hull of their ball, x^n by `ipow`, exp by
`monotone`. Every endpoint must be the same arb number (the sign certifier prints box counts and enclosures).
"""
import random

import flint
import pytest
import sympy as sp

from local2global.numeric.evaluate import arb as A
from local2global.numeric.evaluate.arb import UNBOUNDED, Iv, arb_function, interval, precision

x, y, z = sp.symbols("x y z", real=True)
R = sp.Rational


def _four_products(a: Iv, b: Iv) -> Iv:
    if not (a.finite() and b.finite()):
        return UNBOUNDED
    return Iv.hull([a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi])


def _reference(expr, env: dict) -> Iv:
    """The interval of expr by the definitions, node by node (no compiled program, no point shortcut)."""
    def ev(node):
        if node in env:
            return env[node]
        if node.is_Rational:
            return Iv.hull([flint.arb(flint.fmpq(int(node.p), int(node.q)))])
        if node is sp.pi:
            return Iv.hull([flint.arb.pi()])
        if node is sp.E:
            return Iv.hull([flint.arb(1).exp()])
        if node.is_Add or node.is_Mul:
            args = [ev(t) for t in node.args]
            out = args[0]
            for t in args[1:]:
                out = out + t if node.is_Add else _four_products(out, t)
            return out
        if node.is_Pow:
            b, ex = ev(node.base), node.exp
            if ex.is_Integer:
                return b.ipow(int(ex))
            if ex == R(1, 2):
                return A._sqrt(b)
            if ex == -R(1, 2):
                return A._sqrt(b).reciprocal()
            return _four_products(ev(ex), A._log(b)).monotone(lambda t: t.exp())
        unary = {sp.exp: lambda iv: iv.monotone(lambda t: t.exp()), sp.log: A._log, sp.Abs: A._abs, sp.sign: A._sign}
        return unary[type(node)](ev(node.args[0]))
    return ev(sp.sympify(expr))


def _same(a: Iv, b: Iv) -> bool:
    """Both endpoints the same arb numbers (exact endpoints: equal values), or both the same non-finite interval."""
    if not (a.finite() and b.finite()):
        return str(a) == str(b)
    return all(u.is_exact() and v.is_exact() and u == v for u, v in ((a.lo, b.lo), (a.hi, b.hi)))


EXPRESSIONS = [
    # products by integer, dyadic and non-dyadic rational constants; shared prefixes 2*x*y
    2 * x * y * z + 2 * x * y * sp.exp(z) - R(1, 2) * x * y + R(1, 3) * x * z - R(6, 5) * y,
    -(x + y + z) * (x + y) / (1 + x**2) + 4 * x * (x + y) * sp.exp(-z) / (2 * y**2 + 1),
    # every node type, powers of both parities and signs, constants pi and E
    sp.sqrt(x**2 + 1) * sp.exp(-x) / (2 + sp.Abs(y)) + sp.log(1 + x**2) * sp.sign(y) - (x - y) ** 3
    + (x**2 + 1) ** R(3, 2) + (y**2 + 2) ** -R(1, 2) + sp.pi * x - sp.E * y**4 + z ** -2,
    # a reciprocal of an interval that may contain 0: UNBOUNDED, then x^2 of it [0, oo], |.|, sign
    sp.Abs(1 / x) + (1 / (x - y)) ** 2 + sp.sign(1 / z) * y,
]


@pytest.mark.parametrize("prec", [53, 128])
@pytest.mark.parametrize("k", range(len(EXPRESSIONS)))
def test_compiled_programs_give_the_intervals_of_the_definitions_bit_for_bit(k, prec):
    expr, syms = EXPRESSIONS[k], (x, y, z)
    f = arb_function(expr, syms)
    rng = random.Random(100 * k + prec)
    with precision(prec):
        for _ in range(150):
            box = []
            for _s in syms:
                lo, hi = sorted(R(rng.randint(-400, 400), rng.randint(1, 97)) for _ in range(2))
                box.append(interval(lo, hi))
            got, want = f(*box), _reference(expr, dict(zip(syms, box)))
            assert _same(got, want), (expr, [str(b) for b in box], str(got), str(want))


def test_a_point_times_an_interval_is_the_hull_of_the_four_products():
    rng = random.Random(7)
    with precision(128):
        for c in (flint.arb(2), flint.arb(-3), flint.arb(flint.fmpq(1, 2)), flint.arb(flint.fmpq(-5, 8))):
            point = Iv.point(c)
            assert point.lo is point.hi                       # exact constants share their endpoint object
            for _ in range(100):
                lo, hi = sorted(R(rng.randint(-10**6, 10**6), rng.randint(1, 10**4)) for _ in range(2))
                iv = interval(lo, hi)
                assert _same(point * iv, _four_products(Iv.hull([c]), iv))
    inexact = Iv.point(flint.arb(flint.fmpq(1, 3)))
    assert inexact.lo is not inexact.hi and inexact.lo < inexact.hi


def test_expressions_of_one_shape_share_a_program_but_keep_their_constants():
    f, g = arb_function(2 * x + R(1, 3), (x,)), arb_function(5 * x + R(7, 2), (x,))
    assert f.__code__ is g.__code__
    with precision(128):
        iv = interval(R(1, 7), R(2, 7))
        assert _same(f(iv), _reference(2 * x + R(1, 3), {x: iv}))
        assert _same(g(iv), _reference(5 * x + R(7, 2), {x: iv}))
        assert not _same(f(iv), g(iv))


# ---------------------------------------------------------------------------------------------
# the SymPy -> flint ball compiler (`arb._ball_node`): real balls (`ball_function`), complex balls (`acb_function`)
# ---------------------------------------------------------------------------------------------

def _ball_reference(expr, env: dict, complex_: bool):
    """The ball of expr by the definitions, node by node, at every evaluation (no constant evaluated once, no memo
    of the Airy calls): what the compiled closures must give, bit for bit."""
    ball = (lambda b: flint.acb(b)) if complex_ else (lambda b: b)

    def ev(node):
        if node in env:
            return env[node]
        if node.is_Rational:
            return ball(flint.arb(flint.fmpq(int(node.p), int(node.q))))
        if node is sp.pi:
            return ball(flint.arb.pi())
        if node is sp.E:
            return ball(flint.arb(1).exp())
        if node.is_Add or node.is_Mul:
            args = [ev(t) for t in node.args]
            out = args[0]
            for t in args[1:]:
                out = out + t if node.is_Add else out * t
            return out
        if node.is_Pow:
            b, ex = ev(node.base), node.exp
            if ex.is_Integer:
                return b ** int(ex)
            if complex_:
                return b.sqrt() if ex == R(1, 2) else (b.rsqrt() if ex == -R(1, 2) else b.pow(ev(ex)))
            if ex.is_Rational:
                return b.root(int(ex.q)) ** int(ex.p)
            return (ev(ex) * b.log()).exp()
        one = ev(node.args[0])
        airy = {sp.airyai: 0, sp.airyaiprime: 1, sp.airybi: 2, sp.airybiprime: 3}
        if type(node) in airy:
            return one.airy()[airy[type(node)]]
        if isinstance(node, sp.LambertW):
            return one.lambertw(branch=int(node.args[1]) if len(node.args) > 1 else 0)
        if isinstance(node, sp.Abs):
            return abs(one) if not complex_ else (one if one.real > 0 else -one)
        return {sp.exp: one.exp, sp.log: one.log, sp.erf: one.erf, sp.erfc: one.erfc}[type(node)]()
    return ev(sp.sympify(expr))


def _same_ball(a, b) -> bool:
    return (a.mid() == b.mid() and a.rad() == b.rad()) if isinstance(a, flint.arb) else \
        (_same_ball(a.real, b.real) and _same_ball(a.imag, b.imag))


_pos = sp.Symbol("u", positive=True)
BALL_EXPRESSIONS = [
    # rationals, pi, E, constant subtrees (log 2, sqrt 2), rational and integer powers, exp/log/erf/erfc, |.|
    (sp.sqrt(_pos**2 + 1) * sp.exp(-_pos) / (2 + _pos) + sp.log(2) * sp.erfc(_pos) - (_pos - R(1, 3))**3
     + sp.erf(_pos / 3) + (_pos + sp.pi) ** R(3, 2) - sp.sqrt(2) * sp.E + sp.Abs(_pos - 1) * (_pos + 2) ** -R(1, 2)),
]
REAL_ONLY = [
    # the R^3 objects: Airy functions of one argument used four ways (one airy() call), Lambert W on both branches
    (sp.airyai(_pos) * sp.airybiprime(_pos) - sp.airyaiprime(_pos) * sp.airybi(_pos)) * sp.pi
    + sp.LambertW(-sp.exp(-1 - 2 * _pos)) - sp.LambertW(-sp.exp(-1 - 2 * _pos), -1) + (_pos + 1) ** (sp.pi / 7),
]


@pytest.mark.parametrize("prec", [53, 200])
def test_real_balls_are_the_balls_of_the_definitions_bit_for_bit(prec):
    rng = random.Random(prec)
    with precision(prec):
        for expr in BALL_EXPRESSIONS + REAL_ONLY:
            f = A.ball_function(expr, (_pos,))
            for _ in range(40):
                u = flint.arb(flint.fmpq(rng.randint(1, 400), rng.randint(1, 97)))
                got, want = f(u), _ball_reference(expr, {_pos: u}, complex_=False)
                assert _same_ball(got, want), (expr, str(u), got, want)


@pytest.mark.parametrize("prec", [53, 200])
def test_complex_balls_are_the_balls_of_the_definitions_bit_for_bit(prec):
    rng = random.Random(prec + 1)
    with precision(prec):
        for expr in BALL_EXPRESSIONS:
            f = A.acb_function(expr, (_pos,))
            for _ in range(40):
                u = flint.acb(flint.arb(flint.fmpq(rng.randint(1, 400), rng.randint(1, 97))))
                got, want = f(u), _ball_reference(expr, {_pos: u}, complex_=True)
                assert _same_ball(got, want), (expr, str(u), got, want)


def test_the_real_and_complex_balls_enclose_the_same_number_and_the_reference_is_not_vacuous():
    expr = BALL_EXPRESSIONS[0]
    f, g = A.ball_function(expr, (_pos,)), A.acb_function(expr, (_pos,))
    with precision(128):
        u = flint.arb(flint.fmpq(7, 3))
        real, cplx = f(u), g(flint.acb(u))
        assert real.overlaps(cplx.real) and cplx.imag == 0 and real.rad() < flint.arb(2) ** -100
        # negative control: another expression (one constant changed) is not the reference's ball
        other = _ball_reference(expr + R(1, 10**30), {_pos: u}, complex_=False)
        assert not _same_ball(real, other)


def test_the_ball_compiler_refuses_floats_and_unknown_nodes():
    with pytest.raises(TypeError):
        A.ball_function(sp.Float("0.5") * _pos, (_pos,))
    with pytest.raises(NotImplementedError):
        A.acb_function(sp.airyai(_pos), (_pos,))          # Airy: real balls only
    with pytest.raises(NotImplementedError):
        A.ball_function(sp.gamma(_pos), (_pos,))
