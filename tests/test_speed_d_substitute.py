"""`_checks.substitute` builds exactly the expression `Basic.subs` builds (it is its fast path in the checks)."""
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
