"""The exact machinery behind the landscape proofs (Sec. 2-3, App. C-E) and the derived classes it checks:
the normal form proves true identities and never a false one, relations are compared exactly, and the
classification claims fail when one derived ingredient of the classes is changed."""
import sympy as sp
import pytest

from local2global.proofs import Context, REGISTRY, load_all
from local2global.proofs import _checks as K
from local2global.symbolic import symbols as S
from local2global.symbolic import landscape as sland
from local2global.symbolic._result import Result
from local2global.symbolic.model import CanonicalModel

p, q, e, w, b = S.p, S.q, S.e, S.w, S.b
x = sp.Symbol("x", real=True)
load_all()


@pytest.mark.parametrize("expr", [
    sp.log(p * q) - sp.log(p) - sp.log(q),
    sp.log(1 - p) - sp.log((1 - p) * (p + q)) + sp.log(p + q),
    sp.exp(sp.log(p / q) + x) - p / q * sp.exp(x),
    S.ell_log(x) + sp.log(S.sigma(x)),                       # -log sigma(z) = log(1 + e^-z)
    S.ell_log(-x) + sp.log(1 - S.sigma(x)),
    sp.sqrt((p + q) ** 2) - (p + q),
    sp.sqrt((p - q) ** 2 + 4 * p * q * sp.exp(x)) ** 2 - (p - q) ** 2 - 4 * p * q * sp.exp(x),
    1 / (p - q + sp.sqrt((p - q) ** 2 + 4 * p * q)) - (q - p + sp.sqrt((p - q) ** 2 + 4 * p * q)) / (4 * p * q),
    sp.log(sp.exp(x / 2)) - x / 2,
])
def test_the_normal_form_proves_true_identities(expr):
    ok, how = K.exact_zero(expr)
    assert ok, how


@pytest.mark.parametrize("expr", [
    sp.log(p * q) - sp.log(p),
    sp.exp(2 * x) - sp.exp(x),
    S.ell_log(x) - sp.log(S.sigma(x)),
    sp.sqrt((p - q) ** 2) - (p - q),                        # |p - q|, not p - q
    sp.sqrt(x**2) - x,                                      # the sign of x is not known: never "proved"
    sp.log(x**2) - 2 * sp.log(x),                           # log of a possibly negative number
    sp.sqrt((p - q) ** 2 + 4 * p * q * sp.exp(x)) - (p + q),
])
def test_the_normal_form_never_proves_a_false_or_undecidable_identity(expr):
    ok, how = K.exact_zero(expr)
    assert not ok, how


def test_signs_are_decided_on_the_unit_square_only_when_they_hold_there():
    assert K.sign_exact(1 - p) == 1
    assert K.sign_exact(p * q / (p + q) ** 2) == 1
    assert K.sign_exact(-p / (q * S.K)) == -1
    assert K.sign_exact(p + q - 1) is None
    assert K.sign_exact(p**2 - 2 * p * q + q**2 + 4 * p * q * S.K) == 1     # AM-GM absorbs -2pq
    assert K.sign_exact(p**2 - 3 * p * q + q**2) is None


def test_relations_are_compared_exactly_up_to_a_factor_of_proved_sign():
    regime = (p + q - 1) * (1 + 2 * w * sp.Abs(w))
    scaled = p * q / (p + q) ** 2 * regime
    assert K.same_relation(scaled > 0, regime > 0, K.W_BRANCHES_0)[0]
    assert K.same_relation(-regime < 0, regime > 0, K.W_BRANCHES_0)[0]
    assert not K.same_relation(-regime > 0, regime > 0, K.W_BRANCHES_0)[0]
    assert not K.same_relation(regime >= 0, regime > 0, K.W_BRANCHES_0)[0]
    assert not K.same_relation((p + q - 1) * (1 - 2 * w * sp.Abs(w)) > 0, regime > 0, K.W_BRANCHES_0)[0]
    assert K.same_relation(sp.Ne(p * (p + q - 1) / (p + q), 0), sp.Ne(p + q, 1))[0]
    assert not K.same_relation(sp.true, sp.Ne(p + q, 1))[0]


def test_an_exact_identity_is_proved_on_the_whole_domain_and_a_false_one_falls_back_to_sampling():
    ok = K.identity(sp.log(p / q), sp.log(p) - sp.log(q), Context(points=4), "t.ok")
    assert ok.ok and ok.level == "proved" and "whole domain" in ok.checked_domain
    bad = K.identity(sp.log(p / q), sp.log(p) + sp.log(q), Context(points=4), "t.bad")
    assert not bad.ok and bad.level == "sampled" and "random rational points" in bad.checked_domain


@pytest.fixture(autouse=True)
def _no_disk_cache_of_derivations(monkeypatch):
    """The mutations below change a derived ingredient in memory; the on-disk cache of derivations (keyed by
    the code of symbolic/, which the mutation leaves unchanged) would hand back the unmutated result."""
    monkeypatch.setenv("L2G_NO_DERIVATION_CACHE", "1")


def _classification_check(monkeypatch, model, cid):
    import local2global.proofs.claims_10_landscape as C10
    monkeypatch.setattr(C10, "_M", model)
    cl = REGISTRY[cid]
    return cl.check(cl.printed(), Context(points=4))


def _classes(model, bias):
    return {str(cs.condition): cs.classification for cs in model.critical_sets(bias) if cs.condition is not sp.true}


def test_the_printed_classes_pass_with_the_derived_ingredients():
    import local2global.proofs.claims_10_landscape as C10
    for cid in ("thm1.classification", "thm7.classification"):
        out = REGISTRY[cid].check(REGISTRY[cid].printed(), Context(points=4))
        assert out.ok and out.level == "proved", out.evidence
    assert C10._M.critical_sets() is not None


C10_MIN = {"thm1.classification": "Theta_min", "thm7.classification": "Gamma_min"}
C10_MAX = {"thm1.classification": "Theta_max", "thm7.classification": "Gamma_sad"}


def test_flipping_the_sign_of_G_prime_at_0_changes_the_derived_classes_and_fails_thm1_and_thm7(monkeypatch):
    # derivations are cached on disk by the model's repr: a mutated ingredient must be re-derived
    monkeypatch.setenv("L2G_NO_DERIVATION_CACHE", "1")
    true_st = sland.structure()
    flipped = Result(true_st.ref, true_st.title, true_st.assumptions,
                     {**true_st.expressions, "G_prime_at_0": -true_st["G_prime_at_0"]}, true_st.derivation)
    original = _classes(CanonicalModel(), False)
    monkeypatch.setattr(sland, "structure", lambda chain=None: flipped)
    after = _classes(CanonicalModel(), False)            # a fresh instance: nothing cached
    assert after != original and "local_max" in after.values()
    for cid in ("thm1.classification", "thm7.classification"):
        out = _classification_check(monkeypatch, CanonicalModel(), cid)
        assert not out.ok, out.evidence
        # the printed region (p+q-1)(1+2w|w|) > 0 now carries another derived class (or no derived family): the
        # step matching the families fails, and says so in its values
        match = [s for s in out.steps if s.states.startswith("Each printed family is the derived family")]
        assert len(match) == 1 and not match[0].ok
        found = dict(match[0].values)
        assert found[C10_MIN[cid]] in (f"derived local_max ({C10_MAX[cid]}), printed local_min",
                                       "0 derived families with the printed region")


def test_flipping_the_sign_of_Q_changes_the_derived_classes_and_fails_thm1_and_thm7(monkeypatch):
    # derivations are cached on disk by the model's repr: a mutated ingredient must be re-derived
    monkeypatch.setenv("L2G_NO_DERIVATION_CACHE", "1")
    model = CanonicalModel()
    Q = model._e_axis_factor()
    monkeypatch.setattr(model, "_e_axis_factor", lambda: -Q)
    flipped = _classes(model, False)
    assert flipped != _classes(CanonicalModel(), False)
    for cid in ("thm1.classification", "thm7.classification"):
        m = CanonicalModel()
        monkeypatch.setattr(m, "_e_axis_factor", lambda: -Q)
        out = _classification_check(monkeypatch, m, cid)
        assert not out.ok, out.evidence


def test_the_zero_set_of_grad_A_is_the_line_e_equals_0_by_a_groebner_certificate():
    import local2global.proofs.claims_10_landscape as C10
    found = C10._grad_A_zero_set()
    assert all(s.ok and s.kind == "exact" for s in found)
    assert ("w>0", "$e^{2}$ is in the ideal") in found[0].values and ("w<0", "$e^{2}$ is in the ideal") in found[0].values


def test_remark3_rejects_every_other_ordering_of_the_hessian():
    import itertools
    cl = REGISTRY["remark3.ordering"]
    for order in itertools.permutations((b, e, w)):
        out = cl.check(order, Context(points=4))
        assert out.ok is (order == (b, e, w)), (order, out.evidence)


def _random_expression(rng, depth=3):
    """A random real expression in p, q (in (0,1)) and x (real) built from the operations the normal form
    rewrites: +, *, /, exp, log of positive things, sqrt of positive things, the sigmoid."""
    if depth == 0:
        return rng.choice([p, q, 1 - p, 1 - q, x, sp.Rational(rng.randint(1, 5), rng.randint(1, 4)), p + q])
    a, c_ = _random_expression(rng, depth - 1), _random_expression(rng, depth - 1)
    op = rng.randrange(8)
    if op == 0:
        return a + c_
    if op == 1:
        return a * c_
    if op == 2:
        return a / (1 + c_**2)
    if op == 3:
        return sp.exp(a / 3)
    if op == 4:
        return sp.log(1 + sp.exp(a))
    if op == 5:
        return sp.sqrt(a**2 + p * q * sp.exp(c_ / 2))
    if op == 6:
        return S.sigma(a) - c_
    return sp.log(p * q * (1 + c_**2))


def test_the_normal_form_only_proves_identities_that_hold_numerically():
    import random

    import mpmath as mp

    rng = random.Random(20240603)
    proved = 0
    for _ in range(60):
        a = _random_expression(rng)
        # half the cases are true identities in disguise, half perturbations of them
        c_ = sp.expand_log(sp.expand(a, power_exp=True), force=False) if rng.random() < 0.5 else a + p * q / 97
        ok, _ = K.exact_zero(a - c_)
        if not ok:
            continue
        proved += 1
        for pt in ({p: sp.Rational(1, 3), q: sp.Rational(4, 7), x: sp.Rational(-5, 4)},
                   {p: sp.Rational(9, 10), q: sp.Rational(1, 20), x: sp.Rational(7, 3)}):
            with mp.workdps(40):
                val = abs(sp.N((a - c_).subs(pt), 40))
            assert val < 1e-30, (a, c_, pt, val)
    assert proved >= 10


def test_the_structure_derivation_confirms_its_own_forms():
    """`structure()` re-derives the residual and the Hessian of F in the sigmoids and compares them with the
    forms it states (`*_form_matches`), and decides convexity: each flag is SymPy's true, and each is the
    outcome of its comparison (a flag set from the wrong branch would read false here)."""
    st = sland.structure()
    for key in ("residual_form_matches", "hessian_form_matches", "F_jointly_strictly_convex", "G_second_positive"):
        assert st[key] is sp.true, key
