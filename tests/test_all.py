"""The main job: every step writes its outputs, and a second run leaves every file byte-identical."""
import hashlib
from pathlib import Path

import pytest

from local2global.proofs.outputs.pipeline import run_all


def _digest(folder: Path) -> dict:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.slow
def test_main_job_outputs_are_byte_identical_across_runs(tmp_path):
    kw = dict(claim_ids=["lemma5", "thm1.critical_points"], notebooks=False, pdf=False, figures=False)
    rec1, steps = run_all(tmp_path / "a", **kw)
    run_all(tmp_path / "b", **kw)
    a, b = _digest(tmp_path / "a"), _digest(tmp_path / "b")
    assert a == b
    assert {"checks.json", "report.md", "report.json", "derivations.tex"} <= set(a)
    assert {s.name for s in steps} >= {"check", "report", "derive", "pdf"}
    assert all(r.status in ("proved", "certified", "sampled") for r in rec1)


def test_all_refuses_an_output_path_that_is_a_file(tmp_path, capsys):
    from local2global.cli import main

    f = tmp_path / "file"
    f.write_text("x")
    assert main(["all", "--out", str(f)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "is a file, expected a folder" in err[0]
