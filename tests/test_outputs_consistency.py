"""Every output gives every claim and every numbered result the same status and the same status line: report.md,
report.json, the derivations document's results table and claims appendix (its LaTeX source), and the site's coverage
table, claims table and claim pages. The expected statuses are recomputed here from the records alone (the weakest
proof claim of a result, its trust base over the uses-closure), independently of `proofs.outputs.records`. And no
Python repr reaches a page: the site and the document are searched for `{'`, `Datum(`, `True`, `None`, `**` outside the
text of legacy steps (records other helpers have not yet made structured)."""
from __future__ import annotations

import html
import json
import re

import pytest

from local2global.proofs.outputs import report
from local2global.proofs.outputs import site as S
from local2global.proofs.outputs.document import build_document, reader
from local2global.proofs.outputs.document.steps import without_legacy

#: weakest first, as the paper's coverage reads a result (erratum below experiment)
_RANK = ["failed", "open", "erratum", "experiment", "sampled", "certified", "proved"]


def _closure(recs: dict, start: list[str]) -> list[str]:
    """The uses-closure by breadth-first search (an id, or an id prefix followed by '.', names a claim)."""
    seen, todo = set(), list(start)
    while todo:
        cid = todo.pop()
        if cid in seen or cid not in recs:
            continue
        seen.add(cid)
        for u in recs[cid]["uses"]:
            todo += [i for i in recs if i == u or i.startswith(u + ".")]
    return [i for i in recs if i in seen]


def _line(status: str, recs: dict, ids: list[str]) -> str:
    """The status line: the argued steps of the closure (one argument carried word for word by several claims counts
    once) and the references it cites."""
    argued, cited = set(), []
    for cid in _closure(recs, ids):
        for s in recs[cid]["steps"]:
            if s["kind"] == "argued":
                argued.add((s["states"], s["argument"]))
            elif s["kind"] == "cited" and s["reference"] not in cited:
                cited.append(s["reference"])
    argued = len(argued)
    note = ", ".join(x for x in ((f"{argued} argued step" + ("s" if argued != 1 else "")) if argued else "",
                                 ("cites " + "; ".join(cited)) if cited else "") if x)
    return f"{status}, {note}" if note and status not in ("failed", "open") else status


def expected(recs: dict) -> tuple[dict, dict]:
    """({claim id: (status, line)}, {numbered result: (status, line)}) from the records alone."""
    claims = {cid: (r["status"], _line(r["status"], recs, [cid])) for cid, r in recs.items()}
    results = {}
    for name, _, _ in report.NUMBERED_RESULTS:
        covering = [cid for cid, r in recs.items() if name in report.numbered_results(r["ref"])]
        if not covering:
            results[name] = ("uncovered", "uncovered")
            continue
        proof = [c for c in covering if recs[c]["role"] != "confrontation"] or covering
        failed = [c for c in covering if recs[c]["status"] == "failed"]
        status = "failed" if failed else min((recs[c]["status"] for c in proof), key=_RANK.index)
        results[name] = (status, _line(status, recs, proof))
    return claims, results


@pytest.fixture(scope="module")
def built(claim_records):
    recs = {cid: r.as_dict() for cid, r in claim_records.items()}
    records = list(claim_records.values())
    return {"recs": recs, "md": report.render_markdown(records), "json": report.report_data(records),
            "tex": build_document(records).tex, "site": S.build_site(records)}


# --- what each output says --------------------------------------------------------------------------

def _md_cells(line: str) -> list[str]:
    return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line)[1:-1]]


def from_markdown(md: str) -> tuple[dict, dict]:
    claims, results = {}, {}
    section = ""
    for line in md.splitlines():
        if line.startswith("## "):
            section = line
        elif line.startswith("| ") and not line.startswith("| Result") and not line.startswith("| Id"):
            cells = _md_cells(line)
            if section.startswith("## Coverage"):
                results[cells[0]] = cells[3]
            elif section == "## Claims":
                claims[cells[0].strip("`")] = cells[3]
    return claims, results


def from_json(data: dict) -> tuple[dict, dict]:
    return ({r["id"]: (r["status"], r["status_line"]) for r in data["claims"]},
            {row["result"]: (row["status"], row["status_line"]) for row in data["coverage"]})


def from_tex(tex: str) -> tuple[dict, dict]:
    """The results table (`% result: NAME` rows) and the claims appendix (`% claim: ID` rows) of the document."""
    box = r"\\statusbox\{(\w+)\}\{((?:[^{}]|\{\})*)\}"
    results = {m.group(1): (m.group(2), m.group(3)) for m in
               re.finditer(r"% result: (.+)\n.*?" + box, tex)}
    for m in re.finditer(r"% result: (.+)\n[^\n]*\\textit\{(uncovered|not checkable)\}", tex):
        results[m.group(1)] = ("uncovered", "uncovered")
    claims = {m.group(1): (m.group(2), m.group(3)) for m in re.finditer(r"% claim: (\S+)\n.*?" + box, tex)}
    return claims, results


def from_site(files: dict) -> tuple[dict, dict, dict]:
    index = files["index.html"].decode()
    results = {}
    for m in re.finditer(r'<tr id="cov-([^"]+)"><td>[^<]*</td><td>.*?</td><td>[^<]*</td><td><span class="badge[^"]*"'
                         r'[^>]*>([^<]+)</span>(?:<br><span class="statusline" data-result="[^"]+">([^<]*)</span>)?',
                         index):
        name = html.unescape(m.group(1)).replace("-", " ")
        results[name] = (html.unescape(m.group(2)), html.unescape(m.group(3) or m.group(2)))
    table = {html.unescape(m.group(1)): html.unescape(m.group(2)) for m in
             re.finditer(r'<td class="statusline" data-claim="([^"]+)">([^<]*)</td>', index)}
    pages = {}
    for rel, data in files.items():
        m = re.search(r'<b data-claim="([^"]+)">([^<]*)</b>', data.decode()) if rel.startswith("claims/") else None
        if m:
            pages[html.unescape(m.group(1))] = html.unescape(m.group(2))
    return results, table, pages


# --- the test -----------------------------------------------------------------------------------------

def test_every_output_gives_every_claim_and_result_the_same_status_line(built):
    recs = built["recs"]
    want_claims, want_results = expected(recs)
    assert len(want_claims) == len(recs) > 50 and len(want_results) == len(report.NUMBERED_RESULTS)

    md_claims, md_results = from_markdown(built["md"])
    assert md_claims == {c: line for c, (_, line) in want_claims.items()}
    assert md_results == {r: line for r, (_, line) in want_results.items()}

    js_claims, js_results = from_json(json.loads(json.dumps(built["json"])))
    assert js_claims == want_claims and js_results == want_results

    tex_claims, tex_results = from_tex(built["tex"])
    assert tex_claims == {c: (s, reader.escape(line)) for c, (s, line) in want_claims.items()}
    assert tex_results == {r: (s, reader.escape(line)) for r, (s, line) in want_results.items()}

    site_results, site_table, site_pages = from_site(built["site"].files)
    assert site_results == want_results
    assert site_table == {c: line for c, (_, line) in want_claims.items()} == site_pages


def test_the_comparison_sees_an_output_that_disagrees(built):
    """Negative control of the test: one status line changed in report.md, one status word in the document's table,
    are found."""
    recs = built["recs"]
    want_claims, want_results = expected(recs)
    cid, (_, line) = next(iter(want_claims.items()))
    altered = built["md"].replace(f"| `{cid}` |", f"| `{cid}` |", 1)
    rows = altered.split("\n")
    k = next(i for i, r in enumerate(rows) if r.startswith(f"| `{cid}` |"))
    cells = rows[k].split(" | ")
    cells[3] = line + ", 9 argued steps"
    rows[k] = " | ".join(cells)
    assert from_markdown("\n".join(rows))[0][cid] != line
    name = "Lemma 5"
    tex = built["tex"]
    i = tex.index(f"% result: {name}\n")
    status = want_results[name][0]
    tex = tex[:i] + tex[i:].replace(f"\\statusbox{{{status}}}", "\\statusbox{open}", 1)
    assert from_tex(tex)[1][name][0] == "open" != status


# --- no Python repr on a page ------------------------------------------------------------------------

_REPR = re.compile(r"\{'|Datum\(|\bTrue\b|\bNone\b|\*\*")


def test_no_python_repr_reaches_the_site_or_the_document(built):
    legacy = sum(s.get("legacy", False) for r in built["recs"].values()
                 for k in ("steps", "printed_steps", "control_steps", "corroborations") for s in r.get(k, ()))
    for rel, data in built["site"].files.items():
        if not rel.endswith(".html"):
            continue
        text = re.sub(r'<span class="legacy">.*?</span>|<script\b.*?</script>|<style\b.*?</style>', " ", data.decode(),
                      flags=re.S)                                    # what a reader reads: not the code of a page
        text = html.unescape(re.sub(r"<[^>]+>", " ", text))
        assert not _REPR.search(text), (rel, _REPR.search(text).group(0), text[max(0, _REPR.search(text).start() - 80):
                                                                            _REPR.search(text).end() + 80])
    tex = without_legacy(built["tex"])
    hit = _REPR.search(tex)
    assert hit is None, tex[max(0, hit.start() - 120):hit.end() + 120]
    # the pages do carry the legacy text, escaped and marked (until every record is structured)
    if legacy:
        assert any(b'<span class="legacy">' in d for d in built["site"].files.values())
        assert "\\legacytext{" in built["tex"]


def test_every_character_of_the_records_has_a_latex_form(built):
    """The document sets every non-ASCII character of the records and the registry's texts (a Greek letter, an
    arrow, a Polish L) with a LaTeX command; none falls back to '?'."""
    from local2global.proofs import select
    from local2global.proofs.outputs.document.reader import _ESC
    text = json.dumps(built["recs"], ensure_ascii=False)
    text += " ".join(c.title + c.erratum + c.ref + c.domain + c.statement for c in select())
    assert sorted({ch for ch in text if ord(ch) > 127} - set(_ESC)) == []
