"""The fast paths of the exact checks held to the slow code they replace: `substitute` builds what `Basic.subs`
builds, `_equations_differ` rejects only what `_same_equation` rejects, `Landscape.working_precision` reads the values `Landscape.at`
bundles, `rational_in` draws what its Fraction arithmetic drew."""
import pytest
import sympy as sp
from sympy.core.basic import Basic

from local2global.proofs._checks import W_BRANCHES_0, substitute
from local2global.symbolic import symbols as S
from local2global.symbolic.model import ATT_BRANCHES, canonical_model


def _cases():
    m, ma = canonical_model(), canonical_model(True)
    for i, g in enumerate(m.gradient_with_bias):
        for lab, sub in W_BRANCHES_0.items():
            yield f"grad[{i}] {lab}", g, sub
    for i, g in enumerate(ma.gradient_with_bias):
        for lab, sub in ATT_BRANCHES.items():
            yield f"att grad[{i}] {lab}", g, sub
    yield "b* at rationals", m.b_star, {S.p: sp.Rational(1, 3), S.q: sp.Rational(5, 7), S.e: 2, S.w: sp.Rational(-1, 2)}
    yield "root at -1/sqrt 2", ma.A, {S.w: -1 / sp.sqrt(2)}
    # the fallbacks: a value containing its key, a non-symbol key, a node with its own _eval_subs
    yield "w -> 2w", m.loss_with_bias, {S.w: 2 * S.w}
    yield "non-symbol key", m.loss_with_bias, {S.e**2: S.A}
    yield "Derivative", sp.Derivative(sp.Function("f")(S.w), S.w) + S.w, {S.w: S.w_pos}
    yield "Piecewise", sp.Piecewise((S.w, S.w > 0), (-S.w, True)), {S.w: S.w_neg}
    yield "no change", m.A, {S.w: S.w}


@pytest.mark.parametrize("label, expr, sub", list(_cases()), ids=lambda x: x if isinstance(x, str) else "")
def test_substitute_is_the_expression_subs_builds(label, expr, sub):
    assert Basic.is_same(substitute(expr, sub), sp.sympify(expr).subs(sub))


def _equation_pairs():
    from local2global.proofs.claims_10_landscape import _printed_sets as sets_r
    from local2global.proofs.claims_30_attention import _printed_sets as sets_a
    from local2global.proofs._checks import _split_region
    for attention, printed in ((False, sets_r("R2")), (False, sets_r("R3")), (True, sets_a("R3")), (True, sets_a("R4"))):
        model = canonical_model(attention)
        derived = model.critical_sets("Gamma_star" in printed)
        for name, region in printed.items():
            for lhs, rhs in _split_region(region)[0]:
                for cs in derived:
                    for eq in (x for x in cs.equations if isinstance(x, sp.Eq)):
                        yield f"{cs.name}: {eq} vs {name}: {lhs} = {rhs}", eq, lhs, rhs, model.branches


@pytest.mark.slow
def test_equations_differ_only_where_the_exact_comparison_says_so():
    """`same_region`'s shortcut `_equations_differ` is True only for equations `_same_equation` rejects, and it
    settles most of the different pairs."""
    from local2global.proofs._checks import _equations_differ, _same_equation
    settled = different = 0
    for label, eq, lhs, rhs, branches in _equation_pairs():
        for br in (W_BRANCHES_0, branches):
            same = _same_equation(eq, lhs, rhs, br)[0]
            differ = _equations_differ(eq, lhs, rhs, br)
            assert not (differ and same), label
            different += not same
            settled += differ
    assert different and settled >= different // 2


def test_the_landscape_methods_at_the_precision_of_at_return_the_values_at_bundles():
    """claims_10 reads L(θ), L(θ, b), b*, ∇L and ∇L(θ, b) under `Landscape.working_precision` instead of computing `Landscape.at`'s whole
    bundle: the values must be the very mpfs `at` returns."""
    from fractions import Fraction

    import mpmath as mp

    from local2global.numeric import Landscape
    for pp, qq in ((Fraction(9, 10), Fraction(4, 5)), (Fraction(1, 7), Fraction(2, 9))):
        L = Landscape(pp, qq)
        with mp.workdps(80):
            for theta in ((mp.mpf(1) / 3, -mp.mpf(5) / 7), (mp.mpf(0), mp.mpf(3) / 2), (mp.mpf(-2), mp.mpf(1) / 9)):
                ref = L.at(theta, dps=70)
                with Landscape.working_precision(theta, None, 70):
                    assert (L.loss(theta), L.b_star(theta), L.grad(theta)) == (ref.loss, ref.b_star, ref.grad)
                b = ref.b_star + mp.mpf(1) / 10
                ref_b = L.at(theta, b=b, dps=70)
                with Landscape.working_precision(theta, b, 70):
                    assert (L.loss_b(theta, b), L.grad_b(theta, b)) == (ref_b.loss_b, ref_b.grad_b)


def _rational_in_fractions(rng, lo, hi, sign=None):
    """`rational_in` as it was written with Fractions (the reference its integer arithmetic is held to)."""
    from fractions import Fraction
    lo, hi = Fraction(lo), Fraction(hi)
    while True:
        den = rng.randint(2, 997)
        num = rng.randint(int(lo * den) + 1, int(hi * den) - 1) if hi > lo else 0
        r = Fraction(num, den)
        if lo < r < hi and r != 0 and (sign is None or (1 if r > 0 else -1) == sign):
            return sp.Rational(num, den)


@pytest.mark.parametrize("lo, hi, sign", [(0, 1, None), (-2, 2, None), (-2, 2, 1), (-2, 2, -1), (0, 2, 1),
                                          ("1/3", "5/2", None), ("-7/3", "-1/5", -1), ("-9/7", "2/7", None)])
def test_rational_in_draws_what_the_fraction_arithmetic_drew(lo, hi, sign):
    import random
    from fractions import Fraction

    from local2global.proofs._checks import rational_in
    lo, hi = Fraction(lo), Fraction(hi)
    for seed in range(50):
        r1, r2 = random.Random(seed), random.Random(seed)
        assert [rational_in(r1, lo, hi, sign) for _ in range(10)] == [_rational_in_fractions(r2, lo, hi, sign) for _ in range(10)]
        assert r1.getstate() == r2.getstate()


def test_substitute_in_a_matrix_is_matrix_subs():
    m = canonical_model()
    H = m.hessian_with_bias()
    got, want = substitute(H, {S.b: m.b_star}), H.subs(S.b, m.b_star)
    assert type(got) is type(want) and got.shape == want.shape
    assert all(Basic.is_same(x, y) for x, y in zip(got, want))


def test_certified_nonzero_only_where_expand_does_not_reach_0():
    """lemma13.gradient skips the expansion of a difference `certified_nonzero` (arb at rational points) shows
    nonzero: on the printed form and the altered one it may do so only where the expansion is not 0."""
    from local2global.proofs._checks import certified_nonzero
    from local2global.proofs._registry import REGISTRY
    cl = REGISTRY["lemma13.gradient"]
    ma = canonical_model(True)
    inst = [sum(ma.chain.stationary[x] * (S.sigma(ma.logit(x)) - ma.chain.transition(x, 1)) * sp.diff(ma.logit(x), v)
                for x in (0, 1)) for v in ma.params_with_bias]
    for form in (cl.printed(), cl.mutant()):
        d = form[0] - inst[0]
        assert not certified_nonzero(d, "test") or sp.expand(d) != 0
    assert certified_nonzero(cl.mutant()[0] - inst[0], "test")
    assert not certified_nonzero(S.e - S.e, "test") and certified_nonzero(sp.exp(S.e) - 1 - S.e, "test")


@pytest.mark.parametrize("dps", [30, 50])
def test_a_constant_residual_passes_below_ten_to_the_minus_dps_minus_ten_and_fails_just_above(dps):
    """`sampled_zero` on an expression without symbols: the documented tolerance is 10^-(dps-10). A residual of
    2 x 10^-(dps-10), of either sign, fails (a tolerance loosened to 10^-(dps-9) would pass it); half the
    tolerance passes."""
    from local2global.proofs._checks import sampled_zero
    from local2global.proofs import Context
    ctx = Context(dps=dps)
    tol = sp.Rational(1, 10 ** (dps - 10))
    assert sampled_zero(tol / 2, ctx, "const").ok
    assert not sampled_zero(2 * tol, ctx, "const").ok
    assert not sampled_zero(-2 * tol, ctx, "const").ok
