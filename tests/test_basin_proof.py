"""The proof of Thms 2 and 8 is a case analysis over derived facts: change one fact and the theorem fails.

`symbolic.basins.limit_rule` decides the limit of every flow from the derived `contour_facts`; the claims
compare it with the printed sets on every feasible sign datum. These tests show the comparison is not
vacuous: flipping one derived ingredient makes the rule disagree with the sets (and the claim fail).
"""
from __future__ import annotations

import copy

import pytest
import sympy as sp

from local2global.symbolic import basins as sb


def _facts():
    return copy.deepcopy(dict(sb.contour_facts().expressions))


@pytest.mark.parametrize("regime,label", [(1, "p+q>1"), (-1, "p+q<1")])
def test_the_limit_rule_reproduces_the_printed_sets_on_every_feasible_sign_datum(regime, label):
    cases = sb.sign_cases(regime)
    assert len(cases) == 23
    assert all(sb.limit_rule(regime, *c) == sb.set_class(label, *c) for c in cases)


@pytest.mark.parametrize("mutate", [
    lambda F: F["V_sign"].update({"(w_sad,0)": -1}),          # the sign of 1 + 2w|w| right of the saddle
    lambda F: F["V_sign"].update({"w>0": -1}),
    lambda F: F["f_sign"].update({"(w_sad,0)": 1}),           # f' on (w_sad, 0)
    lambda F: F["E_sad_minus_f_sign"].update({"(-inf,w_sad)": 0}),
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


def test_the_sets_read_through_a_wrong_g_do_not_match_the_level_set():
    from local2global.proofs.claims_20_flow import _G_MUTANT, G_PRINTED, _g_is_the_level_set
    assert _g_is_the_level_set(G_PRINTED)[0]
    assert not _g_is_the_level_set(_G_MUTANT)[0]
    assert not _g_is_the_level_set(sp.Abs(G_PRINTED) + 1)[0]
