"""Compiling the derivations document: deterministic PDFs, errata and figures sections, clear errors.

In CI (env CI set) the compile tests must run: a missing pdflatex is then a failure, not a skip.
"""
import os
import shutil
import subprocess

import pytest
import sympy as sp

from local2global.proofs import Claim, Outcome, Record
from local2global.proofs.outputs import pdf
from local2global.symbolic import symbols as S


def require_pdflatex():
    if pdf.pdflatex_path() is None:
        if os.environ.get("CI"):
            pytest.fail("CI is set but pdflatex is missing: " + pdf.missing_message())
        pytest.skip(pdf.missing_message())


def _never(form, ctx):
    return Outcome(False, "none", "not run in this test")


ERRATUM_CLAIM = Claim(id="demo.erratum", ref="Lemma 5", title="Demo erratum", statement=r"$x$", check=_never,
                      printed=lambda: S.e**2 * (1 - 2 * S.w * sp.Abs(S.w)),
                      mutant=lambda: S.e, corrected=lambda: S.e**2 * (1 + 2 * S.w * sp.Abs(S.w)),
                      erratum="the printed sign of 2w|w| is wrong; 50% & #_ survive escaping")
ERRATUM_RECORD = Record("demo.erratum", "Lemma 5", "Demo erratum", "bias", "erratum", "sampled",
                        "printed form fails (residual 0.5); corrected form: max residual 1e-60 at $b^\\star$",
                        "rejected: x")


def _document(tmp_path, body: str) -> os.PathLike:
    tex = tmp_path / "doc.tex"
    tex.write_text("\\documentclass{article}\n\\usepackage{" + ",".join(pdf.PREAMBLE_PACKAGES) + "}\n"
                   "\\begin{document}\n\\title{Test}\\date{\\today}\\maketitle\n" + body + "\\end{document}\n")
    return tex


def _figure_dir(tmp_path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig_dir = tmp_path / "figures"
    fig_dir.mkdir()
    fig, ax = plt.subplots(figsize=(3, 2))
    ax.plot([0, 1, 2], [0, 1, 4])
    fig.savefig(fig_dir / "fig_demo.pdf", metadata={"CreationDate": None, "Creator": None, "Producer": None})
    plt.close(fig)
    return fig_dir


def _pdf_text(path) -> str | None:
    if shutil.which("pdftotext") is None:
        return None
    return subprocess.run(["pdftotext", str(path), "-"], capture_output=True, text=True, check=True).stdout


def test_errata_section_lists_printed_and_corrected_forms():
    tex = pdf.errata_section([ERRATUM_RECORD], claims=[ERRATUM_CLAIM])
    assert "\\section{Errata}" in tex and "Printed in the paper" in tex and "Corrected" in tex
    assert "50\\% \\& \\#\\_" in tex and "$b^\\star$" in tex
    assert tex.count("\\[") == 2                          # the two forms, displayed
    # control: a passing record is not an erratum
    ok = Record("demo.ok", "Lemma 5", "ok", "bias", "proved", "symbolic", "exact", "rejected")
    assert "No erratum" in pdf.errata_section([ok], claims=[ERRATUM_CLAIM])
    # without records, the claims that declare a correction are listed as not run
    assert "not run" in pdf.errata_section(None, claims=[ERRATUM_CLAIM])


def test_small_document_compiles_deterministically(tmp_path):
    require_pdflatex()
    body = (pdf.errata_section([ERRATUM_RECORD], claims=[ERRATUM_CLAIM])
            + pdf.figures_section(_figure_dir(tmp_path), relative_to=tmp_path))
    assert "\\includegraphics" in body and "{figures/fig_demo.pdf}" in body
    tex = _document(tmp_path, body)
    first = pdf.compile_pdf(tex, tmp_path / "out1").read_bytes()
    second = pdf.compile_pdf(tex, tmp_path / "out2").read_bytes()
    assert first.startswith(b"%PDF") and first == second
    assert b"CreationDate" not in first and b"PTEX.Fullbanner" not in first
    assert sorted(p.name for p in tmp_path.iterdir()) == ["doc.tex", "figures", "out1", "out2"]   # no aux debris
    text = _pdf_text(tmp_path / "out1" / "doc.pdf")
    if text is not None:
        assert "Errata" in text and "Demo erratum" in text and "January 1, 1970" in text


def test_latex_errors_are_reported_and_write_no_pdf(tmp_path):
    require_pdflatex()
    tex = _document(tmp_path, "\\undefinedmacro\n")
    with pytest.raises(pdf.LatexError, match="Undefined control sequence"):
        pdf.compile_pdf(tex, tmp_path / "out")
    assert not (tmp_path / "out" / "doc.pdf").exists()


def test_missing_pdflatex_names_the_debian_packages(tmp_path, monkeypatch):
    monkeypatch.setattr(pdf, "pdflatex_path", lambda: None)
    with pytest.raises(pdf.PdflatexMissing) as info:
        pdf.compile_pdf(_document(tmp_path, "x\n"), tmp_path)
    message = str(info.value)
    assert "\n" not in message and "texlive-latex-base" in message and "texlive-latex-recommended" in message


def test_real_derivations_document_compiles(tmp_path):
    require_pdflatex()
    derivations = pytest.importorskip("local2global.proofs.outputs.derivations")
    doc = derivations.build_document()
    tex = tmp_path / "derivations.tex"
    tex.write_text(doc.tex + "")
    out = pdf.compile_pdf(tex, tmp_path)
    assert out.read_bytes().startswith(b"%PDF")
    text = _pdf_text(out)
    if text is not None:
        assert "Optimal bias" in text


def test_errata_forms_that_are_not_formulas_render_deterministically():
    procedure_claim = Claim(id="demo.proc", ref="Thm 5", title="Procedure", statement="x", check=_never,
                            printed=lambda: (lambda t: t), mutant=lambda: None,
                            corrected=lambda: {"R3": "defined", "R4": "p+q < 1"}, erratum="for p+q > 1 only")
    tex = pdf.errata_section(None, claims=[procedure_claim])
    assert " at 0x" not in tex and "a procedure" in tex
    assert "p+q \\textless{} 1" in tex and "p+q \\textgreater{} 1" in tex
