"""The kernel pass (proofs/kernel): certificates printed from the steps' SymPy obligations, compiled by coqc.

What is established: a step becomes `kernel` only when Coq compiled its printed statement; the negative controls'
certificates, generated the same way, do not compile; no certificate holds an escape hatch (Admitted, Axiom, ...);
the printer writes the statement SymPy decided (a printer that drops a term makes true statements false, which
Coq refuses); without coqc nothing is marked; results are cached by the hash of the text and reused."""
from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest
import sympy as sp

from local2global.proofs import _steps as steps
from local2global.proofs.kernel import certificate as C
from local2global.proofs.kernel import coq
from local2global.proofs.kernel import compile as K

pytestmark = pytest.mark.skipif(shutil.which("coqc") is None, reason="coqc not installed (Debian: apt-get install coq)")

p, q = sp.symbols("p q", positive=True)
e = sp.Symbol("e", real=True)
w_pos = sp.Symbol("w", positive=True)


def _compiles(ob: steps.Obligation) -> bool:
    return K._compile_one(C.file_text(C.lemmas(ob, "L")), "t").ok


@pytest.fixture
def coq_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("L2G_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache" / "coq"


# --- the printer and single certificates -------------------------------------------------------------

def test_the_printer_writes_coq_reals_and_refuses_what_has_no_counterpart():
    assert coq.term(p * q / (p + q) ** 2 - sp.Rational(1, 2)) == "((p * q / (p + q) ^ 2) - (1 / 2))"
    assert coq.term(sp.exp(-e) + sp.log(p) + sp.sqrt(q)) == "(sqrt q + ln p + exp (- e))"
    for bad in (sp.Float("0.5") * p, sp.airyai(e), p ** sp.Rational(1, 3)):
        with pytest.raises(coq.NotCoq):
            coq.term(bad)
    names, hyps = coq.binders(p + e + w_pos)
    assert names == ["e", "p", "w"] and hyps == ["0 < p < 1", "0 < w"]


@pytest.mark.slow
@pytest.mark.parametrize("true, false", [
    # a rational identity (field), with its denominators
    (steps.Obligation.equal(p * q / (p + q), q / (1 + q / p)), steps.Obligation.equal(p * q / (p + q), q / (1 + p / q))),
    # logarithm rules: ln(p/(p+q)) + ln((p+q)/p) = 0
    (steps.Obligation.equal(sp.log(p / (p + q)), -sp.log((p + q) / p)),
     steps.Obligation.equal(sp.log(p / (p + q)), sp.log((p + q) / p))),
    # exponential rules: exp(2e) exp(-e) = exp(e)
    (steps.Obligation.equal(sp.exp(2 * e) * sp.exp(-e), sp.exp(e)), steps.Obligation.equal(sp.exp(2 * e) * sp.exp(-e), sp.exp(-e))),
    # a square root squared away
    (steps.Obligation.equal((sp.sqrt(p ** 2 + 4 * q) - p) * (sp.sqrt(p ** 2 + 4 * q) + p), 4 * q),
     steps.Obligation.equal((sp.sqrt(p ** 2 + 4 * q) - p) * (sp.sqrt(p ** 2 + 4 * q) + p), 2 * q)),
    # an inequality, and a sign taken at a point (hypothesis e = 0)
    (steps.Obligation("> 0", p * q / (p + q)), steps.Obligation("< 0", p * q / (p + q))),
    (steps.Obligation.at("== 0", e * (1 + w_pos), {e: 0}), steps.Obligation.at("== 0", (e + 1) * (1 + w_pos), {e: 0})),
    # square roots by cofactors: 1 / (p + sqrt(p^2 + 4q)) = (sqrt(p^2 + 4q) - p) / (4q)
    (steps.Obligation.equal(1 / (p + sp.sqrt(p ** 2 + 4 * q)), (sp.sqrt(p ** 2 + 4 * q) - p) / (4 * q)),
     steps.Obligation.equal(1 / (p + sp.sqrt(p ** 2 + 4 * q)), (sp.sqrt(p ** 2 + 4 * q) - p) / (2 * q))),
    # an ideal membership with SymPy's cofactors: the components of grad A vanish -> e^2 = 0 (w > 0)
    (steps.Obligation("== 0", e ** 2, unit_pq=False, hypotheses=(sp.Eq(4 * e * w_pos ** 2 + 2 * e, 0, evaluate=False),
                                                                  sp.Eq(4 * w_pos * e ** 2, 0, evaluate=False))),
     steps.Obligation("== 0", e ** 2 - 1, unit_pq=False, hypotheses=(sp.Eq(4 * e * w_pos ** 2 + 2 * e, 0, evaluate=False),
                                                                      sp.Eq(4 * w_pos * e ** 2, 0, evaluate=False)))),
    # the same with a multiplier: e != 0 and e (a e^2 + 1) = 0 give a e^2 + 1 = 0 (e cancelled by Rmult_eq_reg_l)
    (steps.Obligation("== 0", e ** 2 * sp.Symbol("a", real=True) + 1, unit_pq=False, hypotheses=(
        sp.Ne(e, 0, evaluate=False), sp.Eq(e ** 3 * sp.Symbol("a", real=True) + e, 0, evaluate=False))),
     steps.Obligation("== 0", e ** 2 * sp.Symbol("a", real=True) + 2, unit_pq=False, hypotheses=(
         sp.Ne(e, 0, evaluate=False), sp.Eq(e ** 3 * sp.Symbol("a", real=True) + e, 0, evaluate=False)))),
    # a closed scalar inequality with exp: interval arithmetic (exp(1/2) - 3/2 > 0, exp(1/2) - 5/3 < 0)
    (steps.Obligation("> 0", sp.exp(sp.Rational(1, 2)) - sp.Rational(3, 2)),
     steps.Obligation("> 0", sp.exp(sp.Rational(1, 2)) - sp.Rational(5, 3))),
    # a derivative (Coquelicot's is_derive by auto_derive), with exponentials rewritten in the identity part
    (steps.Obligation.derivative(sp.log(1 + sp.exp(-e * w_pos)), e, -w_pos / (1 + sp.exp(e * w_pos))),
     steps.Obligation.derivative(sp.log(1 + sp.exp(-e * w_pos)), e, w_pos / (1 + sp.exp(e * w_pos)))),
    (steps.Obligation.derivative(e ** 2 - w_pos ** 2 - sp.log(w_pos), w_pos, -2 * w_pos - 1 / w_pos),
     steps.Obligation.derivative(e ** 2 - w_pos ** 2 - sp.log(w_pos), w_pos, -2 * w_pos + 1 / w_pos)),
])
def test_a_true_statement_compiles_and_its_altered_statement_does_not(true, false):
    assert _compiles(true)
    assert not _compiles(false)


@pytest.mark.slow
def test_a_printer_that_drops_a_term_is_caught_by_the_kernel(monkeypatch):
    """The kernel checks the printed statement: a printer bug that drops the last term of a sum turns this true
    identity into a false one, whose certificate Coq refuses (the step would stay SymPy's)."""
    ob = steps.Obligation.equal((p + q) ** 2, p ** 2 + 2 * p * q + q ** 2)
    assert _compiles(ob)
    real_add = coq._Printer._add

    def dropping(self, ex):
        terms = list(ex.as_ordered_terms())
        return real_add(self, sp.Add(*terms[:-1], evaluate=False)) if len(terms) > 2 else real_add(self, ex)
    monkeypatch.setattr(coq._Printer, "_add", dropping)
    assert not _compiles(ob)


def test_a_root_identity_field_cannot_reach_gets_cofactors_and_a_derivative_states_is_derive():
    root = sp.sqrt(p ** 2 + 4 * q)
    lem = C.lemma(steps.Obligation.equal(1 / (p + root), (root - p) / (4 * q)), "L")
    assert "Hcof" in lem.script and "s0 * s0 = " in lem.script
    eq, der = C.lemmas(steps.Obligation.derivative(sp.log(1 + sp.exp(-e * w_pos)), e, -w_pos / (1 + sp.exp(e * w_pos))), "D")
    assert eq.name == "D_eq" and der.coquelicot and "is_derive (fun x_ : R => ln (1 + exp (- (x_ * w)))) e" in der.statement
    assert C.COQUELICOT in C.file_text([eq, der]) and C.COQUELICOT not in C.file_text([lem])


def test_the_prelude_and_a_certificate_carry_no_escape_hatch():
    lem = C.lemma(steps.Obligation.equal(p * q / (p + q), q / (1 + q / p)), "L")
    for text in (C.PRELUDE, lem.text):
        for word in C.FORBIDDEN:
            assert not re.search(rf"\b{word}\b", text), word


@pytest.mark.slow
def test_a_statement_with_a_denominator_of_unknown_sign_states_where_it_is_defined():
    ob = steps.Obligation.equal(p / (p - q) - q / (p - q), sp.Integer(1))
    lem = C.lemma(ob, "L")
    assert lem.where_defined and "(p - q) <> 0 ->" in lem.statement and _compiles(ob)


# --- the pass over claim records ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def kernel_run(claim_records, tmp_path_factory):
    """The kernel pass over every claim record (the fixture's records carry their obligations in this process),
    written to a build folder; (records before, records after, summary, folder)."""
    import os
    from local2global.proofs import kernel
    out = tmp_path_factory.mktemp("kernel")
    old = os.environ.get("L2G_CACHE")
    os.environ["L2G_CACHE"] = str(out / "cache")          # a cold cache: every certificate is compiled here
    try:
        before = list(claim_records.values())
        after, summary = kernel.apply(before, out)
    finally:
        if old is None:
            os.environ.pop("L2G_CACHE")
        else:
            os.environ["L2G_CACHE"] = old
    return {r.id: r for r in before}, {r.id: r for r in after}, summary, out


@pytest.mark.slow
def test_the_kernel_pass_marks_exactly_the_steps_whose_certificate_compiled(kernel_run):
    before, after, summary, out = kernel_run
    marked = 0
    for cid, rec in after.items():
        for k, s in enumerate(rec.steps):
            if s.kind == "kernel":
                marked += 1
                assert before[cid].steps[k].kind == "exact" and before[cid].steps[k].obligations
                path = out / s.certificate
                assert path.is_file()
                done = subprocess.run(["coqc", "-q", path.name], cwd=out / "coq", capture_output=True, timeout=120)
                assert done.returncode == 0, (cid, k, done.stdout[-300:])
            else:
                assert s.kind == before[cid].steps[k].kind
    assert marked == summary.certified_steps > 0
    assert summary.exact_steps == sum(s.kind == "exact" for r in before.values() for s in r.steps)


@pytest.mark.slow
def test_every_control_certificate_fails_to_compile_and_none_is_a_contradiction(kernel_run):
    _, _, summary, out = kernel_run
    assert summary.controls_total > 0 and summary.controls_refused == summary.controls_total
    assert not summary.control_alarms
    controls = sorted((out / "coq").glob("*__control.v"))
    assert len(controls) == summary.controls_total
    for path in controls[:3]:
        assert subprocess.run(["coqc", "-q", path.name], cwd=out / "coq", capture_output=True, timeout=120).returncode


@pytest.mark.slow
def test_no_certificate_holds_admitted_admit_axiom_or_parameter(kernel_run):
    _, _, _, out = kernel_run
    files = sorted((out / "coq").glob("*.v"))
    assert files
    for path in files:
        text = path.read_text()
        for word in C.FORBIDDEN:
            assert not re.search(rf"\b{word}\b", text), (path.name, word)


@pytest.mark.slow
def test_the_items_the_issue_names_are_kernel_checked(kernel_run):
    """Lemma 5's b* and root choice, Lemma 2, G'(0), Lemma 9's energy, Thm 1's critical sets, Lemma 12,
    Lemma C: each has kernel-checked steps."""
    _, after, _, _ = kernel_run
    for cid in ("lemma5.quadratic", "lemma5.root_choice", "lemma5.b_star", "lemma2.logistic", "structure.G_prime",
                "lemma7.balance", "lemma9.conservation", "lemma14.energy", "thm1.critical_points", "lemma12.i",
                "lemma12.ii", "r3.lemma_c"):
        assert any(s.kind == "kernel" for s in after[cid].steps), cid


@pytest.mark.slow
def test_the_critical_sets_and_their_completeness_are_kernel_checked(kernel_run):
    """Thms 1, 9, 10: the printed families' equations and conditions (equal to the derived ones) and the
    polynomial elimination of the completeness step (grad A = 0 -> e = 0, or the station factors vanish)."""
    _, after, _, _ = kernel_run
    for cid, elimination in (("thm1.critical_points", "A common zero of the components"),
                             ("thm9.critical_points", r"$\nabla A = 0$ iff"),
                             ("thm10.critical_points", r"$\nabla A = 0$ iff")):
        sts = after[cid].steps
        assert [s.kind for s in sts if s.states.startswith(elimination)] == ["kernel"], cid
        families = [s for s in sts if "printed equation(s) define the derived set" in s.states]
        assert families and all(s.kind == "kernel" for s in families), cid


@pytest.mark.slow
def test_the_energy_steps_are_kernel_checked_with_their_derivatives(kernel_run):
    """Lemmas 9 and 14: the steps dE/dt = 0 carry the partial derivatives of E and A as is_derive statements."""
    _, after, _, out = kernel_run
    for cid in ("lemma9.conservation", "lemma14.energy"):
        texts = [(out / s.certificate).read_text() for s in after[cid].steps if s.kind == "kernel"]
        assert any("is_derive (fun x_ : R =>" in t and C.COQUELICOT in t for t in texts), cid


@pytest.mark.slow
def test_the_trust_base_counts_the_kernel_checked_steps_and_names_coq(kernel_run):
    _, after, _, _ = kernel_run
    rec = after["lemma5.root_choice"]
    assert rec.trust["counts"]["kernel"] > 0 and "coq" in rec.trust["software"]
    assert rec.status == "proved"


@pytest.mark.slow
def test_the_summary_is_deterministic_data(kernel_run):
    _, _, summary, out = kernel_run
    d = json.loads((out / "coq" / "summary.json").read_text())
    assert d["certified_steps"] == summary.certified_steps and "cached" not in d and "seconds" not in d


@pytest.mark.slow
def test_a_second_pass_reads_every_result_from_the_cache_and_gives_the_same_records(kernel_run, monkeypatch):
    before, after, summary, out = kernel_run
    from local2global.proofs import kernel
    monkeypatch.setenv("L2G_CACHE", str(out / "cache"))
    again, s2 = kernel.apply(list(before.values()), None)
    assert s2.cached == s2.files == summary.files
    assert [r.as_dict() for r in again] == [after[r.id].as_dict() for r in again]


@pytest.mark.slow
def test_without_coqc_the_check_says_so_in_one_line_and_marks_nothing(monkeypatch, capsys):
    from local2global.cli import main
    from local2global.proofs.kernel import compile as comp
    monkeypatch.setattr(comp.shutil, "which", lambda name: None)
    assert main(["check", "--only", "lemma5.root_choice", "--kernel", "--json"]) == 0
    out, err = capsys.readouterr()
    assert [ln for ln in err.splitlines() if "coqc is not installed" in ln] and "kernel" not in {
        s["kind"] for r in json.loads(out) for s in r["steps"]}
