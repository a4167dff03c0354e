"""A PDF one can cite and read: the title page says which version, commit and date built it (the date reproducible,
two builds of one commit byte-identical), the last section prints the BibTeX of `provenance`, the results table
says where every result is shown, Fig. 5's caption prints the σ its check used, and the dependency graph prints
every label whole and in words."""
import re
import shutil
import subprocess
from fractions import Fraction

import pytest

from local2global.proofs.outputs import pdf, provenance as P, report
from local2global.proofs.outputs.document import assemble, figures as F

PROV = P.Provenance(version="9.8.7", commit="0123456789abcdef0123456789abcdef01234567", modified=False,
                    epoch=1700000000, date_source="commit")


def test_title_page_names_version_commit_and_date():
    tex = assemble.provenance_tex(PROV)
    assert "local2global} 9.8.7" in tex and PROV.commit in tex and "2023-11-14 (the date of the commit)" in tex
    wheel = P.Provenance(version="9.8.7")
    tex = assemble.provenance_tex(wheel)
    assert "not built from a checkout" in tex and "commit" in tex and "none (no commit" in tex
    dirty = P.Provenance(version="1", commit="ab" * 20, modified=True, epoch=0, date_source="SOURCE_DATE_EPOCH")
    assert "with uncommitted changes" in assemble.provenance_tex(dirty)
    assert "1970-01-01 (from SOURCE\\_DATE\\_EPOCH)" in assemble.provenance_tex(dirty)


def test_how_to_cite_prints_the_one_bibtex():
    section = assemble.cite_section(PROV)
    body = section[section.index("\\begin{verbatim}\n") + len("\\begin{verbatim}\n"):section.index("\\end{verbatim}")]
    assert body == P.bibtex("9.8.7")


@pytest.fixture(scope="module")
def document_without_records():
    return assemble.build_document({}, provenance=PROV).tex


def test_every_result_says_where_it_is_shown(document_without_records):
    tex = document_without_records
    rows = re.findall(r"^% result: (.*)\n(.*)\\\\$", tex, re.M)
    assert len(rows) >= 38
    for result, row in rows:
        cells = row.split(" & ")
        assert len(cells) == 4 and cells[3].strip(), (result, row)
    remark3 = dict(rows)["Remark 3"].split(" & ")[3]
    assert "\\hyperref[sec:" in remark3                  # shown under Lemma 4, whose section backs Remark 3 too
    assert "local2global} 9.8.7" in tex and "\\section{How to cite}\\label{sec:cite}" in tex


def test_fig5_caption_prints_the_sigma_its_check_used(monkeypatch):
    from local2global.proofs import claims_30_attention as C
    from local2global.proofs.outputs.figures import fig_attention as FA
    fig5 = next(f for f in F.FIGURES if f.number == "5")
    sigma = C.FIG5_STARTS["sigma"]
    caption = F.caption_of(fig5)
    printed = re.search(r"\\sigma = ([0-9/]+)\$", caption).group(1)
    assert Fraction(printed) == sigma == Fraction(1, 10)
    from local2global.proofs.outputs.document.registry import sections
    unit = next(s for s in sections() if s.id == "figure5").build()
    assert "\\sigma = 1/10$" in unit.statement and "1/5" not in unit.statement
    # the figure draws the check's starts, the check's record names the same sigma
    from local2global.numeric.dynamics import basins as nbasins
    assert FA.fig5_starts() == nbasins.gaussian_starts(sigma, C.FIG5_STARTS["n"], C.FIG5_STARTS["seed"])
    seen = []
    monkeypatch.setattr(C.nbasins, "gaussian_fractions",
                        lambda p, q, s, n, seed, dps: seen.append((s, n, seed)) or {"counts": {}})
    C._fig5_counts.__wrapped__("p+q>1", 15)
    assert seen == [(sigma, C.FIG5_STARTS["n"], C.FIG5_STARTS["seed"])]
    # control: change the one definition and the caption follows
    monkeypatch.setitem(C.FIG5_STARTS, "sigma", Fraction(1, 5))
    assert "\\sigma = 1/5$" in F.caption_of(fig5)


def _registry_records():
    from local2global.proofs import select
    return {c.id: dict(id=c.id, ref=c.ref, uses=list(c.uses), status="proved") for c in select()}


def test_graph_labels_are_whole_and_in_words():
    nodes, _, _ = report.dependency_graph(_registry_records())
    for n in nodes:
        label = report.node_label(n)
        assert "\u2026" not in label and "^" not in label and "`" not in label, (n, label)
        if not re.fullmatch(r"[LTRF]\d+", label):                # a numbered result: its abbreviation
            words = re.findall(r"[A-Za-z]{2,}|[0-9.]+", re.sub(r"\^\(?[0-9]+\)?", "", n))
            shown = re.findall(r"[A-Za-z]{2,}|[0-9.]+", label.replace("\\mathrm", ""))
            assert words == shown, (n, label)                  # every word and number, in order: nothing cut
        assert all(len(line) <= report.LABEL_WIDTH or " " not in line for line in label.split("\n")), label
    assert report.node_label("Eq. 11 / Eq. 12 (R^3)") == "Eq. 11 /\nEq. 12 (\u211d\u00b3)"
    assert report.node_label("Lemma 12") == "L12" and report.node_label("Theorem 2") == "T2"


@pytest.mark.slow
def test_graph_prints_no_truncated_label_and_no_markup(tmp_path):
    if shutil.which("pdftotext") is None:
        pytest.skip("pdftotext (poppler-utils) not installed")
    path = tmp_path / "dependencies.pdf"
    path.write_bytes(report._graph_file(_registry_records(), "pdf"))
    text = subprocess.run(["pdftotext", str(path), "-"], capture_output=True, text=True, check=True).stdout
    assert "\u2026" not in text and "`" not in text and "R^3" not in text and "uses`" not in text
    assert "Blueprint of the paper" in text and "L12" in text


def _require_tools():
    if pdf.pdflatex_path() is None or shutil.which("pdftotext") is None:
        pytest.skip("pdflatex or pdftotext not installed")


@pytest.mark.slow
def test_two_builds_with_one_source_date_epoch_are_byte_identical(tmp_path, monkeypatch):
    """The whole document (no records, no figures) built and compiled twice in two folders with SOURCE_DATE_EPOCH
    set: the same bytes; the title page shows the version, the commit (or why none) and that date."""
    _require_tools()
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    blobs = []
    for k in (1, 2):
        out = tmp_path / f"build{k}"
        doc = assemble.build_document({}, fig_dir=out / "figures", tex_dir=out)
        tex = assemble.write_document(out, doc)
        blobs.append(pdf.compile_pdf(tex, out).read_bytes())
    assert blobs[0] == blobs[1] and b"CreationDate" not in blobs[0]
    first = subprocess.run(["pdftotext", "-f", "1", "-l", "1", str(tmp_path / "build1" / "derivations.pdf"), "-"],
                           capture_output=True, text=True, check=True).stdout
    prov = P.current()
    assert "version" in first and f"local2global {prov.version}" in first
    assert "2023-11-14 (from SOURCE_DATE_EPOCH)" in first
    assert (prov.commit in first) if prov.commit else ("not built from a checkout" in first)
    last = subprocess.run(["pdftotext", str(tmp_path / "build1" / "derivations.pdf"), "-"], capture_output=True,
                          text=True, check=True).stdout
    assert "How to cite" in last and "@inproceedings{makkuva2024local," in last and "arXiv:2406.03072" in last


def test_the_energy_surfaces_rest_on_e_squared_plus_a_function_of_w_and_a():
    """Figs. 2 and 5 draw E = level as e = ±sqrt(level - E(0, w, a)): that needs E - E(0, w, a) = e² exactly."""
    import sympy as sp

    from local2global.symbolic import symbols as S
    from local2global.symbolic.model import canonical_model
    E = canonical_model(True).energy
    assert sp.simplify(E - E.subs(S.e, 0) - S.e**2) == 0
    assert sp.simplify(E - E.subs(S.e, 0) - 2 * S.e**2) != 0            # control: the check can fail


def test_snapped_surfaces_end_on_the_boundary_of_their_domain():
    """A disc drawn on a coarse grid: the vertices moved onto its edge lie on the circle (to 1e-9), the others keep
    their places, and every vertex inside is drawn; without snapping the edge is a staircase up to a cell away."""
    import numpy as np

    from local2global.proofs.outputs.figures import fig_attention as FA
    U, V = np.meshgrid(np.linspace(-1.5, 1.5, 13), np.linspace(-1.5, 1.5, 13))

    def disc(u, v):
        return u**2 + v**2 <= 1

    U2, V2, draw = FA._snapped(U, V, disc)
    moved = (U2 != U) | (V2 != V)
    assert moved.any() and draw[disc(U, V)].all()
    assert np.allclose(np.hypot(U2[moved], V2[moved]), 1, atol=1e-9)
    assert not moved[disc(U, V)].any()
    edge = draw & ~disc(U, V)
    assert (edge == moved).all()
    circle = np.exp(2j * np.pi * np.arange(360) / 360)

    def reach(us, vs):                          # how far, on average, the circle is from the nearest vertex drawn
        return np.abs(circle[:, None] - (us + 1j * vs)[None, :]).min(axis=1).mean()
    inside = disc(U, V)
    assert reach(U2[draw], V2[draw]) < 0.6 * reach(U[inside], V[inside])
    gaps = [np.sqrt(1 - V[i, 0]**2) - np.abs(U[i][inside[i]]).max() for i in range(13) if abs(V[i, 0]) < 1]
    assert max(gaps) > 0.05                                     # the grid alone stops short of the circle
