"""Faster paths of the full-model claims give exactly what the plain computations give.

- `experiments.theta_star_point` reads b* alone under `Landscape.working_precision`: the float of the b* that
  `Landscape.at` bundles.
- thm5.formula_sheet_reading's symbolic full model multiplies lists, not SymPy Matrices: the same logits (srepr) on
  the probe curve, and the same values with attention switched on.
- `_descent_logits_match` expands each distinct (logit, x_n) pair once: the same case count and first mismatch as
  expanding every case.
"""
import itertools
import math
import random
from fractions import Fraction

import pytest
import sympy as sp

from local2global.symbolic.latex import latex

from local2global.numeric.evaluate.landscape import Landscape
from local2global.numeric.transformer import experiments as X
from local2global.proofs import claims_40_fullmodel as F
from local2global.symbolic import symbols as S


@pytest.mark.parametrize("p, q, w", [("1/2", "4/5", "-3/2"), ("1/5", "3/10", "1/2"), ("9/10", "9/10", "-1"),
                                     ("1/10", "1/5", "2")])
def test_theta_star_point_gives_the_b_star_that_landscape_at_bundles(p, q, w):
    e, wv, b = X.theta_star_point(p, q, w)
    assert b == float(Landscape(Fraction(p), Fraction(q)).at((Fraction(e), Fraction(w))).b_star)
    assert wv == float(Fraction(w))


def _matrix_logit(bits, token, positional, W_Q, W_K, W_V, W_1, W_2, bias):
    """The full transformer's logit with SymPy Matrices (the definition, products by Matrix multiplication)."""
    d = token.shape[0]
    xs = [bits[i] * token + positional[i] for i in range(len(bits))]
    query = W_Q * xs[-1]
    ex = [sp.exp((query.T * (W_K * x))[0, 0] / sp.sqrt(d)) for x in xs]
    norm = sum(ex)
    mix = sum(((ex_i / norm) * (W_V * x) for ex_i, x in zip(ex, xs)), sp.zeros(d, 1))
    y = xs[-1] + mix
    z = y + W_2 * (W_1 * y).applyfunc(lambda t: sp.Max(0, t))
    return sp.expand((token.T * z)[0, 0] + bias)


def _rows(M: sp.Matrix) -> list:
    return [list(M.row(i)) for i in range(M.rows)]


@pytest.mark.parametrize("orthogonal", [False, True])
def test_list_products_give_the_matrix_model_s_logits_on_the_probe_curve(orthogonal):
    curve = {(d, s, bits[:n + 1]): z for d, s, bits, n, z in F._descent_curve_logits(orthogonal)}
    for (d, signs, ctx), z in list(curve.items())[::5]:
        al = sp.Matrix(signs) / sp.sqrt(d)
        one = sp.ones(4 * d, 1)
        u_ = sp.Matrix([signs[1], -signs[0]] + [0] * (d - 2)) / sp.sqrt(2) if orthogonal else al
        want = _matrix_logit(ctx, F._r * u_, [sp.zeros(d, 1)] * len(ctx), sp.zeros(d, d), sp.zeros(d, d),
                             sp.zeros(d, d), (sp.Abs(S.w_neg) / sp.sqrt(d)) * one * al.T,
                             (S.w_neg / sp.sqrt(d)) * al * one.T, F._cc)
        assert sp.srepr(z) == sp.srepr(want)


def test_list_products_give_the_matrix_model_s_values_with_attention():
    rng = random.Random(4)
    d, r = 2, sp.Rational(1, 3)
    mats = [sp.Matrix(m, n, lambda i, j: sp.Rational(rng.randint(-9, 9), 7)) for m, n in
            ((d, d), (d, d), (d, d), (4 * d, d), (d, 4 * d))]
    token, pos = sp.Matrix([r, -2 * r]), [sp.Matrix([sp.Rational(rng.randint(-5, 5), 3) for _ in range(d)])
                                          for _ in range(3)]
    for bits in itertools.product((0, 1), repeat=3):
        want = _matrix_logit(bits, token, pos, *mats, F._cc)
        got = F._symbolic_full_logit(bits, list(token), [list(v) for v in pos], *map(_rows, mats), F._cc)
        assert math.isclose(float((got - want).subs(F._cc, 0)), 0.0, abs_tol=1e-12)


def test_descent_match_counts_and_reports_as_expanding_every_case():
    for slope, orthogonal in ((1 + 4 * S.w * sp.Abs(S.w), False), (1 + 2 * S.w * sp.Abs(S.w), False),
                              (sp.Integer(1), True), (sp.Integer(2), True)):
        want = (0, "")
        for d, signs, bits, n, z in F._descent_curve_logits(orthogonal):
            want = (want[0] + 1, "")
            if sp.expand(z - (F._r**2 * slope.subs(S.w, S.w_neg) * bits[n] + F._cc)) != 0:
                want = (want[0], r"at $d = %d$, $\alpha \propto (%s)$, $x = %s$, $n = %d$ the logit is $%s$"
                        % (d, ", ".join(map(str, signs)), "".join(map(str, bits)), n + 1, latex(z)))
                break
        assert F._descent_logits_match(slope, orthogonal) == want
