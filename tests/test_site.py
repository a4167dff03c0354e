"""The blueprint site: every registered claim has a page, every graph node links to an existing page, no TeX
is left unconverted, the index counts are the records' counts, two builds are byte-identical, and in a real
browser (headless Chromium) the links resolve and the mathematics renders as MathML."""
import hashlib
import html
import re
import shutil
from collections import Counter
from pathlib import Path
from urllib.parse import unquote, urljoin, urlparse

import pytest

from local2global.proofs import Record, select
from local2global.proofs.outputs import site as S

REPO = Path(__file__).resolve().parents[1]


def _png(path: Path, rgb=(200, 30, 30)) -> None:
    from PIL import Image
    Image.new("RGB", (40, 30), rgb).save(path, format="PNG")


@pytest.fixture(scope="module")
def build(claim_records, tmp_path_factory):
    """The site of the real records, with stand-in figures (PNGs named like `l2g figures` names them) and
    one stand-in executed notebook, written into a build folder."""
    out = tmp_path_factory.mktemp("site_build")
    (out / "figures").mkdir()
    for stem in ("fig1a", "fig1b", "fig1c", "fig1d", "fig2_p09", "fig5_p01", "fig_attn_basins"):
        _png(out / "figures" / f"{stem}.png")
    (out / "notebooks").mkdir()
    (out / "notebooks" / "03_gradient_flow_and_basins.ipynb").write_text("{}\n")
    records = list(claim_records.values())
    S.write_site(records, out)
    return out, records


def _pages(site_dir: Path) -> dict:
    return {p.relative_to(site_dir).as_posix(): p.read_text(encoding="utf-8") for p in sorted(site_dir.rglob("*.html"))}


def _svg_links(text: str) -> list[tuple[str, str]]:
    """(claim id, href) of every node of every graph in a page."""
    out = []
    for svg in re.findall(r"<svg.*?</svg>", text, re.S):
        out += [(html.unescape(c), html.unescape(h)) for h, c in
                re.findall(r'<a href="([^"]+)" class="[^"]*" data-claim="([^"]+)">', svg)]
    return out


def _broken_links(site_dir: Path) -> list[str]:
    """Relative href/src targets (graph nodes, links, images) that name no file of the build folder."""
    bad = []
    for rel, text in _pages(site_dir).items():
        page = site_dir / rel
        for target in re.findall(r'(?:href|src)="([^"#?]+)', text):      # a query string names no file
            if "://" in target:
                continue
            if not (page.parent / html.unescape(target)).resolve().exists():
                bad.append(f"{rel} -> {target}")
    return bad


def test_every_registered_claim_has_a_page(build):
    out, _ = build
    pages = _pages(out / "site")
    claims = select()
    assert len(claims) > 50
    for c in claims:
        text = pages[f"claims/{S.page_name(c.id)}"]
        assert html.escape(c.title) in text and html.escape(c.id) in text
    # one page per claim, the index and the basin explorer, nothing else
    assert len(pages) == len(claims) + 2 and "explorer.html" in pages


def test_every_graph_node_links_to_an_existing_page(build):
    out, _ = build
    site = out / "site"
    pages = _pages(site)
    ids = [c.id for c in select()]
    nodes = _svg_links(pages["index.html"])
    assert sorted(c for c, _ in nodes) == sorted(ids)          # one node per registered claim
    for cid, href in nodes:
        assert href == f"claims/{S.page_name(cid)}" and (site / href).is_file(), (cid, href)
    for rel, text in pages.items():
        for cid, href in _svg_links(text):
            assert ((site / rel).parent / href).resolve().is_file(), (rel, cid, href)
    assert _broken_links(site) == []


def test_the_link_check_detects_a_missing_page(build, tmp_path):
    out, _ = build
    copy = tmp_path / "site"
    shutil.copytree(out / "site", copy)
    (copy / "claims" / S.page_name("lemma5.b_star")).unlink()
    assert any("lemma5.b_star.html" in b for b in _broken_links(copy))


def test_graph_edges_follow_the_uses_and_boxes_do_not_overlap(build):
    items = S.gather(build[1])
    edges, unresolved = S.edges_of(items)
    expected = {(h, it.id) for it in items for u in it.uses for h in S.resolve(u, items) if h != it.id}
    assert set(edges) == expected and unresolved == {}
    lay = S.layout([it.id for it in items], edges, lambda n: n)
    boxes = sorted(lay.boxes.items(), key=lambda kv: (kv[1][0], kv[1][1]))
    for (a, (xa, ya, wa, ha)), (b, (xb, yb, wb, hb)) in zip(boxes, boxes[1:]):
        if xa == xb:                                  # same column: stacked without overlap
            assert yb >= ya + ha, (a, b)
    for cid, (x, y, w, h) in lay.boxes.items():       # the whole label fits its box
        assert w >= S.CHAR_W * len(cid) and 0 <= x and x + w <= lay.width and 0 <= y and y + h <= lay.height
    for s, d, pts in lay.paths:                       # edges go from the user... to the used, left to right
        assert pts[0][0] < pts[-1][0] and lay.boxes[s][0] < lay.boxes[d][0]


def test_no_tex_is_left_unconverted(build, claim_records):
    out, records = build
    for rel, text in _pages(out / "site").items():
        # the text of a legacy step (an unstructured record) is shown as recorded, escaped: it may hold anything
        text = re.sub(r'<span class="legacy">.*?</span>', " ", text, flags=re.S)
        assert "$" not in text, rel                  # no $...$ math delimiters
        assert not re.search(r">\\[A-Za-z]+<", text), rel   # no TeX command passed through as text
        assert "\\frac" not in text and "\\mathrm" not in text, rel
    # every statement, derived expression and erratum form converted (nothing fell back to code)
    assert S.build_site(records).problems == []


def test_conversion_failures_are_reported_not_hidden():
    with pytest.raises(S.MathError):
        S.mathml(r"\notacommand x")
    R = S.Renderer()
    out = R.mixed(r"a $x^2$ and an unbalanced $y", where="t")
    assert "<math" in out and R.problems and "unbalanced" in R.problems[0]


def test_index_counts_equal_the_records_counts(build):
    out, records = build
    index = (out / "site" / "index.html").read_text(encoding="utf-8")
    shown = {s: int(n) for s, n in re.findall(r'<tr data-status="([^"]+)">.*?<td class="num">(\d+)</td>', index)}
    actual = Counter(r.status for r in records)
    assert {s: n for s, n in shown.items() if n} == dict(actual)
    assert sum(shown.values()) == len(records)
    from local2global.proofs.outputs.table import summary_line
    assert f'<p class="summary" id="summary">{summary_line(records)}</p>' in index     # as `l2g check` prints it


@pytest.mark.slow
def test_two_builds_into_different_folders_are_byte_identical(build, tmp_path):
    out, records = build
    other = tmp_path / "elsewhere" / "build"
    shutil.copytree(out / "figures", other / "figures")
    shutil.copytree(out / "notebooks", other / "notebooks")
    S.write_site(records, other)
    S.write_site(records, other)                    # rebuilding in place replaces the site whole

    def digest(d: Path):
        return {p.relative_to(d).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
                for p in sorted(d.rglob("*")) if p.is_file()}
    assert digest(out / "site") == digest(other / "site")
    assert sorted(p.name for p in other.iterdir()) == ["figures", "notebooks", "site"]   # no temporary left


def test_claim_pages_print_the_steps_and_the_trust_base_from_the_records(build):
    """Each claim page lists its steps by kind (their mathematics as MathML), the negative control, and the trust
    base: the steps per kind, the claims it rests on, the software with versions, the argued and cited steps."""
    from local2global.proofs.outputs.records import software
    out, records = build
    pages = _pages(out / "site")
    for r in records:
        text = pages[f"claims/{S.page_name(r.id)}"]
        assert "<h2>Proof steps</h2>" in text and "<h2>Trust base</h2>" in text, r.id
        assert f'<b data-claim="{html.escape(r.id)}">{html.escape(r.status_line)}</b>' in text
        for kind in {s.kind for s in r.steps}:
            assert f'class="step kind-{kind}' in text, (r.id, kind)
        for name in r.trust["software"]:
            version = next(x["version"] for x in software([name]))
            assert html.escape(f"{next(x['label'] for x in software([name]))} {version}") in text, (r.id, name)
        if r.control_steps:
            assert "Negative control" in text and ("rejected" in text)
    structured = [r for r in records if any(not s.legacy and "$" in s.states for s in r.steps)]
    assert structured, "some records carry steps with mathematics"
    for r in structured[:5]:
        steps_html = pages[f"claims/{S.page_name(r.id)}"].split("<h2>Proof steps</h2>")[1].split("<h2>")[0]
        assert "<math" in steps_html and "$" not in steps_html, r.id


def test_the_step_printer_escapes_values_and_keeps_legacy_text_as_it_is():
    R = S.Renderer()
    argued = dict(kind="argued", states=r"the orbit is bounded: $E \geq 0$", ok=True, method="argument in prose",
                  domain="", values=[], argument=r"$E$ is conserved & coercive <so> it stays", reference="")
    cited = dict(kind="cited", states="Ai > 0 on (0, oo)", ok=True, method="cited", domain="", values=[],
                 argument="", reference="DLMF 9.6.1")
    sampled = dict(kind="sampled", states="g = 0 at points", ok=False, method="mpmath", domain="24 points",
                   values=[["max |r|", "<1e-40"]], count=24, digits=50, argument="", reference="")
    legacy = dict(kind="exact", states="x**2 {'a': True} $oops", ok=True, method="symbolic", domain="", values=[],
                  argument="", reference="", legacy=True)
    a = S.step_html(argued, R, "t", "A1")
    assert "<math" in a and "A1" in a and "&amp; coercive &lt;so&gt;" in a and 'class="argument"' in a
    assert "[DLMF 9.6.1]" in S.step_html(cited, R, "t")
    s_ = S.step_html(sampled, R, "t")
    assert "max |r| = &lt;1e-40" in s_ and "24 points, 50 digits" in s_ and "fails" in s_
    lg = S.step_html(legacy, R, "t")
    assert '<span class="legacy">x**2 {&#x27;a&#x27;: True} $oops</span>' in lg and "<math" not in lg
    assert R.problems == []


def test_claim_pages_show_figures_notebook_derivations_and_dependencies(build):
    out, _ = build
    pages = _pages(out / "site")
    fig1 = pages["claims/fig1.basins.html"]               # ref "Fig. 1 (b), (d)": the basin panels only
    assert 'src="../figures/fig1b.png"' in fig1 and 'src="../figures/fig1d.png"' in fig1
    assert "fig1a.png" not in fig1 and "fig1c.png" not in fig1
    assert 'href="../../notebooks/03_gradient_flow_and_basins.ipynb"' in fig1
    assert 'src="../figures/fig2_p09.png"' in pages["claims/fig5.origin.html"]     # "Fig. 2 / Fig. 5"
    assert (out / "site" / "figures" / "fig1b.png").read_bytes() == (out / "figures" / "fig1b.png").read_bytes()
    b_star = pages["claims/lemma5.b_star.html"]
    assert 'id="sec-optimal_bias"' in b_star and b_star.count("<math") > 10         # derived expressions
    assert 'href="lemma5.quadratic.html"' in b_star and 'href="lemma6.reduced.html"' in b_star   # uses, used by
    assert "notebooks/01_canonical_model_and_bias.py" in b_star                    # not executed: named
    remark5 = pages["claims/remark5.hessian.html"]
    assert "<th>As printed in the paper" in remark5 and "<th>Corrected" in remark5
    assert "Steps of its check" in remark5
    index = pages["index.html"]
    for name in ([f"Lemma {i}" for i in range(1, 17)] + [f"Theorem {i}" for i in range(1, 12)]
                 + [f"Remark {i}" for i in range(1, 6)] + [f"Figure {i}" for i in range(1, 7)]):
        assert f'<tr id="cov-{name.replace(" ", "-")}"><td>{name}</td>' in index, name
    assert 'id="errata"' in index and 'href="claims/remark5.hessian.html"' in index


def test_figure_references_name_the_panels():
    assert S.figure_refs("Fig. 1 (b), (d)") == [(1, "bd")]
    assert S.figure_refs("Fig. 2 / Fig. 5") == [(2, ""), (5, "")]
    assert S.figure_refs("Fig. 3 (Sec. 5.1)") == [(3, "")]
    stems = ["fig1a", "fig1b", "fig2_p01", "fig3_fullmodel", "fig_attn_basins", "fig10"]
    assert S.figures_for("Fig. 1 (b)", stems) == ["fig1b"]
    assert S.figures_for("Fig. 1", stems) == ["fig1a", "fig1b"]
    assert S.figures_for("Thm 1", stems) == []


def test_the_status_ladder_and_the_new_record_fields():
    claims = [c for c in select() if c.id in ("sec2.stationary", "sec2.entropy_rate", "sec2.marginal_entropy")]
    recs = [
        dict(id="sec2.stationary", ref="Sec. 2", title="t", section="setting", status="proved", method="symbolic",
             evidence="exact", control="rejected: x", uses=[], erratum="", own_status="proved",
             stated_domain="(p, q) in (0, 1)^2", checked_domain="p in (0, 1), q in (0, 1)"),
        dict(id="sec2.entropy_rate", ref="Sec. 2", title="t", section="setting", status="sampled", method="sampled",
             evidence="24 points", control="rejected: y", uses=["sec2.stationary"], erratum="",
             own_status="sampled", weakest="sec2.stationary"),
        Record("sec2.marginal_entropy", "Sec. 2", "t", "setting", "verified", "symbolic", "e", "rejected: z"),
    ]
    site = S.build_site(recs, claims)
    p = {k: v.decode() for k, v in site.files.items()}
    first = p["claims/sec2.stationary.html"]
    assert "<dt>stated domain</dt>" in first and "<dt>checked domain</dt>" in first and "<dt>own status</dt>" in first
    assert "(p, q) in (0, 1)^2" in first and "p in (0, 1), q in (0, 1)" in first
    assert S.COLOURS["proved"] in first
    second = p["claims/sec2.entropy_rate.html"]
    assert "<dt>weakest link</dt>" in second and 'href="sec2.stationary.html"' in second
    third = p["claims/sec2.marginal_entropy.html"]       # today's record: the new fields are absent
    assert "<dt>stated domain</dt>" not in third and "<dt>weakest link</dt>" not in third
    assert "<dt>own status</dt>" not in third and "<dt>checked domain</dt>" not in third
    assert S.colour("verified") == S.colour("sampled") != S.colour("certified")
    assert [S.rank(s) for s in S.LADDER] == sorted(S.rank(s) for s in S.LADDER)
    assert S.rank("verified") == S.rank("sampled")
    index = p["index.html"]
    assert '<tr data-status="proved">' in index and '<tr data-status="sampled">' in index


def test_main_job_writes_the_site(tmp_path):
    from local2global.proofs.outputs.pipeline import run_all
    _, steps = run_all(tmp_path, claim_ids=["sec2.stationary"], figures=False, notebooks=False, pdf=False)
    site = {s.name: s for s in steps}["site"]
    assert tmp_path / "site" / "index.html" in site.paths
    index = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert "1 proved" in index and "not run" in index              # the others registered, not run


def test_site_command_refuses_bad_records(tmp_path, capsys):
    bad = tmp_path / "report.json"
    bad.write_text("{not json")
    assert S.main(["--out", str(tmp_path), "--records", str(bad)]) == 2
    assert S.main(["--out", str(tmp_path), "--records", str(tmp_path / "missing.json")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and all(e.startswith("error: ") for e in err)
    assert not (tmp_path / "site").exists()


# ---------------------------------------------------------------------------------------------
# In a real browser
# ---------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def browser(chromium):
    return chromium


def _path_of(url: str) -> Path:
    u = urlparse(url)
    assert u.scheme == "file", url
    return Path(unquote(u.path))


@pytest.mark.slow
def test_in_a_browser_links_resolve_and_math_renders(build, browser):
    out, records = build
    site = out / "site"
    index_url = (site / "index.html").as_uri()
    browser.get(index_url)
    assert "local2global" in browser.title
    nodes = browser.find_elements("css selector", "svg.graph a")
    assert len(nodes) == len(select())
    targets = {}
    for a in nodes:
        href = a.get_dom_attribute("href")
        target = _path_of(urljoin(browser.current_url, href))
        assert target.is_file(), href
        targets[a.get_dom_attribute("data-claim")] = target
    # nothing but local files was loaded
    urls = browser.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
    assert all(u.startswith("file://") for u in urls), urls
    (REPO / "build").mkdir(exist_ok=True)
    browser.save_screenshot(str(REPO / "build" / "site_index.png"))

    by_id = {r.id: r for r in records}
    for cid in ("sec2.stationary", "lemma5.b_star", "thm2.basins", "remark5.hessian"):
        browser.get(index_url)
        node = browser.find_element("css selector", f'svg.graph a[data-claim="{cid}"]')
        browser.execute_script("arguments[0].scrollIntoView({block: 'center', inline: 'center'})", node)
        node.click()
        assert _path_of(browser.current_url) == targets[cid]
        h1 = browser.find_element("css selector", "h1").text
        assert by_id[cid].title in h1
        maths = browser.find_elements("css selector", ".statement math")
        assert maths, cid
        for m in maths:
            assert browser.execute_script("return arguments[0] instanceof MathMLElement", m)
            rect = m.rect
            assert rect["width"] > 0 and rect["height"] > 0, (cid, rect)
        text = browser.find_element("css selector", "main").text
        assert "$" not in text and "\\frac" not in text and "\\mathrm" not in text
        if cid == "lemma5.b_star":
            shown = browser.execute_script(
                "return Array.from(document.querySelectorAll('section.derivation math'))"
                ".filter(m => m.getBoundingClientRect().width > 0 && m.getBoundingClientRect().height > 0).length")
            assert shown > 10
            browser.save_screenshot(str(REPO / "build" / "site_claim.png"))
        # a link of its focus graph leads to another claim page
        others = [a for a in browser.find_elements("css selector", "svg.graph a") if a.get_dom_attribute("data-claim") != cid]
        if others:
            href = others[0].get_dom_attribute("href")
            assert _path_of(urljoin(browser.current_url, href)).is_file()
