"""Speed-ups of the landscape and attention checks held to the code they replace: the model's derivatives kept as
derivations (on disk) are srepr-equal to differentiating afresh, a rational chain's stationary law is what `solve`
gives, and Remark 1's exact values at rational points are the same with one `xreplace` as with `subs`."""
import pickle

import pytest
import sympy as sp

from local2global.symbolic import bias
from local2global.symbolic import symbols as S
from local2global.symbolic._symbols import hessian
from local2global.symbolic.markov import MarkovChain
from local2global.symbolic.model import canonical_model


def _same(x, y) -> bool:
    return sp.srepr(x) == sp.srepr(y)


@pytest.mark.parametrize("attention", [False, True])
def test_the_model_derivatives_are_what_differentiating_afresh_gives(attention):
    m = canonical_model(attention)
    loss, params, vb = m.loss_with_bias, m.params, m.params_with_bias
    assert _same(m.gradient_with_bias, sp.Matrix([sp.diff(loss, v) for v in vb]))
    assert _same(m.hessian_with_bias(), hessian(loss, vb))
    assert _same(m.gradient_direct(), sp.Matrix([sp.diff(m.reduced_loss_direct, v) for v in params]))
    if not attention:                       # (the attention model's direct Hessian takes seconds; no claim uses it)
        assert _same(m.hessian_with_bias((S.b,) + params), hessian(loss, (S.b,) + params))
        assert _same(m.hessian_direct(), hessian(m.reduced_loss_direct, params))
    # a stored result unpickles to the same expression, and a caller's copy is its own
    assert _same(pickle.loads(pickle.dumps(m.hessian_with_bias())), m.hessian_with_bias())
    H = m.hessian_with_bias()
    H[0, 0] = 0
    assert m.hessian_with_bias()[0, 0] != 0


def test_a_branch_order_of_the_hessian_with_bias_is_derived_there_not_read_by_name():
    m = canonical_model()
    order = (S.e, S.w_pos, S.b)                         # the name "w", another symbol
    assert _same(m.hessian_with_bias(order), hessian(m.loss_with_bias, order))


def test_G_derivatives_are_the_direct_derivatives():
    G = bias.G(MarkovChain())
    assert _same(bias.G_derivative(1), sp.diff(G, S.A)) and _same(bias.G_derivative(2), sp.diff(G, S.A, 2))


def test_a_rational_chain_has_the_stationary_law_solve_gives():
    pi0, pi1 = sp.symbols("pi0 pi1")
    for pq in ((sp.Rational(9, 10), sp.Rational(9, 10)), (sp.Rational(1, 50), sp.Rational(97, 100)),
               (sp.Rational(3, 7), sp.Rational(1, 2)), ("0.25", "0.6")):
        ch = MarkovChain(*pq)
        P = ch.kernel
        sol = sp.solve([sp.Eq(pi0 * P[0, 0] + pi1 * P[1, 0], pi0), sp.Eq(pi0 + pi1, 1)], [pi0, pi1], dict=True)[0]
        assert _same(ch.stationary, (sp.factor(sol[pi0]), sp.factor(sol[pi1])))
    swapped = MarkovChain(S.q, S.p)                     # symbolic: still solved
    assert swapped.stationary == (S.p / (S.p + S.q), S.q / (S.p + S.q))


def test_remark1_values_at_rational_points_are_those_of_subs():
    from local2global.proofs._checks import sample_points, substitute
    gap = MarkovChain().mutual_information
    pts = sample_points("remark1", [S.p, S.q], 48)
    pts += [{S.p: v[S.p], S.q: 1 - v[S.p]} for v in pts[:12]]
    for pt in pts:
        assert _same(gap.xreplace(pt), substitute(gap, pt))
        for form in (sp.Ne(S.p + S.q, 1), sp.true, S.p > S.q):
            assert bool(sp.sympify(form).xreplace(pt)) == bool(substitute(form, pt))


def test_the_rank_one_logits_are_those_of_the_explicit_transformer():
    from local2global.symbolic import canonical
    for flip in (True, False):
        logits = canonical.rank_one_logits(flip)
        assert len(logits) == 2 * (2 + 4) * len(S.BRANCHES)
        for (x, signs, label), z in logits.items():
            sub = S.BRANCHES[label]
            assert _same(z, canonical.rank_one_logit(x, signs, sub[S.e], sub[S.w], flip_alpha_with_e=flip))


def test_the_station_directions_are_the_eigenvectors_of_the_station_hessian():
    ma = canonical_model(True)
    es = sp.Symbol("e", positive=True)
    got = ma.station_directions()
    for val, _, vecs in ma.station_hessian["hess_A"].eigenvects():
        key = {1: "up", -1: "down", 0: "along"}[int(sp.sign(sp.simplify(val.subs(es, 1))))]
        assert _same(got[key], (sp.simplify(val), vecs[0].applyfunc(sp.simplify)))
