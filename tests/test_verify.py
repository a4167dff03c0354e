"""`l2g verify`: the trust base of a numbered result or a claim, from fresh checks or from --records, in text and JSON;
the same status line and trust base as the report's coverage; bad records refused with one line, exit 2."""
from __future__ import annotations

import json

import pytest

from local2global.cli import main
from local2global.proofs import select
from local2global.proofs import _steps as st


def _records() -> list[dict]:
    """A record for every registered claim (one exact step each), with an argued step in r3.basins_A and a cited one
    in r3.airy_facts: what Thm 11 rests on, without running the checks."""
    out = []
    for c in select():
        steps = [st.exact(f"the check of {c.id}", True).as_dict()]
        if c.id == "r3.basins_A":
            steps.append(st.argued("the flow is bounded", "E is conserved and coercive, so the orbit stays in a "
                                                           "compact set.").as_dict())
        if c.id == "r3.airy_facts":
            steps.append(st.cited(r"$\mathrm{Ai}(z) > 0$ for $z > 0$", "DLMF 9.6.1").as_dict())
        out.append(dict(id=c.id, ref=c.ref, title=c.title, section=c.section, status="proved", own_status="proved",
                        method="exact", evidence="", control="rejected", uses=list(c.uses), role=c.role,
                        steps=steps, printed_steps=[], control_steps=[], corroborations=[]))
    return out


@pytest.fixture()
def records_file(tmp_path):
    path = tmp_path / "checks.json"
    path.write_text(json.dumps(_records()))
    return path


def test_verify_prints_the_trust_base_of_a_numbered_result_from_records(records_file, capsys):
    assert main(["verify", "Thm 11", "--records", str(records_file)]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].startswith("Theorem 11: ") and lines[1] == "status: proved, 1 argued step, cites DLMF 9.6.1"
    assert "[r3.basins_A] the flow is bounded" in out and "E is conserved and coercive" in out
    assert "[r3.airy_facts] $\\mathrm{Ai}(z) > 0$ for $z > 0$ [DLMF 9.6.1]" in out
    assert "SymPy " in out and "thm11.precise" in out

    assert main(["verify", "Thm 11", "--records", str(records_file), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["result"] == "Theorem 11" and data["status_line"] == "proved, 1 argued step, cites DLMF 9.6.1"
    assert [a["claim"] for a in data["trust"]["argued"]] == ["r3.basins_A"]
    assert data["trust"]["argued"][0]["argument"].startswith("E is conserved")
    assert [c["reference"] for c in data["trust"]["cited"]] == ["DLMF 9.6.1"]
    assert {s["name"] for s in data["trust"]["software"]} == {"sympy"} and data["trust"]["software"][0]["version"]
    assert data["trust"]["counts"]["argued"] == 1 and data["trust"]["counts"]["exact"] == len(data["trust"]["claims"])
    # the report's coverage gives Theorem 11 the same status line and the same trust base
    from local2global.proofs.outputs.report import coverage
    row = next(r for r in coverage(_records()) if r["result"] == "Theorem 11")
    assert row["status_line"] == data["status_line"] and row["trust"]["claims"] == data["trust"]["claims"]
    # a claim of the closure without its argued step: the status line no longer names one (the control)
    recs = _records()
    for r in recs:
        r["steps"] = [s for s in r["steps"] if s["kind"] != "argued"]
    records_file.write_text(json.dumps(recs))
    assert main(["verify", "Thm 11", "--records", str(records_file), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["status_line"] == "proved, cites DLMF 9.6.1"


def test_verify_of_one_claim_runs_its_checks(capsys):
    assert main(["verify", "sec2.entropy_rate", "--workers", "1"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("sec2.entropy_rate: ") and out[1].startswith("status: proved")
    assert any(line.startswith("  rests on: ") and "sec2.stationary" in line for line in out)


@pytest.mark.parametrize("content", ["{not json", "[]", '[{"id": "x"}]', '{"claims": "no"}'])
def test_verify_refuses_malformed_records_with_one_line(tmp_path, capsys, content):
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    assert main(["verify", "Thm 11", "--records", str(bad)]) == 2
    cap = capsys.readouterr()
    assert cap.out == "" and len(cap.err.strip().splitlines()) == 1 and cap.err.startswith("l2g: error: ")


def test_verify_refuses_records_that_lack_the_result_and_unknown_selectors(records_file, tmp_path, capsys):
    recs = [r for r in _records() if r["id"] != "thm11.precise"]
    partial = tmp_path / "partial.json"
    partial.write_text(json.dumps(recs))
    for argv in (["verify", "Thm 11", "--records", str(partial)], ["verify", "Thm 99", "--records", str(records_file)],
                 ["verify", "Thm 11", "--records", str(tmp_path / "missing.json")], ["verify", " "]):
        assert main(argv) == 2, argv
        cap = capsys.readouterr()
        assert cap.out == "" and len(cap.err.strip().splitlines()) == 1, argv
