"""Thms 9 and 10 (all critical points with attention, in R^4 and R^3) are proved by exact machinery: the derived
families equal the printed ones exactly, the completeness argument holds step by step, the named classes are the
derived ones; altered statements are rejected, and changing one derived ingredient of the classes (the sign of
G'(0)) makes the classes and the theorems fail."""
import pytest
import sympy as sp

from local2global.proofs import Context, REGISTRY, load_all
from local2global.symbolic import landscape as sland
from local2global.symbolic._result import Result
from local2global.symbolic.model import CanonicalModel

load_all()
IDS = ("thm9.critical_points", "thm10.critical_points")


@pytest.mark.parametrize("cid", IDS)
def test_the_printed_critical_sets_are_proved_over_the_whole_stated_domain(cid):
    cl = REGISTRY[cid]
    out = cl.check(cl.printed(), Context(points=4))
    assert out.ok and out.level == "proved", out.evidence
    space = "(e, w, a, b) in R^4" if cid.startswith("thm9") else "(e, w, a) in R^3"
    assert space in out.checked_domain and "p+q != 1" in out.checked_domain
    # every sub-argument is an exact step (the completeness argument among them); the sampled numerics are
    # corroboration only
    assert {s.kind for s in out.steps} == {"exact"} and out.method == "exact"
    assert any(s.states.startswith(r"$\nabla A = 0$ iff") and s.ok for s in out.steps)
    assert any("the conditions select the same points" in s.states for s in out.corroborations)
    assert any("station" in s.states and s.kind == "sampled" and s.ok for s in out.corroborations)


@pytest.mark.parametrize("cid", IDS)
def test_a_station_equation_with_its_sign_flipped_is_rejected_exactly(cid):
    cl = REGISTRY[cid]
    out = cl.check(cl.mutant(), Context(points=4))
    assert not out.ok
    # rejected by the exact comparison, not only by sampling
    bad = [s for s in out.steps if not s.ok]
    assert bad and all(s.kind == "exact" for s in bad)
    assert any("of no proved sign" in v for s in bad for _, v in s.values)


@pytest.mark.parametrize("cid", IDS)
def test_the_local_minima_with_the_opposite_condition_are_rejected(cid):
    import local2global.proofs.claims_30_attention as C30
    cl = REGISTRY[cid]
    out = cl.check(C30._flip_min_condition(cl.printed()), Context(points=4))
    assert not out.ok
    bad = [s for s in out.steps if not s.ok]
    assert any(s.kind == "exact" and s.states.endswith("the printed condition is the derived one")
               and any("ratio $-1$ < 0" in v for _, v in s.values) for s in bad)


def test_the_zero_set_of_grad_A_with_attention_is_the_e_axis_and_the_station_curve():
    import local2global.proofs.claims_30_attention as C30
    ok, how, obligations = C30._grad_A_zero_set_att()
    assert ok, how
    assert obligations and all(o.relation == "== 0" for o in obligations)   # what the kernel re-proves
    assert sum("s, t lie in the ideal of grad A: yes; grad A lies in the ideal (s, t): yes" in x for x in how) == 2
    assert "True" not in " ".join(how)


def test_the_offset_has_a_kink_on_the_station_surface_killed_only_by_F_c():
    import local2global.proofs.claims_30_attention as C30
    ok, how, obligations = C30._kink_of_z0()
    assert ok, how
    assert how.startswith(r"$2 e^{4} w \left|{w}\right|$")
    assert [o.relation for o in obligations] == ["!= 0", "== 0"]


def _derived_classes(model, bias):
    return {cs.name: (str(cs.condition), cs.classification) for cs in model.critical_sets(bias)}


def test_flipping_the_sign_of_G_prime_at_0_changes_the_derived_classes_and_fails_thm9_and_thm10(monkeypatch):
    import local2global.proofs.claims_30_attention as C30
    # derivations are cached on disk by the model's repr: a mutated ingredient must be re-derived
    monkeypatch.setenv("L2G_NO_DERIVATION_CACHE", "1")
    original = _derived_classes(CanonicalModel(True), False)
    true_st = sland.structure()
    flipped = Result(true_st.ref, true_st.title, true_st.assumptions,
                     {**true_st.expressions, "G_prime_at_0": -true_st["G_prime_at_0"]}, true_st.derivation)
    monkeypatch.setattr(sland, "structure", lambda chain=None: flipped)
    after = _derived_classes(CanonicalModel(True), False)            # a fresh instance: nothing cached in memory
    assert after != original
    assert after["Theta_min"][0] != original["Theta_min"][0]
    for cid in IDS:
        monkeypatch.setattr(C30, "_MA", CanonicalModel(True))
        cl = REGISTRY[cid]
        out = cl.check(cl.printed(), Context(points=4))
        assert not out.ok, out.evidence
        assert any(s.states == "$G'(0)/(p + q - 1) > 0$" and not s.ok for s in out.steps)
        name = "Theta_min" if cid.startswith("thm10") else "Gamma_min"
        # the printed region of the local minima now carries another derived class (or no derived family)
        (match,) = [s for s in out.steps if s.states.startswith("Each family whose name asserts a class")]
        notes = [v for _, v in match.values]
        assert not match.ok and any(v.startswith((f"{name}: derived local_max", f"{name}: 0 derived families",
                                                  f"{name}: derived saddle")) for v in notes), notes
    assert sp.sympify(true_st["G_prime_at_0"]) != 0
