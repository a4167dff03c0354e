"""The index as a workbench: search over ids, paper labels and titles, filters by status and kind of step,
progress per section, and the focus view by URL, in a real browser; without JavaScript the index reads as
before (the controls are hidden, every table is static)."""
from __future__ import annotations

import re
from collections import Counter
from urllib.parse import quote

import pytest

from local2global.proofs.outputs import site as S
from local2global.proofs.outputs import workbench as W
from local2global.proofs.outputs.report import ref_mentions


@pytest.fixture(scope="module")
def built(claim_records, tmp_path_factory):
    out = tmp_path_factory.mktemp("workbench_site")
    records = list(claim_records.values())
    S.write_site(records, out)
    items = S.gather(records)
    return out / "site", items


def _visible(driver, selector: str, attr: str = "data-claim") -> list[str]:
    return driver.execute_script(
        "return Array.from(document.querySelectorAll(arguments[0])).filter(el => { const r = el.getBoundingClientRect();"
        " return r.width > 0 && r.height > 0; }).map(el => el.getAttribute(arguments[1]))", selector, attr)


def _within(items, focus: str, depth: int) -> set[str]:
    """The focus claim, its ancestors and descendants within `depth` steps along the `uses` edges (Python side)."""
    edges, _ = S.edges_of(items)
    up, down = {}, {}
    for s, d in edges:                     # s is used by d
        down.setdefault(d, []).append(s)
        up.setdefault(s, []).append(d)
    out = {focus}
    for adj in (down, up):
        front = {focus}
        for _ in range(depth):
            front = {m for n in front for m in adj.get(n, ())} - out
            out |= front
    return out


def test_the_index_reads_without_javascript_and_has_no_legacy_badge(built):
    site, items = built
    index = (site / "index.html").read_text(encoding="utf-8")
    assert '<div id="workbench" class="workbench" hidden>' in index          # controls only with the script
    assert 'id="progress"' in index and "<table class=\"claims\">" in index
    assert ">verified</span>" not in index and "legacy name" not in index    # the legacy badge is gone
    # progress per section: the records' counts
    rows = re.findall(r'<tr data-section="([^"]+)"><td>[^<]*</td><td class="num">(\d+)</td>', index)
    assert {s: int(n) for s, n in rows} == dict(Counter(it.section for it in items))
    # every row of the claims table carries its data, read off the records
    for it in items:
        assert W.row_attributes(it) in index
        kinds = {s["kind"] for s in it.record["steps"]}
        assert set(W.step_kinds(it)) == kinds and kinds
    page = (site / "claims" / S.page_name("thm2.basins")).read_text(encoding="utf-8")
    assert 'href="../index.html?focus=thm2.basins&amp;depth=2"' in page


@pytest.mark.slow
def test_in_a_browser_the_search_finds_labels_and_ids(built, chromium):
    site, items = built
    chromium.get((site / "index.html").as_uri())
    assert chromium.execute_script("return window.WB && window.WB.ready") is True
    search = chromium.find_element("id", "wb-search")
    lemma12 = {it.id for it in items if "Lemma 12" in dict(ref_mentions(it.ref))}
    assert lemma12
    for typed in ("Lemma 12", "Lem. 12", "lemma12", "LEMMA 12"):
        search.clear()
        search.send_keys(typed)
        assert set(_visible(chromium, "table.claims tr[data-claim]")) == lemma12, typed
    search.clear()
    search.send_keys("Lemma 1")                                   # Lemma 1, not Lemma 12
    shown = set(_visible(chromium, "table.claims tr[data-claim]"))
    assert shown == {it.id for it in items if "Lemma 1" in dict(ref_mentions(it.ref))} and not shown & lemma12
    search.clear()
    search.send_keys("thm2.basins")
    assert "thm2.basins" in _visible(chromium, "table.claims tr[data-claim]")
    search.clear()
    search.send_keys("saddle asymptotes")                         # words of a title
    shown = set(_visible(chromium, "table.claims tr[data-claim]"))
    assert shown and all("saddle" in (it.title + it.ref + it.id).lower() for it in items if it.id in shown)
    search.clear()
    assert all(x["level"] != "SEVERE" for x in chromium.get_log("browser"))


@pytest.mark.slow
def test_in_a_browser_the_filters_read_the_records(built, chromium):
    site, items = built
    chromium.get((site / "index.html").as_uri())
    from selenium.webdriver.support.ui import Select
    Select(chromium.find_element("id", "wb-status")).select_by_value("proved")
    assert set(_visible(chromium, "table.claims tr[data-claim]")) == {it.id for it in items if it.status == "proved"}
    Select(chromium.find_element("id", "wb-status")).select_by_value("")
    for kind in ("exact", "sampled", "interval"):
        Select(chromium.find_element("id", "wb-kind")).select_by_value(kind)
        want = {it.id for it in items if kind in W.step_kinds(it)}
        assert set(_visible(chromium, "table.claims tr[data-claim]")) == want, kind
    Select(chromium.find_element("id", "wb-kind")).select_by_value("")


@pytest.mark.slow
@pytest.mark.parametrize("focus, depth", [("thm2.basins", 2), ("lemma5.b_star", 1), ("thm2.basins", 5)])
def test_in_a_browser_a_focus_url_shows_exactly_the_claims_within_the_depth(built, chromium, focus, depth):
    site, items = built
    url = (site / "index.html").as_uri() + f"?focus={quote(focus)}&depth={depth}"
    chromium.get(url)
    want = _within(items, focus, depth)
    assert set(_visible(chromium, "svg.focusgraph a[data-claim]")) == want
    assert set(_visible(chromium, "table.claims tr[data-claim]")) == want
    assert _visible(chromium, "svg.graph:not(.focusgraph) a[data-claim]") == []        # the whole graph folded away
    edges = chromium.execute_script(
        "return Array.from(document.querySelectorAll('svg.focusgraph path[data-from]')).map(p => [p.getAttribute('data-from'), p.getAttribute('data-to')])")
    all_edges, _ = S.edges_of(items)
    assert sorted(map(tuple, edges)) == sorted((s, d) for s, d in all_edges if s in want and d in want)
    note = chromium.find_element("id", "wb-focus-note").text
    assert f"Focus on {focus}" in note and f"({len(want)} shown" in note
    if (focus, depth) == ("thm2.basins", 2):
        from pathlib import Path
        out = Path(__file__).resolve().parents[1] / "build"
        out.mkdir(exist_ok=True)
        chromium.save_screenshot(str(out / "site_focus_thm2_basins_depth2.png"))
    assert all(x["level"] != "SEVERE" for x in chromium.get_log("browser"))
