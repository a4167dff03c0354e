"""`l2g derive`: deterministic LaTeX, one fragment per paper result, the paper's names and notation, every
formula taken from the symbolic layer."""
from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import sympy as sp

from local2global.cli import main
from local2global.proofs.outputs import document as D
from local2global.proofs.outputs.document import registry, sets as T
from local2global.proofs._registry import Claim
from local2global.symbolic.latex import latex

DOCUMENT = Path(D.__file__).resolve().parent


@pytest.fixture(scope="module")
def derived(tmp_path_factory):
    out = tmp_path_factory.mktemp("derive") / "build"
    assert main(["derive", "--no-records", "--out", str(out)]) == 0
    return out


def test_derive_without_records_says_so_and_exits_2_before_writing(tmp_path, capsys):
    out = tmp_path / "d"
    assert main(["derive", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "no claim records" in err and "--no-records" in err
    assert not out.exists()
    bad = tmp_path / "a1.json"
    bad.write_text('{"a": 1}')
    assert main(["derive", "--out", str(out), "--records", str(bad)]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1 and not out.exists()
    assert main(["derive", "--out", str(out), "--records", str(bad), "--no-records"]) == 2


def _files(root):
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_derive_is_byte_identical_across_processes_and_hash_seeds(derived, tmp_path):
    other = tmp_path / "again"
    env = dict(os.environ, PYTHONHASHSEED="12345")
    run = subprocess.run([sys.executable, "-m", "local2global", "derive", "--no-records", "--out", str(other)],
                         capture_output=True, text=True, timeout=600, env=env)
    assert run.returncode == 0, run.stderr
    assert _files(other) == _files(derived)


def test_document_has_one_fragment_per_result_in_paper_topics(derived):
    tex = (derived / "derivations.tex").read_text()
    ids = [s.id for s in D.sections()]
    shown = [i for i in re.findall(r"\\label\{sec:([a-z0-9_]+)\}", tex) if i in set(ids)]
    assert shown == ids
    assert sorted(p.stem for p in (derived / "fragments").iterdir()) == sorted(ids)
    for i in ids:                                  # the document is the fragments, in order
        assert (derived / "fragments" / f"{i}.tex").read_text() in tex
    topics = re.findall(r"\\label\{topic:([a-z]+)\}", tex)
    assert topics == list(registry.TOPIC_KEYS)
    assert not [p for p in derived.rglob("*.tmp")]


def test_results_are_amsthm_environments_named_and_numbered_as_in_the_paper(derived):
    tex = (derived / "derivations.tex").read_text()
    for kind, env, n in (("Lemma", "lemma", 5), ("Theorem", "theorem", 2), ("Theorem", "theorem", 10),
                         ("Remark", "remark", 5), ("Lemma", "lemma", 13)):
        assert "\\setcounter{%s}{%d}\n\\begin{%s}" % (env, n - 1, env) in tex, (kind, n)
    assert "\\renewcommand{\\namedname}{Lemmas 1 and 9}" in tex
    assert "\\renewcommand{\\namedname}{Equations (39)--(41)}" in tex
    # every numbered result that a unit covers is typeset under the paper's name exactly once
    names = [s.name for s in D.sections() if s.name]
    assert len(names) == len(set(names))


def test_document_uses_only_packages_of_texlive_recommended_and_balanced_environments(derived):
    tex = (derived / "derivations.tex").read_text()
    used = re.findall(r"\\usepackage(?:\[[^\]]*\])?\{([^}]*)\}", tex)
    assert used == list(D.assemble.PACKAGES)
    assert "\\usepackage[T1]{fontenc}" in tex and "\\usepackage{lmodern}" in tex
    assert "colorlinks=true" in tex                       # coloured links, no boxes
    for env in ("align*", "itemize", "center", "document", "steps", "figure", "named", "lemma", "theorem"):
        assert tex.count("\\begin{%s}" % env) == tex.count("\\end{%s}" % env), env
    for line in tex.splitlines():                  # \left/\right may not cross an align line break
        assert len(re.findall(r"\\left(?![a-z])", line)) == len(re.findall(r"\\right(?![a-z])", line)), line[:120]


def scrubbed(tex: str) -> list[str]:
    """What a LaTeX line contains outside mathematics that a reader should not see."""
    plain = re.sub(r"\$[^$]*\$", " ", tex).replace(r"\^{}", "^").replace(r"\textasciicircum{}", "^")
    return [what for pat, what in ((r"\*\*", "**"), (r"\^", "^ outside mathematics"), (r"\{'", "a Python dict"),
                                   (r"\.py\b", "a source file"), (r"\bissue\b", "an issue"), (r"README", "the README"),
                                   (r"\bsp\.|\bmp\.|\bnp\.", "a Python module name"), (r"\bTrue\b|\bNone\b", "Python"))
            if re.search(pat, plain)]


def test_prose_has_no_carets_python_or_pointers_outside_mathematics(derived):
    from local2global.proofs.outputs.document.steps import without_legacy
    tex = without_legacy((derived / "derivations.tex").read_text())
    body = tex[tex.index("\\begin{document}"):]
    body = re.sub(r"\\begin\{(align\*|figure)\}.*?\\end\{\1\}", " ", body, flags=re.S)
    body = re.sub(r"\\(texttt|stepid|label|ref|hyperref|includegraphics)(\[[^\]]*\])?\{[^}]*\}", " ", body)
    for line in body.splitlines():
        assert scrubbed(line) == [], (scrubbed(line), line[:200])
        assert "formula sheet" not in line, line[:200]


def test_printer_uses_the_papers_names():
    assert latex(sp.Symbol("theta_star")) == r"\theta^{\star}"
    assert latex(sp.Symbol("Theta_min")) == r"\Theta_{\min}"
    assert latex(sp.Symbol("Theta_station")) == r"\Theta_{\mathrm{station}}"
    assert latex(sp.Symbol("pi0") * sp.Symbol("pi1")) == r"\pi_0 \pi_1"
    h = latex(sp.Heaviside(sp.Symbol("x")))
    assert r"\theta" not in h and "x > 0" in h
    w = sp.Symbol("w", real=True)
    assert latex(w * sp.Abs(w)) == "w |w|"
    assert latex(sp.log(sp.Symbol("p"))) == r"\log p"
    z = sp.Symbol("z")
    assert latex(1 / (1 + sp.exp(-z))) == r"\sigma\left(z\right)"
    assert latex(sp.exp(z)) == r"\exp\left(z\right)"       # e is the embedding scalar, not Euler's number
    assert latex(-sp.oo) == r"-\infty" and latex(sp.pi) == r"\pi" and latex(sp.E) == r"\mathrm{e}"


def test_basins_and_critical_sets_print_in_set_builder_notation():
    from local2global.symbolic import basins, energy, symbols as S
    from local2global.symbolic.model import canonical_model
    names = {energy.g_of_w().subs(S.w_neg, S.w): "g(w)"}
    i_min = [b for b in basins.basins("p+q>1") if b.name == "I_min"][0]
    tex = T.basin_tex(i_min, (S.e, S.w), names=names)
    assert r"- \frac{\sqrt{2}}{2} < w < 0,\ |e| < g(w)" in tex and tex.count(r"\cup") == 2
    for bad in ("Abs", r"\wedge", r"\vee", "sqrt(", "&"):
        assert bad not in tex
    i_sad = [b for b in basins.basins("p+q<1") if b.name == "I_sad"][0]     # w < 0 is implied by w <= -1/sqrt2
    assert T.basin_tex(i_sad, (S.e, S.w), names=names, short=True) == \
        r"\left\{w \leq - \frac{\sqrt{2}}{2},\ |e| = g(w)\right\}"
    sets = dict((n, t) for n, t, _ in T.critical_sets_tex(canonical_model().critical_sets(), (S.e, S.w)))
    assert sets[r"\Theta_{\mathrm{sad}}"] == r"\left\{\left(0, - \frac{\sqrt{2}}{2}\right)\right\}"    # a point
    assert r"e = 0,\ \left(2 w |w| + 1\right) \left(p + q - 1\right) > 0" in sets[r"\Theta_{\min}"]


def test_units_list_the_claims_that_back_them_with_recorded_status():
    fake = Claim(id="lemma5.fake", ref="Lemma 5 (ii)", title="fake", statement=r"$b^\star$ solves it",
                 check=lambda f, c: None, printed=lambda: None, mutant=lambda: None)
    other = Claim(id="thm67.fake", ref="Thm 6/7", title="fake2", statement="x", check=lambda f, c: None,
                  printed=lambda: None, mutant=lambda: None)
    sec = {s.id: s for s in D.sections()}
    assert D.claims_for(sec["optimal_bias"], [fake, other]) == [fake]
    assert D.claims_for(sec["critical_r3"], [fake, other]) == [other]
    records = {"lemma5.fake": {"status": "proved", "own_status": "proved", "method": "symbolic", "evidence": "0",
                               "control": "rejected: x", "weakest": "lemma5.fake"}}
    frag = D.render_section(sec["optimal_bias"], D.Block("Lemma 5", statement="S"), [fake], records,
                            all_claims=[fake, other])
    assert "lemma5.fake" in frag and "\\statusbox{proved}{proved}" in frag
    assert "\\statusbox{notrun}" not in frag
    bare = D.render_section(sec["optimal_bias"], D.Block("Lemma 5"), [fake], {}, all_claims=[fake])
    assert "\\statusbox{notrun}{not run}" in bare and "Not run in this build" in bare


def test_records_file_formats_are_read_by_the_one_loader(tmp_path):
    """checks.json (a list), report.json ({"claims": [...]}), {"records": [...]} and {id: record} are read alike;
    anything else is refused with one line (RecordsError), never half-accepted."""
    from local2global.proofs.outputs.records import RecordsError, by_id, load_records
    text = {k: "t" for k in ("ref", "title", "section", "method", "evidence", "control")}
    rec = {"id": "a.b", "status": "proved", "steps": [{"kind": "exact", "states": "x = x"}], **text}
    path = tmp_path / "r.json"
    for data in ([rec], {"claims": [rec]}, {"records": [rec]}, {"a.b": {"status": "proved", **text}}):
        path.write_text(json.dumps(data))
        assert by_id(load_records(path))["a.b"]["status"] == "proved"
    for bad in ("{not json", "[]", '[{"status": "proved"}]', '[{"id": "a", "status": "great"}]',
                '[{"id": "a", "status": "proved", "steps": [{"kind": "guessed", "states": "x"}]}]', '"text"',
                '{"a": 1}', '[{"id": "a", "status": "proved"}]', json.dumps([dict(rec, ref=None)])):
        path.write_text(bad)
        with pytest.raises(RecordsError) as info:
            load_records(path)
        assert "\n" not in str(info.value)
    with pytest.raises(RecordsError):
        load_records(tmp_path / "missing.json")


def test_every_registered_claim_is_shown_in_full_in_exactly_one_unit():
    from local2global.proofs import select

    claims = select()
    home = registry.homes(D.sections(), claims)
    assert [c.id for c in claims if c.id not in home] == []
    ids = {s.id for s in D.sections()}
    assert set(home.values()) <= ids


def test_the_document_package_derives_no_mathematics_of_its_own():
    """Solving, differentiating, integrating, taking limits or simplifying belongs to local2global.symbolic:
    the document only prints (renaming and rewriting for display are allowed, and say so)."""
    forbidden = {"solve", "integrate", "limit", "simplify", "diff", "hessian", "series", "nsolve", "dsolve"}
    allowed_diff = {("sets.py", "diff")}       # linearity test of a printed relation (to move terms across it)
    found = []
    for path in sorted(DOCUMENT.rglob("*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in forbidden:
                if (path.name, node.func.attr) not in allowed_diff:
                    found.append(f"{path.relative_to(DOCUMENT)}:{node.lineno} {node.func.attr}")
    assert found == []
