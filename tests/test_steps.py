"""The steps of a proof as data (proofs/_steps.py): kinds, strength, the trust base, the one uses resolver."""
from __future__ import annotations

import pytest

from local2global.proofs import _steps as st
from local2global.proofs._registry import Outcome, Record, propagate, resolve_uses, uses_closure


def test_the_strength_of_steps_is_their_weakest_rung_and_argued_or_cited_steps_give_none():
    ex = st.exact("x = x", True)
    iv = st.interval("f > 0 on a box", True, method="arb", domain="[0, 1]", count=3, bits=128)
    sa = st.sampled("g = 0 at points", True, method="mpmath", domain="20 points", count=20, digits=50)
    ar = st.argued("the flow is bounded", "E is conserved and coercive, so the orbit stays in a compact set.")
    ci = st.cited("Ai > 0 on (0, oo)", "DLMF 9.6.1")
    assert st.strength_of([ex]) == "proved"
    assert st.strength_of([ex, iv]) == "certified"
    assert st.strength_of([ex, iv, sa]) == "sampled"
    assert st.strength_of([ex, ar, ci]) == "proved"
    assert st.strength_of([ar, ci]) == "open"          # nothing machine-checked: no rung
    assert st.method_of([ex, sa, ar, ar, ci]) == "exact + sampled + 2 argued + 1 cited"


def test_an_argued_step_needs_its_argument_and_a_cited_step_its_reference():
    with pytest.raises(ValueError):
        st.Step("argued", "a claim")
    with pytest.raises(ValueError):
        st.Step("cited", "a claim")
    with pytest.raises(ValueError):
        st.Step("proved", "not a kind")
    with pytest.raises(ValueError):
        st.Obligation("= 0", 1)


def test_a_step_survives_json_and_loses_only_its_obligations():
    import sympy as sp
    x = sp.Symbol("x")
    s = st.exact("x - x = 0", True, values={"difference": "0"}, obligations=[st.Obligation("== 0", x - x)])
    d = s.as_dict()
    assert "obligations" not in d
    back = st.Step.from_dict(d)
    assert back == s and back.obligations == ()


def test_an_outcome_built_from_steps_reads_its_method_strength_and_evidence_off_them():
    out = Outcome.of(st.exact("a", True), st.sampled("b", True, method="m", domain="d", count=3))
    assert out.ok and out.level == "sampled" and out.method == "exact + sampled"
    assert Outcome.of(st.exact("a", False)).ok is False
    assert Outcome.of(st.exact("a", True), corroboration=[st.sampled("c", False, method="m", domain="d", count=1)]).ok is False
    with pytest.raises(ValueError):
        Outcome.of()


def _rec(cid, uses=(), steps=()):
    return Record(id=cid, ref="", title="", section="", status="proved", method="", evidence="", control="",
                  uses=tuple(uses), own_status="proved", strength=st.strength_of(steps) if steps else "proved",
                  steps=tuple(steps))


def test_the_trust_base_follows_uses_and_the_status_line_names_argued_and_cited_steps():
    a = _rec("a", steps=[st.exact("x", True), st.argued("bounded", "because E is coercive")])
    b = _rec("b.one", steps=[st.interval("y", True, method="arb", domain="[0,1]"), st.cited("Ai > 0", "DLMF 9.6.1")])
    c = _rec("c", uses=("a", "b"), steps=[st.exact("z", True)])
    recs = propagate([a, b, c])
    top = recs[-1]
    assert top.status == "certified"
    assert top.status_line == "certified, 1 argued step, cites DLMF 9.6.1"
    assert top.trust["counts"]["exact"] == 2 and top.trust["counts"]["interval"] == 1
    assert [x["claim"] for x in top.trust["argued"]] == ["a"]
    assert recs[0].status_line == "proved, 1 argued step"


def test_one_resolver_of_uses_for_ids_and_prefixes():
    ids = ["lemma5.b_star", "lemma5.root", "lemma50.x", "thm2"]
    assert resolve_uses("lemma5", ids) == ["lemma5.b_star", "lemma5.root"]
    assert resolve_uses("thm2", ids) == ["thm2"]
    assert uses_closure({"a": ("b",), "b": ("c.x",), "c.x": (), "d": ()}, "a") == ["a", "b", "c.x"]
