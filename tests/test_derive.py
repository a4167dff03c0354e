"""`l2g derive`: deterministic LaTeX, one section per derived result, the paper's notation."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest
import sympy as sp

from local2global.cli import main
from local2global.proofs.outputs import derivations as D
from local2global.proofs._registry import Claim
from local2global.symbolic.latex import latex


@pytest.fixture(scope="module")
def derived(tmp_path_factory):
    out = tmp_path_factory.mktemp("derive") / "build"
    assert main(["derive", "--out", str(out)]) == 0
    return out


def _files(root):
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_derive_is_byte_identical_across_processes_and_hash_seeds(derived, tmp_path):
    other = tmp_path / "again"
    env = dict(os.environ, PYTHONHASHSEED="12345")
    run = subprocess.run([sys.executable, "-m", "local2global", "derive", "--out", str(other)],
                         capture_output=True, text=True, timeout=300, env=env)
    assert run.returncode == 0, run.stderr
    assert _files(other) == _files(derived)


def test_document_has_one_section_per_result_and_one_fragment_each(derived):
    tex = (derived / "derivations.tex").read_text()
    ids = [s.id for s in D.sections()]
    assert re.findall(r"\\label\{sec:([a-z0-9_]+)\}", tex) == ids
    extra = tex.count("\\section{Errata}") + tex.count("\\section{Figures}")   # not result sections
    assert tex.count("\\section{") == len(ids) + extra
    frags = sorted(p.stem for p in (derived / "fragments").iterdir())
    assert frags == sorted(ids)
    for i in ids:                                  # the document is the fragments, in order
        assert (derived / "fragments" / f"{i}.tex").read_text() in tex
    for needed in ("canonical_logit", "chain", "loss_with_bias", "optimal_bias", "structure", "gradients",
                   "hessians", "critical_r3", "critical_r2"):
        assert needed in ids
    assert not [p for p in derived.rglob("*.tmp")]


def test_document_uses_only_the_allowed_packages_and_balanced_environments(derived):
    tex = (derived / "derivations.tex").read_text()
    used = re.findall(r"\\usepackage(?:\[[^\]]*\])?\{([^}]*)\}", tex)
    assert set(used) <= {"amsmath", "amssymb", "geometry", "hyperref", "booktabs", "longtable", "graphicx"}
    for env in ("align*", "itemize", "center", "document"):
        assert tex.count("\\begin{%s}" % env) == tex.count("\\end{%s}" % env)
    for line in tex.splitlines():                  # \left/\right may not cross an align line break
        assert line.count("\\left") == line.count("\\right"), line[:120]


def test_printer_uses_the_papers_names():
    assert latex(sp.Symbol("theta_star")) == r"\theta^{\star}"
    assert latex(sp.Symbol("Theta_min")) == r"\Theta_{\min}"
    assert latex(sp.Symbol("pi0") * sp.Symbol("pi1")) == r"\pi_0 \pi_1"
    h = latex(sp.Heaviside(sp.Symbol("x")))
    assert r"\theta" not in h and "x > 0" in h
    w = sp.Symbol("w", real=True)
    assert latex(w * sp.Abs(w)) == "w |w|"
    assert latex(sp.log(sp.Symbol("p"))) == r"\log p"
    z = sp.Symbol("z")
    assert latex(1 / (1 + sp.exp(-z))) == r"\sigma\left(z\right)"
    assert latex(sp.exp(z)) == r"\exp\left(z\right)"       # e is the embedding scalar, not Euler's number


def test_sections_list_the_claims_that_back_them_with_recorded_status():
    fake = Claim(id="lemma5.fake", ref="Lemma 5 (ii)", title="fake", statement=r"$b^\star$ solves it",
                 check=lambda f, c: None, printed=lambda: None, mutant=lambda: None)
    other = Claim(id="thm67.fake", ref="Thm 6/7", title="fake2", statement="x", check=lambda f, c: None,
                  printed=lambda: None, mutant=lambda: None)
    sec = {s.id: s for s in D.sections()}
    assert D.claims_for(sec["optimal_bias"], [fake, other]) == [fake]
    assert D.claims_for(sec["critical_r3"], [fake, other]) == [other]
    records = {"lemma5.fake": {"status": "proved", "method": "exact", "evidence": "0", "control": "rejected"}}
    frag = D.render_section(sec["optimal_bias"], D.Block("Lemma 5", (), ""), [fake], records)
    assert "lemma5.fake" in frag and "proved" in frag


def test_records_file_formats_are_read(tmp_path):
    rec = {"id": "a.b", "status": "proved"}
    for data in ([rec], {"records": [rec]}, {"a.b": {"status": "proved"}}):
        path = tmp_path / "r.json"
        path.write_text(json.dumps(data))
        assert D.load_records(path)["a.b"]["status"] == "proved"
    assert D.load_records(tmp_path / "missing.json") == {}


def test_every_registered_claim_is_shown_in_some_section():
    from local2global.proofs import select

    claims = select()
    shown = {c.id for sec in D.sections() for c in D.claims_for(sec, claims)}
    assert [c.id for c in claims if c.id not in shown] == []
