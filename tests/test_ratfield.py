"""The rational-function field behind the exact zero test (proofs/_ratfield.py) against SymPy's own."""
import random

import pytest
import sympy as sp

from local2global.proofs._ratfield import field

X = sp.symbols("x0:3")


def _random_rational_function(rng: random.Random, depth: int = 3) -> sp.Expr:
    if depth == 0:
        return rng.choice([*X, sp.Rational(rng.randint(-5, 5), rng.randint(1, 4))])
    a, b = _random_rational_function(rng, depth - 1), _random_rational_function(rng, depth - 1)
    op = rng.choice("+-*/^")
    if op == "/" and sp.cancel(b) == 0:
        op = "*"
    return {"+": a + b, "-": a - b, "*": a * b, "/": a / b if op == "/" else a, "^": a ** rng.randint(-2, 3)
            if sp.cancel(a) != 0 else a}[op]


def _to_field(expr, env, K):
    if expr in env:
        return env[expr]
    if expr.is_Rational:
        return K(expr)
    if expr.is_Add:
        return sum((_to_field(t, env, K) for t in expr.args), K(0))
    if expr.is_Mul:
        out = K(1)
        for t in expr.args:
            out = out * _to_field(t, env, K)
        return out
    if expr.is_Pow and expr.exp.is_Integer:
        return _to_field(expr.base, env, K) ** int(expr.exp)
    raise TypeError(expr)


@pytest.mark.parametrize("seed", range(40))
def test_zero_tests_and_equalities_agree_with_sympy_cancel(seed):
    rng = random.Random(seed)
    K, *g = field(len(X))
    env = dict(zip(X, g))
    f, h = _random_rational_function(rng), _random_rational_function(rng)
    F, H = _to_field(f, env, K), _to_field(h, env, K)
    assert bool(F) == (sp.cancel(f) != 0)
    # an identity built from f is zero, and a perturbed one is not
    assert not (F * H - H * F) and not ((F + H) ** 2 - F**2 - 2 * F * H - H**2)
    assert bool((F + 1) - F)
    assert (F == H) == (sp.cancel(f - h) == 0)
    if F:
        assert F * F.inverse() == 1 and (1 / F) * F == K(1)


def test_constants_division_and_zero_denominators():
    K, x, y = field(2)
    assert K(sp.Rational(3, 4)) * 4 == 3 and K(0) == 0 and not K(0)
    assert (x**2 - y**2) / (x - y) == x + y
    with pytest.raises(ZeroDivisionError):
        K(0).inverse()
    with pytest.raises(ZeroDivisionError):
        x / (x - x)


def test_the_memoised_sign_of_a_root_depends_on_the_radicand_of_each_normal_form():
    """`NormalForm.sign_of` is memoised for the process; a root symbol is a normal form's own (r0_ is sqrt(2)
    in one, sqrt(3) in another), so its radicand is part of the key: 2 sqrt(2) - 3 < 0 is not decided by the
    a + b r rule, 2 sqrt(3) - 3 > 0 is."""
    import sympy as sp
    from local2global.proofs._checks import NormalForm

    r = sp.Symbol("r0_", positive=True)
    two, three = NormalForm(), NormalForm()
    two.roots, three.roots = {sp.Integer(2): r}, {sp.Integer(3): r}
    for _ in range(2):                          # the second round is answered from the memo
        assert two.sign_of(2 * r - 3) is None and three.sign_of(2 * r - 3) == 1
