"""benchmarks/mutate.py: every claim has a mutant, the operators change what they should, and a
mutant of a real claim is killed while its own statement passes (the script cannot report a kill
for a check that accepts everything)."""
from __future__ import annotations

import importlib.util
from fractions import Fraction
from pathlib import Path

import sympy as sp

from local2global.proofs import REGISTRY, Context, load_all

_spec = importlib.util.spec_from_file_location("mutate", Path(__file__).resolve().parent.parent / "benchmarks" / "mutate.py")
M = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(M)
x, y = sp.symbols("x y")


def test_operators_on_each_kind_of_form():
    assert M.mutate(3 * x + 1, "scale") == 6 * x + 1
    assert M.mutate(x + 2 * y, "sign") != x + 2 * y
    assert M.mutate(x, "shift") == x + 1
    assert M.mutate(sp.Matrix([[0, x]]), "shift") == sp.Matrix([[0, x + 1]])
    assert M.mutate({"a": "global_min", "b": "saddle"}, "sign") == {"a": "local_min", "b": "saddle"}
    assert M.mutate(frozenset({"u", "v"}), "sign") == frozenset({"v"})
    assert M.mutate(Fraction(9, 10), "sign") == Fraction(-9, 10)
    assert M.mutate(sp.StrictGreaterThan(x, 0), "sign") == sp.StrictGreaterThan(-x, 0)
    assert M.mutate(sp.And(x > 1, y > 0), "shift") == sp.And(x + 1 > 1, y > 0)
    assert M.mutate(1, "scale") is None and M.mutate("no label", "sign") is None


def test_every_checkable_claim_has_at_least_one_mutant():
    load_all()
    without = []
    for cid, cl in REGISTRY.items():
        if cl.open_reason:
            continue
        form = cl.corrected() if cl.corrected is not None else cl.printed()
        if not any((m := M.mutate(form, op)) is not None and m != form for op in M.OPERATORS):
            without.append(cid)
    assert without == []


def test_a_run_kills_the_mutants_of_lemma8_and_reports_them():
    res = M.run(["lemma8.schur"], points=8, timeout=120)
    rows = [r for r in res["mutants"] if r["result"] != "not applicable"]
    assert rows and all(r["result"] == "killed" for r in rows)
    assert res["summary"]["survived"] == [] and res["summary"]["claims_without_mutant"] == []
    # the same check accepts the printed statement: the kills are not a check that rejects everything
    assert REGISTRY["lemma8.schur"].check(REGISTRY["lemma8.schur"].printed(), Context(points=8)).ok


def test_a_weaker_true_bound_is_reported_implied_and_a_killed_implied_mutant_fails_the_run(monkeypatch):
    """full.theta_min_bound's K = 35 made 70 or 36 is implied by the claim (a weaker bound): its check accepts
    it, and the run lists it as implied, not as a survivor or a kill; K = -35 is killed. Marking a mutant the
    check rejects as implied is reported as a contradiction, which fails the run."""
    res = M.run(["full.theta_min_bound"], points=8, timeout=120)
    s = res["summary"]
    assert sorted(s["implied"]) == ["full.theta_min_bound:scale", "full.theta_min_bound:shift"]
    assert s["survived"] == [] and s["triage_contradicted"] == [] and s["kill_rate"].startswith("1/1")
    monkeypatch.setitem(M.IMPLIED, "full.theta_min_bound:sign", ("-35", "wrongly called implied"))
    s = M.run(["full.theta_min_bound"], points=8, timeout=120)["summary"]
    assert s["triage_contradicted"] == ["full.theta_min_bound:sign"]
    # a triage names its mutant: the same key with another mutant is not covered
    monkeypatch.setitem(M.IMPLIED, "full.theta_min_bound:scale", ("71", "another mutant"))
    s = M.run(["full.theta_min_bound"], points=8, timeout=120)["summary"]
    assert "full.theta_min_bound:scale" in s["survived"]
