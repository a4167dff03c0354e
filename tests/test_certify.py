"""Interval certification (proofs/_certify.py) and the certified claims: true signs are proven, false ones
never are (the negative controls)."""
import random

import mpmath as mp
import sympy as sp

from local2global.proofs import Context, REGISTRY, load_all, run_claim
from local2global.proofs import claims_50_certified as C
from local2global.proofs._certify import arb_function, certify_sign, interval
from local2global.symbolic import symbols as S

R = sp.Rational
x, y = sp.symbols("x y", real=True)


def test_certifier_proves_a_true_sign_and_refuses_a_false_one():
    ok = certify_sign(sp.exp(x) - 1 - x, {x: (R(1, 100), 5)}, +1)
    assert ok.ok and ok.boxes > 1
    # x^2 - 2 changes sign at sqrt 2: neither sign may be certified on [0, 2]
    assert not certify_sign(x**2 - 2, {x: (0, 2)}, +1, max_depth=12).ok
    assert not certify_sign(x**2 - 2, {x: (0, 2)}, -1, max_depth=12).ok


def test_constraints_discard_only_boxes_entirely_outside_the_domain():
    ring = certify_sign(x**2 + y**2 - 1, {x: (-2, 2), y: (-2, 2)}, +1, where=(x**2 + y**2 - R(11, 10),))
    assert ring.ok and ring.outside > 0
    # a sign that fails just inside the domain (radius^2 in [1.1, 1.2)) is not certified
    assert not certify_sign(x**2 + y**2 - R(6, 5), {x: (-2, 2), y: (-2, 2)}, +1,
                            where=(x**2 + y**2 - R(11, 10),), max_depth=16).ok


def test_interval_evaluation_encloses_the_exact_values():
    expr = sp.sqrt(x**2 + 1) * sp.exp(-x) / (2 + sp.Abs(y)) + sp.log(1 + x**2) * sp.sign(y) - (x - y) ** 3
    f = arb_function(expr, (x, y))
    g = sp.lambdify((x, y), expr, "mpmath")
    rng = random.Random(5)
    for _ in range(40):
        lo, hi = sorted(R(rng.randint(-300, 300), 100) for _ in range(2))
        ylo, yhi = sorted(R(rng.randint(1, 300), 100) * rng.choice([1, -1]) for _ in range(2))
        if ylo < 0 < yhi:
            continue
        iv = f(interval(lo, hi), interval(ylo, yhi))
        for _ in range(5):
            px = lo + (hi - lo) * R(rng.randint(0, 100), 100)
            py = ylo + (yhi - ylo) * R(rng.randint(0, 100), 100)
            with mp.workdps(40):
                v = g(mp.mpf(px.p) / px.q, mp.mpf(py.p) / py.q)
            assert float(iv.lo.lower()) - 1e-12 <= float(v) <= float(iv.hi.upper()) + 1e-12


def test_f2_is_certified_negative_near_the_saddle_on_a_sub_box_and_its_mutant_is_not():
    form, mutant = REGISTRY_OR_LOAD()["cert.thm2.f2_negative"].printed(), S.sigma(S.b - S.e**2 / 2) - S.q
    box = {S.p: (R(17, 20), R(19, 20)), S.q: (R(3, 10), R(2, 5)), S.A: (-R(1, 50), R(1, 50))}   # p+q > 1, p/(p+q) > q
    for f, want in ((form, True), (mutant, False)):
        in_s = f.subs(S.b, sp.log(C.sland.s0 / (1 - C.sland.s0)) + S.e**2 / 2)
        certs = C._at_optimal_offset(in_s, box, -1, max_depth=14)
        assert all(c.ok for c in certs) is want


def REGISTRY_OR_LOAD():
    load_all()
    return REGISTRY


def test_the_f2_claim_is_proved_over_the_whole_domain_with_an_interval_corroboration_and_its_mutant_rejected():
    reg = REGISTRY_OR_LOAD()
    rec = run_claim(reg["cert.thm2.f2_negative"], Context())
    assert rec.own_status == "proved", rec.evidence
    assert rec.control.startswith("rejected"), rec.control
    assert "covered" in rec.corroboration and "boxes" in rec.corroboration


def test_certified_claims_weaker_than_a_proof_are_gone():
    reg = REGISTRY_OR_LOAD()
    for cid in ("cert.lemma8.axis_sign", "cert.lemma12.monotone", "cert.structure.G_convex"):
        assert cid not in reg
    for cid in ("lemma8.axis", "lemma12.i", "lemma12.ii", "lemma12.iv", "structure.G_convex"):
        assert cid in reg


def test_interval_program_handles_shared_subexpressions_and_non_integer_powers():
    # (x^2 + 1)^(3/2) and x^(1/3) go through exp(r log x); the shared x^2 + 1 is one step of the program
    expr = (x**2 + 1) ** R(3, 2) + (x**2 + 1) ** -R(1, 2) + x ** R(1, 3) * sp.pi - sp.E
    f = arb_function(expr, (x,))
    g = sp.lambdify((x,), expr, "mpmath")
    for lo, hi in ((R(1, 10), R(1, 5)), (R(1), R(3, 2)), (R(7, 2), R(4))):
        iv = f(interval(lo, hi))
        with mp.workdps(40):
            for t in (lo, (lo + hi) / 2, hi):
                v = g(mp.mpf(t.p) / t.q)
                assert float(iv.lo.lower()) - 1e-12 <= float(v) <= float(iv.hi.upper()) + 1e-12
        assert float(iv.hi.upper() - iv.lo.lower()) < 10 * float(hi - lo) * (1 + float(hi) ** 2)
