"""Contracts of small helpers that the claims use without exercising every branch: a solved set's condition,
the accuracy a flow's limit is named at, the derivation cache under missing folders, immutable results, the
defaults of the symbolic side of the full-model comparison, and the corroboration text of the critical-set
checks. Each test here was written because a code mutation of that helper survived `l2g check` and the other
tests (benchmarks/mutate_code.py)."""
from __future__ import annotations

import dataclasses
from fractions import Fraction

import mpmath as mp
import pytest
import sympy as sp

from local2global.numeric.precision import limit_accuracy, limit_tolerances
from local2global.symbolic import symbols as S
from local2global.symbolic._result import Result


# --- numeric/evaluate/pointeval.py: a solved set's condition, decided exactly ------------------------------

def test_a_condition_is_decided_exactly_and_false_means_false():
    from local2global.numeric.evaluate.pointeval import _condition_holds
    at = {S.p: Fraction(9, 10), S.q: Fraction(9, 10), S.w: Fraction(-1, 2)}
    assert _condition_holds(sp.true, at) and not _condition_holds(sp.false, at)
    assert _condition_holds(S.p + S.q > 1, at) and not _condition_holds(S.p + S.q < 1, at)
    with pytest.raises(AssertionError):                     # a condition the values cannot decide
        _condition_holds(S.e > 0, at)


# --- numeric/precision.py: the accuracy of a named limit ---------------------------------------------------

@pytest.mark.parametrize("dps", [20, 30, 50])
def test_the_saddle_is_named_at_the_loosest_accuracy_and_the_minima_at_ten_times_looser_than_half(dps):
    tol = limit_tolerances(dps)
    assert limit_accuracy(dps, "saddle") == mp.mpf(10) ** (-(dps // 4))
    for cls in ("global_min", "local_min", "local_max", None):
        assert limit_accuracy(dps, cls) == mp.mpf(10) ** (-(dps // 2 - 3))
    assert limit_accuracy(dps, "saddle") > limit_accuracy(dps, "local_min") == max(tol["tol_e"], tol["tol_A"])
    assert limit_accuracy(dps, "local_min", stationary=True) == mp.mpf(10) ** (-(dps - 5))


# --- symbolic/_cache.py: the cache folder is created with its missing parents -------------------------------

def test_the_derivation_cache_is_written_under_missing_parent_folders(tmp_path, monkeypatch):
    from local2global.symbolic import _cache
    root = tmp_path / "not" / "yet" / "there"
    monkeypatch.setenv("L2G_CACHE", str(root))
    monkeypatch.delenv("L2G_NO_DERIVATION_CACHE", raising=False)

    @_cache.derivation
    def square(n):
        return sp.Integer(n) ** 2

    assert square(7) == 49
    assert len(list((root / "derivations").glob("square-*.pickle"))) == 1


# --- symbolic/_result.py: a derived result is immutable (derivations are shared between claims) -------------

def test_a_derived_result_cannot_be_changed_by_a_caller():
    r = Result("Lemma 5", "b*", ("e != 0",), {"x": sp.Integer(1)})
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.ref = "Lemma 6"                                   # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.expressions = {}                                  # type: ignore[misc]


# --- numeric/transformer/experiments.py: the symbolic side at its default precision -------------------------

def test_symbolic_values_at_the_default_precision_match_the_landscape():
    from local2global.numeric.evaluate.landscape import Landscape
    from local2global.numeric.transformer.experiments import symbolic_values
    p, q, e, w = Fraction(3, 10), Fraction(2, 5), Fraction(1, 2), Fraction(-3, 4)
    got = symbolic_values(p, q, e, w)
    with mp.workdps(40):
        land = Landscape(p, q)
        b = land.b_star((e, w))
        loss, grad = land.loss_b((e, w), b), land.grad_b((e, w), b, side=1)
    assert got["vars"] == ["e", "w", "b"]
    assert got["b"] == pytest.approx(float(b), rel=1e-13, abs=1e-15)
    assert got["loss"] == pytest.approx(float(loss), rel=1e-13)
    for name, g in zip(("e", "w", "b"), grad):
        assert got["grad"][name] == pytest.approx(float(g), rel=1e-12, abs=1e-14)


# --- proofs/_checks.py: the critical-set check reports its sampled corroboration --------------------------

def test_the_critical_set_check_reports_its_corroboration_and_a_failed_one_fails():
    from local2global.proofs._checks import critical_sets_outcome
    from local2global.proofs._registry import Context
    from local2global.symbolic import canonical_model
    derived = {cs.name: cs for cs in canonical_model(False).critical_sets(False)}
    name, cs = next((n, c) for n, c in derived.items() if c.condition is not sp.true)
    form = {n: tuple((eq.lhs, eq.rhs) for eq in c.equations if isinstance(eq, sp.Eq))
            + ((c.condition,) if c.condition is not sp.true else ()) for n, c in derived.items()}
    out = critical_sets_outcome(derived, form, Context(dps=30))
    assert out.ok and out.level == "proved" and out.corroborations
    assert all(s.kind == "sampled" and s.ok for s in out.corroborations)
    assert any(s.states.startswith(name) for s in out.corroborations)
    # the negated condition: the exact comparison and the sampled one both reject it
    bad = dict(form)
    bad[name] = form[name][:-1] + (sp.Not(cs.condition),)
    out = critical_sets_outcome(derived, bad, Context(dps=30))
    assert not out.ok
    assert any(s.kind == "exact" and not s.ok and s.states.startswith(name) for s in out.steps)
    assert any(s.kind == "sampled" and not s.ok for s in out.corroborations)


# --- numeric/dynamics/gaussian.py: the acceptance threshold of a certified probability ---------------------

def test_an_enclosure_meeting_the_documented_relative_radius_is_accepted_without_a_retry(monkeypatch):
    """The promise is rad/|x| <= 10^-floor(dps/2): a ball just inside it is accepted at the first precision, one
    just outside it is retried with 64 more bits and then refused."""
    import flint
    from local2global.numeric.dynamics import gaussian as G
    dps = 40
    calls = []

    def pieces(rel):
        def fake(regime, sigma, d):
            calls.append(flint.ctx.prec)
            x = flint.arb(flint.arb(1) / 3, flint.arb(rel) / 3)        # radius = rel * |mid|, up to rounding
            return {"local_min": x, "global_min": x, "local_min_info": {}, "global_min_info": {}}
        return fake

    inside = flint.arb(10) ** (-(dps // 2)) * flint.arb("0.99")    # inside 10^-20 but outside 11^-20
    monkeypatch.setattr(G, "_pieces", pieces(inside))
    G._certified.cache_clear()
    out = G._certified(1, Fraction(1, 50), dps)
    assert out["prec"] == G._bits(dps) and calls == [G._bits(dps)]
    calls.clear()
    monkeypatch.setattr(G, "_pieces", pieces(flint.arb(10) ** (-(dps // 2)) * flint.arb("1.02")))
    G._certified.cache_clear()
    with pytest.raises(ArithmeticError):
        G._certified(1, Fraction(1, 50), dps)
    assert calls == [G._bits(dps), G._bits(dps) + 64]
    G._certified.cache_clear()


# --- symbolic/basins_r3.py: f^-1 on each branch of w < 0 (the race thresholds w_c, w_c' are built from it) -----

@pytest.mark.parametrize("gap", [Fraction(1, 4), Fraction(2), Fraction(9)])
def test_each_branch_inverse_solves_f_eq_c_on_its_own_branch(gap):
    from local2global.symbolic import basins_r3 as sr3, energy as senergy
    lw, ew = sr3.lambert_inverse(), senergy.energy_on_w_axis()
    c = ew["E_sad"] - sp.Rational(gap.numerator, gap.denominator)          # a level below E_sad: two roots on w < 0
    f_neg = sp.lambdify(S.w_neg, ew["f_w<0"], "mpmath")
    f_pos = sp.lambdify(S.w_pos, ew["f_w>0"], "mpmath")
    with mp.workdps(50):
        edge = -1 / mp.sqrt(2)
        for key, f, inside in (("w_mid", f_neg, lambda x: edge < x < 0), ("w_low", f_neg, lambda x: x < edge),
                               ("w_pos", f_pos, lambda x: x > 0)):
            x = mp.mpf(sp.N(lw[key].subs(sr3.c_lev, c), 60))
            assert inside(x), (key, x)
            assert abs(f(x) - mp.mpf(sp.N(c, 60))) < mp.mpf(10) ** -40, key


def test_the_bounded_phase_step_needs_every_one_of_its_limits():
    """Thm C (i)'s step (`_bounded_phase`) holds on the derived facts, and fails as soon as any one of the
    limits it rests on is different (each is a separate premise of the argument)."""
    from local2global.symbolic import basins_r3 as sr3
    F = dict(sr3.r3_facts().expressions)
    assert sr3._bounded_phase(F)
    for key, wrong in (("U(ell->+oo)", -sp.oo), ("h(ell->+oo)", -sp.oo), ("U(ell->-oo)", sp.oo),
                       ("h(ell->-oo)", -sp.oo)):
        assert not sr3._bounded_phase({**F, "limits": {**F["limits"], key: wrong}}), key
    assert not sr3._bounded_phase({**F, "E_sad_minus_f_at_w_sad": sp.Integer(1)})


# --- symbolic/model.py: the reduced gradient G'(A)∇A of the model object, against the compiled flow field ----

@pytest.mark.parametrize("attention", [False, True])
def test_the_models_reduced_gradient_equals_the_numeric_gradient(attention):
    """`CanonicalModel.gradient` (G'(A)∇A, symbolic) against `Landscape.grad` (the compiled path through
    G'(A) written in e^A, `landscape.G_prime_expr`): two routes to ∇L, equal at random points to 40 digits."""
    import random
    from local2global.numeric.evaluate.landscape import Landscape
    from local2global.symbolic import canonical_model
    m = canonical_model(attention)
    rng = random.Random(7)
    for p, q in ((Fraction(9, 10), Fraction(4, 5)), (Fraction(1, 5), Fraction(3, 10))):
        land = Landscape(p, q, attention=attention)
        for _ in range(3):
            theta = tuple(Fraction(rng.randint(-15, 15), 10) or Fraction(1, 3) for _ in m.params)
            sub = {S.p: sp.Rational(p.numerator, p.denominator), S.q: sp.Rational(q.numerator, q.denominator),
                   **{v: sp.Rational(x.numerator, x.denominator) for v, x in zip(m.params, theta)}}
            with mp.workdps(50):
                num = land.grad(theta)
                for g_sym, g_num in zip(m.gradient, num):
                    g = mp.mpf(sp.N(g_sym.subs(sub), 60))
                    assert abs(g - g_num) <= mp.mpf(10) ** -40 * (1 + abs(g_num))


# --- symbolic/landscape.py: A* in the paper's form, one logarithm ----------------------------------------

def test_A_star_is_derived_as_one_logarithm_as_the_paper_prints_it():
    from local2global.symbolic import landscape as sland
    A_star = sland.structure()["A_star"]
    assert isinstance(A_star, sp.log)
    assert sp.simplify(A_star - sp.log((1 - S.p) * (1 - S.q) / (S.p * S.q))) == 0


# --- symbolic/energy.py: f = E on the w-axis blows up at 0+ (w > 0 never reaches 0 along a flow) ----------

def test_f_tends_to_plus_infinity_at_zero_from_the_right():
    from local2global.symbolic import energy as senergy
    ew = senergy.energy_on_w_axis()
    assert ew["f(0+)"] == sp.oo
    f_pos = sp.lambdify(S.w_pos, ew["f_w>0"], "mpmath")
    with mp.workdps(30):
        values = [f_pos(mp.mpf(10) ** -k) for k in (5, 10, 20)]
    assert values[0] < values[1] < values[2] and values[2] > 20


# --- every cache under $L2G_CACHE/<kind>, one rule, one owner per kind (numeric.infra.cache.KINDS) -----------

def test_every_cache_lives_under_one_rule_by_kind(tmp_path, monkeypatch):
    from local2global.numeric.infra.cache import KINDS, cache_folder
    from local2global.proofs.outputs.figures import plotting
    from local2global.symbolic import _cache
    monkeypatch.setenv("L2G_CACHE", str(tmp_path))
    monkeypatch.delenv("L2G_NO_DERIVATION_CACHE", raising=False)
    assert plotting.cache_folders() == [str(tmp_path / "attention"), str(tmp_path / "fullmodel")]
    assert plotting.cache_folders(["fig1a"]) == []
    assert set(plotting.CACHES.values()) <= set(KINDS)
    assert _cache._folder() == cache_folder("derivations") == tmp_path / "derivations"
    monkeypatch.delenv("L2G_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_folder("fullmodel") == tmp_path / "xdg" / "local2global" / "fullmodel"
    # switching the derivation cache off leaves the training runs and basin maps where they are
    monkeypatch.setenv("L2G_NO_DERIVATION_CACHE", "1")
    assert _cache._folder() is None and cache_folder("attention") == tmp_path / "xdg" / "local2global" / "attention"
