"""derivations.pdf as a paper appendix: it compiles deterministically with T1 fonts, its text has no Python
and no caret outside mathematics, its figures are numbered and captioned as the paper's, its errata show both
forms; the PDF compiler's errors are clear.

In CI (env CI set) the compile tests must run: a missing pdflatex is then a failure, not a skip.
"""
import os
import re
import shutil
import subprocess

import pytest
import sympy as sp

from local2global.proofs import Claim, Outcome, Record
from local2global.proofs.outputs import document as D
from local2global.proofs.outputs import pdf
from local2global.proofs.outputs.document import figures as F, reader
from local2global.proofs.outputs.document import steps as ST
from local2global.symbolic import symbols as S


def require_pdflatex():
    if pdf.pdflatex_path() is None:
        if os.environ.get("CI"):
            pytest.fail("CI is set but pdflatex is missing: " + pdf.missing_message())
        pytest.skip(pdf.missing_message())


def require_poppler():
    if shutil.which("pdftotext") is None or shutil.which("pdffonts") is None:
        if os.environ.get("CI"):
            pytest.fail("CI is set but pdftotext / pdffonts (poppler-utils) are missing")
        pytest.skip("pdftotext / pdffonts (poppler-utils) not installed")


def _never(form, ctx):
    return Outcome(False, "none", "not run in this test")


ERRATUM_CLAIM = Claim(id="demo.erratum", ref="Lemma 5", title="Demo erratum", statement=r"$x$", check=_never,
                      printed=lambda: S.e**2 * (1 - 2 * S.w * sp.Abs(S.w)),
                      mutant=lambda: S.e, corrected=lambda: S.e**2 * (1 + 2 * S.w * sp.Abs(S.w)),
                      erratum="the printed sign of 2w|w| is wrong; 50% & #_ survive escaping")
ERRATUM_RECORD = Record("demo.erratum", "Lemma 5", "Demo erratum", "bias", "erratum", "sampled",
                        "printed form fails (residual 0.5); corrected form: max residual 1e-60 at b*",
                        "rejected: x").as_dict()


def _pdf_text(path) -> str:
    return subprocess.run(["pdftotext", "-layout", str(path), "-"], capture_output=True, text=True,
                          check=True).stdout


def _stand_in_figures(root):
    """A tiny PNG for every file the document's figures name (the figures themselves take minutes)."""
    from PIL import Image
    (root / "figures").mkdir(parents=True, exist_ok=True)
    for fig in F.FIGURES:
        folder = root / "figures" if fig.where == "fig_dir" else root
        for stem in [pn.stem for pn in fig.panels] + ([fig.legend] if fig.legend else []):
            Image.new("RGB", (60, 40), (200, 200, 230)).save(folder / f"{stem}.png", format="PNG")


@pytest.fixture(scope="module")
def appendix(claim_records, tmp_path_factory):
    """The real document with the real records and stand-in figures, compiled; (pdf path, its text, tex)."""
    require_pdflatex()
    require_poppler()
    out = tmp_path_factory.mktemp("appendix")
    _stand_in_figures(out)
    records = {k: v.as_dict() for k, v in claim_records.items()}
    doc = D.build_document(records, fig_dir=out / "figures", tex_dir=out)
    tex = D.write_document(out, doc)
    path = pdf.compile_pdf(tex, out)
    return path, _pdf_text(path), doc.tex


@pytest.mark.slow
def test_appendix_is_set_in_t1_latin_modern(appendix):
    path, text, _ = appendix
    fonts = subprocess.run(["pdffonts", str(path)], capture_output=True, text=True, check=True).stdout
    assert "LMRoman" in fonts and "CMR10" not in fonts        # T1-encoded Latin Modern, not OT1 Computer Modern
    for broken in ("\u00bf", "\u00a1", "\u2014w", "\u02c6"):   # "¿" for ">", "¡" for "<", "—" for "|", "ˆ" for "^"
        assert broken not in text, broken


def _without_legacy(path) -> str:
    """The PDF's text in reading order (not laid out: two columns would interleave) without the text of legacy steps
    (unstructured records, printed as recorded between single guillemets)."""
    text = subprocess.run(["pdftotext", str(path), "-"], capture_output=True, text=True, check=True).stdout
    return re.sub("\u2039.*?\u203a", " ", text, flags=re.S)


@pytest.mark.slow
def test_appendix_text_has_no_python_and_no_caret_outside_mathematics(appendix):
    path, _, _ = appendix
    text = _without_legacy(path)
    assert "**" not in text and "Datum(" not in text and "None" not in text
    assert "^" not in text and "ˆ" not in text
    assert "{'" not in text and "['" not in text
    assert ".py" not in text
    assert not re.search(r"\bissue\b", text, re.I)
    assert "formula sheet" not in text and "README" not in text
    for python in ("Abs(", "sqrt(", "Eq(", "True", "False", "NegativeInfinity", "sp.", "mp.", "frozenset", "dict_keys"):
        assert python not in text, python


@pytest.mark.slow
def test_results_are_named_and_numbered_as_in_the_paper(appendix):
    _, text, _ = appendix
    for name in ("Lemma 2.", "Lemma 5.", "Lemma 12.", "Lemmas 1 and 9.", "Theorem 1.", "Theorem 2.", "Theorem 8.",
                 "Theorem 10.", "Remark 5.", "Equation (3).", "Equations (39)–(41)."):
        assert name in text, name
    # the ladder: every record's status appears, and the coverage table lists every numbered result
    for status in ("proved", "certified", "sampled", "erratum", "open"):
        assert status in text
    for result in ("Lemma 16", "Theorem 11", "Remark 3", "Figure 6"):
        assert result in text


@pytest.mark.slow
def test_figures_are_numbered_as_the_papers_and_captions_say_what_they_show(appendix):
    _, text, tex = appendix
    captions = re.findall(r"^\s*Figure ([0-9A.]+): (.*)$", text, re.M)
    numbers = [n for n, _ in captions]
    ours = sorted(f.number for f in F.FIGURES if f.number.startswith("A."))        # the figures not in the paper
    assert len(ours) >= 3
    assert sorted(set(numbers), key=lambda n: (n.startswith("A"), n)) == ["1", "2", "3", "4", "5", "6", *ours]
    assert "7" not in numbers and not any(n.isdigit() and int(n) > 6 for n in numbers)
    for n, first_line in captions:
        assert not re.search(r"fig\d|fig_|\.png|\.pdf|_p0", first_line), (n, first_line)
        assert len(first_line.split()) >= 4, (n, first_line)
    # every caption in the source is prose that names its mathematics, not a file name
    for fig in F.FIGURES:
        cap = F.caption_of(fig)
        assert len(cap.split()) >= 15 and "What to look at" in cap or fig.number.startswith("A"), fig.number
    # the panels of Fig. 1 are one figure (a)-(d) with the shared legend
    fig1 = tex[tex.index(r"\setcounter{figure}{0}"):]
    fig1 = fig1[:fig1.index(r"\end{figure}")]
    assert fig1.count(r"\begin{subfigure}") == 4 and "fig1_legend" in fig1


@pytest.mark.slow
def test_errata_show_printed_and_corrected_forms_side_by_side(appendix, claim_records):
    _, text, tex = appendix
    errata = tex[tex.index(r"\section{Errata}"):tex.index(r"\appendix")]
    found = [r for r in claim_records.values() if r.status == "erratum"]
    assert found, "the registry's checks find errata (Remark 5 at least)"
    assert errata.count("As printed in the paper") >= len(found) and errata.count(r"\textbf{Corrected") >= len(found)
    assert "Errata" in text and all(r.ref.split(" (")[0].split(" /")[0] in errata for r in found)
    for r in found:                  # each erratum: the printed form's failing steps beside the corrected form's
        block = errata[errata.index("\\stepid{%s}" % reader.escape(r.id)):]
        block = block[:block.index("\\end{longtable}")]
        rows = [line.split(" & ") for line in block.splitlines() if " & " in line]
        forms = next(row for row in rows if row[0].startswith("\\fieldname{form}"))
        assert len(forms) == 2 and forms[0] != forms[1], forms        # the printed and the corrected form differ
        steps = [row for row in rows if "\\kindtag" in "".join(row)]
        assert r.printed_steps and any("\\failstag" in row[0] for row in steps)
        assert all("\\failstag" not in row[1] for row in steps) and sum("\\kindtag" in row[1] for row in steps) >= 1


def test_errata_section_renders_forms_as_mathematics():
    tex = D.errata_section({"demo.erratum": ERRATUM_RECORD}, [ERRATUM_CLAIM])
    assert r"\section{Errata}" in tex and "As printed in the paper" in tex and "Corrected" in tex
    assert r"50\% \& \#\_" in tex
    assert r"$e^{2} \left(- 2 w |w| + 1\right)$" in tex and r"$e^{2} \left(2 w |w| + 1\right)$" in tex
    # control: a record that passed is not an erratum
    ok = dict(ERRATUM_RECORD, status="proved")
    assert "No erratum was found" in D.errata_section({"demo.erratum": ok}, [ERRATUM_CLAIM])
    # without records, the claims that declare a correction are listed (as not run)
    assert "Demo erratum" in D.errata_section({}, [ERRATUM_CLAIM])


def test_the_latex_printer_prints_steps_as_data():
    r"""A step prints its kind, its statement (mathematics kept, text escaped), what it found (escaped), how and where;
    an argued step its whole argument, a cited one its reference; a legacy step its text, escaped, in \legacytext."""
    argued = dict(kind="argued", states=r"the orbit is bounded: $E \geq 0$", ok=True, method="argument in prose",
                  domain="", values=[], argument=r"$E$ is conserved & coercive, 50% of it", reference="")
    tex = ST.step_tex(argued, "A1")
    assert tex.startswith(r"\kindtag{argued A1}") and r"$E \geq 0$" in tex and r"coercive, 50\% of it" in tex
    cited = dict(kind="cited", states="Ai > 0", ok=True, method="cited", domain="", values=[], argument="",
                 reference="DLMF 9.6.1")
    assert "[DLMF 9.6.1]" in ST.step_tex(cited)
    sampled = dict(kind="sampled", states="g = 0", ok=False, method="mpmath", domain="x in (0,1)^2",
                   values=[["max |r_n|", "1e-40"]], count=24, digits=50, argument="", reference="")
    tex = ST.step_tex(sampled)
    assert r"max |$r_{n}$| = 1e-40" in tex and r"\failstag" in tex and "24 points, 50 digits" in tex and "$^{2}$" in tex
    legacy = dict(kind="exact", states="x**2 {'a': True} $ 50%", ok=True, method="", domain="", values=[],
                  argument="", reference="", legacy=True)
    assert r"\legacytext{x**2 \{'a': True\} \$ 50\%}" in ST.step_tex(legacy)
    # unbalanced $ in a statement: all text, never half mathematics
    assert reader.mixed("a $x$ and $y") == r"a \$x\$ and \$y" and reader.mixed("a $x^2$ b") == "a $x^2$ b"


def test_authored_titles_are_set_as_the_paper_would():
    a = reader.authored
    assert a("All critical points with bias (R^3)") == r"All critical points with bias ($\mathbb{R}^3$)"
    assert a("Theta_station: strict saddles") == r"$\Theta_{\mathrm{station}}$: strict saddles"
    assert a("a -> -oo like t^(1/3)") == r"a $\to$ $-\infty$ like $t^{1/3}$"
    assert a("fmpz_mpoly; 50% & #") == r"fmpz\_mpoly; 50\% \& \#"
    assert a("alpha in {±1}^d, |x|^2") == r"alpha in \{$\pm$1\}$^{d}$, |x|$^{2}$"     # a bracket's power: braces escaped
    assert a("q = φ’^2 and 2a_inf^2") == r"q = $\varphi '^{2}$ and $\mathrm{2a}_{\mathrm{inf}}^{2}$"


@pytest.mark.slow
def test_small_document_compiles_deterministically(tmp_path):
    require_pdflatex()
    from PIL import Image
    (tmp_path / "figures").mkdir()
    Image.new("RGB", (30, 20), (10, 120, 10)).save(tmp_path / "figures" / "fig_demo.png", format="PNG")
    tex = tmp_path / "doc.tex"
    tex.write_text(D.assemble.PREAMBLE + D.assemble._status_macros() + "\\begin{document}\nDemo \\statusbox{proved}"
                   "{proved} $x^2$, text (w > -1/2) and |1+ae|.\n\\includegraphics[width=2cm]{figures/fig_demo.png}\n"
                   "\\end{document}\n")
    first = pdf.compile_pdf(tex, tmp_path / "out1").read_bytes()
    second = pdf.compile_pdf(tex, tmp_path / "out2").read_bytes()
    assert first.startswith(b"%PDF") and first == second
    assert b"CreationDate" not in first and b"PTEX.Fullbanner" not in first
    assert sorted(p.name for p in tmp_path.iterdir()) == ["doc.tex", "figures", "out1", "out2"]   # no aux debris
    if shutil.which("pdftotext"):                                  # T1: <, > and | print as themselves in text
        assert "(w > -1/2) and |1+ae|" in _pdf_text(tmp_path / "out1" / "doc.pdf")


def test_latex_errors_are_reported_and_write_no_pdf(tmp_path):
    require_pdflatex()
    tex = tmp_path / "doc.tex"
    tex.write_text("\\documentclass{article}\n\\begin{document}\n\\undefinedmacro\n\\end{document}\n")
    with pytest.raises(pdf.LatexError, match="Undefined control sequence"):
        pdf.compile_pdf(tex, tmp_path / "out")
    assert not (tmp_path / "out" / "doc.pdf").exists()


def test_missing_pdflatex_names_the_debian_packages(tmp_path, monkeypatch):
    monkeypatch.setattr(pdf, "pdflatex_path", lambda: None)
    tex = tmp_path / "doc.tex"
    tex.write_text("x\n")
    with pytest.raises(pdf.PdflatexMissing) as info:
        pdf.compile_pdf(tex, tmp_path)
    message = str(info.value)
    assert "\n" not in message and "texlive-latex-base" in message and "texlive-latex-recommended" in message
    assert "lmodern" in message


def test_help_texts_point_at_the_paper_not_at_documents_the_user_lacks():
    from local2global.cli import build_parser
    parser = build_parser()
    texts = []
    for action in parser._subparsers._group_actions:
        for name, sub in action.choices.items():
            texts.append(sub.format_help())
    joined = "\n".join(texts)
    assert "formula sheet" not in joined and "§" not in joined and not re.search(r"\bissue\b", joined, re.I)
