"""The proof-check report: every numbered result of the paper is listed, outputs are deterministic,
the dependency graph follows the claims' `uses` and is drawn."""
import json

import pytest

from local2global.proofs import Record, run_claim, select
from local2global.proofs.outputs.report import NUMBERED_RESULTS, coverage, dependency_graph, numbered_results, write_report


def _paper_results() -> list[str]:
    """The paper's numbered results, counted independently of the report module."""
    return ([f"Lemma {i}" for i in range(1, 17)] + [f"Theorem {i}" for i in range(1, 12)]
            + [f"Remark {i}" for i in range(1, 6)] + [f"Figure {i}" for i in range(1, 7)])


@pytest.fixture(scope="module")
def records():
    """Two real claims (run here) plus synthetic records exercising every status and the `uses` edges."""
    real = [run_claim(c) for c in select(["sec2.stationary", "sec2.entropy_rate"])]
    synthetic = [
        Record("t.bias", "Lemma 5", "Optimal bias", "bias", "proved", "symbolic", "exact", "rejected: x", ()),
        Record("t.grad", "Lemma 7", "Gradient", "landscape", "certified", "interval", "arb boxes", "rejected: y",
               ("t.bias",)),
        Record("t.crit", "Thm 1 (ii)", "Critical points", "landscape", "erratum", "sampled",
               "printed form fails; corrected form: residual 1e-60", "rejected: z", ("t.grad", "t.bias"),
               erratum="printed sign | wrong"),
        Record("t.energy", "Lemma 1/9", "Energy", "flow", "open", "none", "needs analysis", "n/a", ("t.crit",)),
        Record("t.eq", "Eq. 3", "Logit", "canonical", "failed", "symbolic", "broke", "NOT rejected", ("t.nowhere",)),
    ]
    return real + synthetic


def test_every_numbered_result_of_the_paper_is_listed(records, tmp_path):
    assert [name for name, _, _ in NUMBERED_RESULTS] == _paper_results()
    write_report(records, tmp_path)
    md = (tmp_path / "report.md").read_text()
    rows = {line.split("|")[1].strip(): line for line in md.splitlines() if line.startswith("| ")}
    for name in _paper_results():
        assert name in rows, name
    data = json.loads((tmp_path / "report.json").read_text())
    assert [row["result"] for row in data["coverage"]] == _paper_results()
    for row in data["coverage"]:
        # covered by a claim, or says visibly why not
        assert row["claims"] or row["note"].startswith(("not covered yet", "not machine-checkable")), row


def test_coverage_follows_the_claims_references(records):
    cov = {row["result"]: row for row in coverage(records)}
    assert cov["Lemma 1"]["claims"] == ["t.energy"] and cov["Lemma 9"]["claims"] == ["t.energy"]
    assert cov["Theorem 1"]["statuses"] == {"erratum": 1} and cov["Theorem 1"]["note"] == ""
    assert cov["Lemma 9"]["note"] == "t.energy open: needs analysis"     # an open claim shows its reason
    assert cov["Lemma 3"]["claims"] == [] and "not covered yet" in cov["Lemma 3"]["note"]
    # control: without the Lemma 5 record, Lemma 5 is no longer covered
    cov_without = {row["result"]: row for row in coverage([r for r in records if r.id != "t.bias"])}
    assert cov_without["Lemma 5"]["claims"] == []


def test_reference_parsing_names_the_numbered_results():
    assert numbered_results("Thm 2 (ii)") == ["Theorem 2"]
    assert numbered_results("Lemmas 9-12") == ["Lemma 9", "Lemma 10", "Lemma 11", "Lemma 12"]
    assert numbered_results("Thms 2 and 8") == ["Theorem 2", "Theorem 8"]
    assert numbered_results("Fig. 1 (a)") == ["Figure 1"]
    assert numbered_results("Eq. 3") == [] and numbered_results("Lemma 17") == []


def test_report_tables_list_every_claim_with_status_and_counts(records, tmp_path):
    write_report(records, tmp_path)
    md = (tmp_path / "report.md").read_text()
    data = json.loads((tmp_path / "report.json").read_text())
    assert [c["id"] for c in data["claims"]] == [r.id for r in records]
    for r in records:
        assert f"| `{r.id}` |" in md
    assert sum(data["counts"].values()) == len(records)
    assert data["counts"]["failed"] == 1 and data["counts"]["erratum"] == 1
    assert "printed sign \\| wrong" in md          # table cells stay one cell
    assert "seconds" not in data["claims"][0]


def test_dependency_graph_follows_uses(records):
    nodes, edges, unresolved = dependency_graph(records)
    assert ("Lemma 5", "Lemma 7") in edges and ("Lemma 7", "Theorem 1") in edges
    assert ("Theorem 1", "Lemma 1") in edges and ("Theorem 1", "Lemma 9") in edges
    assert unresolved == ["t.nowhere"]
    assert "Eq. 3" in nodes and set(_paper_results()) <= set(nodes)


def test_report_outputs_are_byte_identical_across_runs(records, tmp_path):
    first = write_report(records, tmp_path / "a")
    second = write_report(records, tmp_path / "b")
    assert [p.name for p in first] == ["report.md", "report.json", "dependencies.png", "dependencies.pdf"]
    for x, y in zip(first, second):
        assert x.read_bytes() == y.read_bytes(), x.name


def test_dependency_figure_is_produced(records, tmp_path):
    write_report(records, tmp_path)
    png, pdf = (tmp_path / "dependencies.png").read_bytes(), (tmp_path / "dependencies.pdf").read_bytes()
    assert png.startswith(b"\x89PNG") and len(png) > 10_000
    assert pdf.startswith(b"%PDF") and b"CreationDate" not in pdf
