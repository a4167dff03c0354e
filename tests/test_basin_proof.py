"""The proof of Thms 2 and 8 is a computation over derived facts: change one fact, one argued premise, the rule or
one region of the printed sets, and the theorem fails.

`symbolic.basins.limit_walk` computes the limit of every flow from the derived `contour_facts` (walking along the
contour of the conserved energy); the claims compare it with the printed sets on every feasible sign datum, and
Lemma 10 checks it against the decrease of the loss. These tests show the comparisons are not vacuous.
"""
from __future__ import annotations

import copy
from dataclasses import replace

import pytest
import sympy as sp

from local2global.proofs import REGISTRY, Context, load_all
from local2global.proofs._registry import run_claim
from local2global.symbolic import basins as sb

load_all()
CTX = Context(points=4)


def _facts():
    return copy.deepcopy(dict(sb.contour_facts().expressions))


@pytest.mark.parametrize("regime,label", [(1, "p+q>1"), (-1, "p+q<1")])
def test_the_walk_reproduces_the_printed_sets_on_every_feasible_sign_datum(regime, label):
    cases = sb.sign_cases(regime)
    assert len(cases) == 23
    assert all(sb.limit_rule(regime, *c) == sb.set_class(label, *c) for c in cases)


def test_every_walk_ends_at_a_finite_critical_point_and_says_how():
    for regime in (1, -1):
        for c in sb.sign_cases(regime):
            lim = sb.limit_walk(regime, *c)
            assert lim.finite and lim.limit_class in sb.CLASSES and lim.events, c
            assert all(isinstance(x, str) and "True" not in x and "None" not in x for x in lim.events)


@pytest.mark.parametrize("mutate", [
    lambda F: F["V_sign"].update({"(w_sad,0)": -1}),          # the sign of 1 + 2w|w| right of the saddle
    lambda F: F["V_sign"].update({"w>0": -1}),
    lambda F: F["f_sign"].update({"(w_sad,0)": 1}),           # f' on (w_sad, 0)
    lambda F: F["E_sad_minus_f_sign"].update({"(-inf,w_sad)": 0}),
    lambda F: F["dA_dw_sign"].update({"w>0": -1}),            # the direction of motion on w > 0
    lambda F: F["A_end"].update({"-oo": sp.Integer(1)}),      # A bounded at an unbounded end
    lambda F: F["limits"].update({"e2(-oo)": -sp.oo}),        # the branch ending before w -> -oo
    lambda F: F.update({"A_star_sign_times_regime": 1}),     # the sign of A*
])
def test_changing_one_derived_fact_breaks_the_proof(mutate):
    F = _facts()
    mutate(F)
    broken = 0
    for regime, label in ((1, "p+q>1"), (-1, "p+q<1")):
        for c in sb.sign_cases(regime):
            try:
                broken += sb.limit_rule(regime, *c, facts=F) != sb.set_class(label, *c)
            except ValueError:
                broken += 1                                   # the argument no longer decides the case
    assert broken > 0


def _rejects(cid, monkeypatch=None) -> bool:
    return run_claim(REGISTRY[cid], CTX).status == "failed"


def _const_walk(*args, **kw):
    return sb.Limit("local_max", "anywhere", ("a rule that always answers local_max",))


@pytest.mark.parametrize("cid", ["lemma10.convergence", "thm2.basins", "thm8.basins", "icommon"])
def test_a_constant_limit_rule_is_rejected(monkeypatch, cid):
    """The issue's alteration: a rule that always answers local_max. Lemma 10 rejects it on the loss (the limits
    must agree with the decrease of L and with the classes of the critical starts), the basin theorems through
    the comparison of the sets with the rule."""
    monkeypatch.setattr(sb, "limit_walk", _const_walk)
    rec = run_claim(REGISTRY[cid], CTX)
    assert rec.status == "failed"
    failing = [s.states for s in rec.steps if not s.ok]
    assert failing and not any(s.startswith("$g(w)^2") or s.startswith("$g$ is") for s in failing)
    if cid == "lemma10.convergence":
        assert any("decrease of the loss" in s for s in failing)


def test_I_min_without_w_positive_is_rejected_through_the_sets_not_the_level_set():
    """The issue's alteration of the sets: {w > 0} taken out of I_min (it falls to I*). It is Thm 2's negative
    control; the same check must reject it through the comparison with the walk, the g-steps still passing."""
    from local2global.proofs import claims_20_flow as C20
    altered = C20._moved("p+q>1", "I_min", drop=C20._W_POSITIVE)
    assert [b.pieces for b in altered[1] if b.name == "I_min"][0] != [b.pieces for b in sb.basins("p+q>1") if b.name == "I_min"][0]
    cl = replace(REGISTRY["thm2.basins"], printed=lambda: altered)
    rec = run_claim(cl, CTX)
    assert rec.status == "failed"
    out = REGISTRY["thm2.basins"].check(altered, CTX)
    bad = [s for s in out.steps if not s.ok]
    assert len(bad) == 1 and "feasible sign data" in bad[0].states
    assert any("DIFFERENT" in v for _, v in bad[0].values)
    ctl = run_claim(REGISTRY["thm2.basins"], CTX)
    assert ctl.control_rejected and [s.states for s in ctl.control_steps if not s.ok] == [bad[0].states]


@pytest.mark.parametrize("cid,alter", [
    ("thm8.basins", lambda C: C._moved("p+q<1", "I_min", add=C._W_ZERO)),             # the e-axis into I_min
    ("thm8.basins", lambda C: C._moved("p+q<1", "I_max", drop=sb.basins("p+q<1")[1].pieces[0])),  # Θmax to I*
    ("icommon", lambda C: C._icommon_mutant()),                                        # |e| = g into I_common
    ("icommon", lambda C: (C.G_PRINTED, sb.Piece(((sb.w, "<"), (sb._abs_e_minus_g(C.G_PRINTED), "<"))))),
])
def test_a_region_moved_between_outcomes_is_rejected_by_the_comparison(cid, alter):
    from local2global.proofs import claims_20_flow as C20
    out = REGISTRY[cid].check(alter(C20), CTX)
    assert not out.ok
    bad = [s for s in out.steps if not s.ok]
    assert bad and all("sign data" in s.states or "sign datum" in s.states for s in bad)


@pytest.mark.parametrize("premises", [sb.Premises(motion=-1), sb.Premises(a_monotone=False)])
def test_mutating_an_argued_step_of_the_walk_fails_the_basin_theorems(monkeypatch, premises):
    """The argued steps (`ARGUED`) enter the walk as `Premises`: the one-dimensional solution moves with its field
    and stops at the first zero; A moves monotonically towards A* and blocks the ends beyond it. Reversing the one
    or dropping the other makes the theorems' comparison fail."""
    monkeypatch.setattr(sb, "PREMISES", premises)
    for cid in ("thm2.basins", "thm8.basins"):
        assert run_claim(REGISTRY[cid], CTX).status == "failed", cid


def test_the_argued_steps_are_printed_in_full_in_lemma10s_record():
    rec = run_claim(REGISTRY["lemma10.convergence"], CTX)
    argued = [s for s in rec.steps if s.kind == "argued"]
    assert {s.argument for s in argued} == {a for _, a in sb.ARGUED.values()}
    assert all(len(s.argument) > 400 for s in argued)


def test_the_sets_read_through_a_wrong_g_do_not_match_the_level_set():
    from local2global.proofs.claims_20_flow import _G_MUTANT, G_PRINTED, _g_steps
    assert all(s.ok for s in _g_steps(G_PRINTED, CTX)) and all(s.kind == "exact" for s in _g_steps(G_PRINTED, CTX))
    assert not all(s.ok for s in _g_steps(_G_MUTANT, CTX))
    assert not all(s.ok for s in _g_steps(sp.Abs(G_PRINTED) + 1, CTX))
