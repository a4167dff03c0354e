r"""The site's index as a workbench (issue 26): search, filters, progress counts and a focus view by URL.

The index stays a static page that reads as before without JavaScript; this module adds to it:

* `row_attributes(item)`: the data a row of the claims table carries (status, kinds of its proof steps read off
  the record's `steps`, the paper labels its reference names, its section), for the filters;
* `controls_html(items)`: a search box over claim ids, paper labels and titles, a filter by status and one by
  kind of step (kernel-checked, exact, interval, sampled, experiment, argued, cited: `proofs._steps.KINDS`), and
  a focus form; all `hidden` until the script shows them;
* `progress_html(items)`: claims per status in each section of the registry (static, no script needed);
* `script_html()`: the script, which also opens the focus view named in the URL
  (``index.html?focus=thm2.basins&depth=2``: the claim, its ancestors and descendants within the depth along
  the `uses` edges, in the graph and in the table). A label typed in the search ("Lemma 12", "Lem. 12",
  "thm 2") is read with the reference parser's own table of kind words (`report.kind_words`), so "Lemma 1"
  never finds Lemma 12.
"""
from __future__ import annotations

import html
import json
from collections import Counter

#: query parameters of the focus view
FOCUS_PARAM, DEPTH_PARAM = "focus", "depth"
#: the depth the focus form starts with
DEFAULT_DEPTH = 2


def _esc(s) -> str:
    return html.escape(str(s), quote=True)


def step_kinds(item) -> list[str]:
    """The kinds of the claim's proof steps (its record's `steps`, in the order of `_steps.KINDS`); none when the
    build has no record of it."""
    from local2global.proofs._steps import KINDS
    found = {str(s.get("kind")) for s in (item.field("steps") or ()) if isinstance(s, dict)}
    return [k for k in KINDS if k in found]


def labels(item) -> list[str]:
    """The paper's labels the claim's reference names ("Lemma 12", "Theorem 2", "Eq. 3"): the report's parser."""
    from local2global.proofs.outputs.report import ref_mentions
    return [name for name, _ in ref_mentions(item.ref)]


def row_attributes(item) -> str:
    """` data-...` attributes of the claim's row in the index's table of all claims."""
    return (' data-claim="%s" data-status="%s" data-kinds="%s" data-labels="%s" data-section="%s"'
            % (_esc(item.id), _esc(item.status), _esc(" ".join(step_kinds(item))), _esc("|".join(labels(item))),
               _esc(item.section)))


def controls_html(items, statuses) -> str:
    """Search box, status and step-kind filters, focus form; hidden without JavaScript."""
    from local2global.proofs._steps import KINDS, KIND_WORDS
    counts = Counter(k for it in items for k in step_kinds(it))
    status_opts = "".join('<option value="%s">%s</option>' % (_esc(s), _esc(s)) for s in statuses)
    kind_opts = "".join('<option value="%s">%s (%d claims)</option>' % (_esc(k), _esc(KIND_WORDS[k]), counts[k])
                        for k in KINDS)
    ids = "".join('<option value="%s"></option>' % _esc(it.id) for it in items)
    return ('<div id="workbench" class="workbench" hidden>'
            '<p><label>Search <input type="search" id="wb-search" size="34" '
            'placeholder="claim id, paper label (Lemma 12) or words of a title"></label> '
            '<label>status <select id="wb-status"><option value="">any</option>%s</select></label> '
            '<label>with a step that is <select id="wb-kind"><option value="">any kind</option>%s</select></label> '
            '<span id="wb-count" class="note"></span></p>'
            '<p><label>Focus on <input id="wb-focus" list="wb-ids" size="24" placeholder="claim id"></label>'
            '<datalist id="wb-ids">%s</datalist> <label>depth <input type="number" id="wb-depth" min="1" max="20" '
            'value="%d"></label> <button type="button" id="wb-focus-go">focus</button> '
            '<button type="button" id="wb-clear">show all</button></p>'
            '<p id="wb-focus-note" class="note" hidden></p><div id="wb-focus-graph" class="graphbox" hidden></div>'
            '</div>'
            % (status_opts, kind_opts, ids, DEFAULT_DEPTH))


def progress_html(items, statuses, badge) -> str:
    """Claims per status in each section of the registry, in registry order (a static table)."""
    sections: dict[str, Counter] = {}
    for it in items:
        sections.setdefault(it.section or "other", Counter())[it.status] += 1
    shown = [s for s in statuses if any(c[s] for c in sections.values())]
    head = "".join("<th>%s</th>" % badge(s) for s in shown)
    rows = []
    for sec, c in sections.items():
        total = sum(c.values())
        cells = "".join('<td class="num">%s</td>' % (c[s] or "") for s in shown)
        rows.append('<tr data-section="%s"><td>%s</td><td class="num">%d</td>%s</tr>'
                    % (_esc(sec), _esc(sec), total, cells))
    return ('<table class="progress" id="progress"><tr><th>section</th><th>claims</th>%s</tr>%s</table>'
            % (head, "".join(rows)))


def focus_link(cid: str, prefix: str = "", depth: int = DEFAULT_DEPTH) -> str:
    """The URL of the index's focus view on a claim."""
    from urllib.parse import quote
    return "%sindex.html?%s=%s&amp;%s=%d" % (prefix, FOCUS_PARAM, quote(cid, safe=""), DEPTH_PARAM, depth)


def script_html() -> str:
    """The index's script and its data (the kind words of the reference parser)."""
    from local2global.proofs.outputs.report import kind_words
    data = json.dumps({"kinds": kind_words(), "focus": FOCUS_PARAM, "depth": DEPTH_PARAM},
                      sort_keys=True, separators=(",", ":")).replace("</", "<\\/")
    return ('<script type="application/json" id="wb-data">%s</script>\n<script id="wb-script">\n%s</script>'
            % (data, SCRIPT))


CSS = """\
.workbench { background: #fff; border: 1px solid #d5d5cd; padding: 0.2em 0.9em; margin: 0.6em 0; }
tr.wb-hide, svg.graph .wb-hide { display: none; }
svg.graph a.wb-dim rect, svg.graph a.wb-dim text { opacity: 0.25; }
svg.graph a.wb-focus rect { stroke: #000; stroke-width: 3; }
table.progress td.num { min-width: 2.5em; }
"""

#: the index's script: search, filters, focus (no formula: control flow over the page's own data attributes)
SCRIPT = r"""(function () {
  "use strict";
  const D = JSON.parse(document.getElementById("wb-data").textContent);
  const box = document.getElementById("workbench");
  if (!box) return;
  box.hidden = false;
  const rows = Array.from(document.querySelectorAll("table.claims tr[data-claim]"));
  const graph = document.querySelector("svg.graph");
  const nodes = graph ? Array.from(graph.querySelectorAll("a[data-claim]")) : [];
  const edges = graph ? Array.from(graph.querySelectorAll("path[data-from]")) : [];
  const ups = {}, downs = {};                      // used -> users, user -> used
  for (const ed of edges) {
    const s = ed.getAttribute("data-from"), d = ed.getAttribute("data-to");
    (downs[d] = downs[d] || []).push(s);
    (ups[s] = ups[s] || []).push(d);
  }
  function within(start, adj, depth) {
    /* the claims reachable from start in at most depth steps along adj, with their distance */
    const dist = {}; dist[start] = 0;
    let front = [start];
    for (let k = 1; k <= depth; k++) {
      const next = [];
      for (const n of front) for (const m of (adj[n] || [])) if (!(m in dist)) { dist[m] = k; next.push(m); }
      front = next;
    }
    return dist;
  }
  function labelOf(query) {
    /* a paper label typed in any spelling the reference parser reads ("Lem. 12" -> "Lemma 12"), else null */
    const m = /^\s*([a-z\u00a7]+)\.?\s*(\d+(?:\.\d+)*|[a-h])\s*(?:\(\s*(?:[ivx]{1,4}|[a-h])\s*\))?\s*/i.exec(query);
    if (!m || m[0].length !== query.length) return null;           // the whole query is one label
    const kind = D.kinds[m[1].toLowerCase()];
    return kind ? kind + " " + (/[a-h]/i.test(m[2]) ? m[2].toUpperCase() : m[2]) : null;
  }
  function matches(row, query) {
    if (!query) return true;
    const label = labelOf(query);
    if (label) return row.getAttribute("data-labels").split("|").indexOf(label) >= 0;
    const text = (row.getAttribute("data-claim") + " " + row.textContent + " " + row.getAttribute("data-labels")).toLowerCase();
    return query.toLowerCase().split(/\s+/).filter(Boolean).every(function (word) { return text.indexOf(word) >= 0; });
  }
  let focus = null;
  function apply() {
    const query = document.getElementById("wb-search").value.trim();
    const status = document.getElementById("wb-status").value, kind = document.getElementById("wb-kind").value;
    const keep = new Set();
    for (const row of rows) {
      const id = row.getAttribute("data-claim");
      const ok = matches(row, query) && (!status || row.getAttribute("data-status") === status) &&
                 (!kind || row.getAttribute("data-kinds").split(" ").indexOf(kind) >= 0) && (!focus || id in focus.set);
      row.classList.toggle("wb-hide", !ok);
      if (ok) keep.add(id);
    }
    const filtering = Boolean(query || status || kind);
    for (const a of nodes) {
      const id = a.getAttribute("data-claim");
      a.classList.toggle("wb-hide", Boolean(focus) && !(id in focus.set));
      a.classList.toggle("wb-dim", filtering && !keep.has(id));
      a.classList.toggle("wb-focus", Boolean(focus) && id === focus.id);
    }
    for (const ed of edges) {
      const s = ed.getAttribute("data-from"), d = ed.getAttribute("data-to");
      ed.classList.toggle("wb-hide", Boolean(focus) && !((s in focus.set) && (d in focus.set)));
    }
    document.getElementById("wb-count").textContent = keep.size + " of " + rows.length + " claims shown";
  }
  const SVGNS = "http://www.w3.org/2000/svg";
  function drawFocus() {
    /* the focus set laid out in columns by signed distance (ancestors left, descendants right), each column in
       the registry's order; nodes keep the main graph's colours and links */
    const holder = document.getElementById("wb-focus-graph"), main = graph ? graph.closest(".graphbox") : null;
    holder.textContent = "";
    holder.hidden = !focus;
    if (main) main.hidden = Boolean(focus);
    if (!focus) return;
    const order = rows.map(function (r) { return r.getAttribute("data-claim"); });
    const cols = {};
    for (const id of Object.keys(focus.set)) {
      const col = id in focus.anc ? -focus.anc[id] : focus.desc[id];
      (cols[col] = cols[col] || []).push(id);
    }
    const keys = Object.keys(cols).map(Number).sort(function (x, y) { return x - y; });
    const svg = document.createElementNS(SVGNS, "svg");
    svg.setAttribute("class", "graph focusgraph");
    holder.appendChild(svg);
    const defs = graph.querySelector("defs");
    if (defs) {                                                        // the arrow heads, under ids of their own
      const copy = defs.cloneNode(true);
      for (const m of copy.querySelectorAll("marker")) m.setAttribute("id", "wb-" + m.getAttribute("id"));
      svg.appendChild(copy);
    }
    const gEdges = document.createElementNS(SVGNS, "g"), gNodes = document.createElementNS(SVGNS, "g");
    svg.appendChild(gEdges); svg.appendChild(gNodes);
    const box = {};
    let left = 12, height = 0;
    for (const k of keys) {
      const ids = cols[k].sort(function (x, y) { return order.indexOf(x) - order.indexOf(y); });
      let width = 0;
      const made = ids.map(function (id, i) {
        const src = nodes.find(function (a) { return a.getAttribute("data-claim") === id; });
        const a = document.createElementNS(SVGNS, "a");
        a.setAttribute("href", src.getAttribute("href"));
        a.setAttribute("data-claim", id);
        a.setAttribute("class", src.getAttribute("class").replace(/\s*\bfocus\b/, "") + (id === focus.id ? " focus" : ""));
        const r = src.querySelector("rect").cloneNode(false), t = src.querySelector("text").cloneNode(true);
        const title = src.querySelector("title");
        if (title) a.appendChild(title.cloneNode(true));
        a.appendChild(r); a.appendChild(t); gNodes.appendChild(a);
        width = Math.max(width, t.getComputedTextLength() + 16);
        return { id: id, a: a, r: r, t: t, top: 12 + i * 31 };
      });
      for (const m of made) {
        m.r.setAttribute("x", left); m.r.setAttribute("y", m.top); m.r.setAttribute("width", width); m.r.setAttribute("height", 22);
        m.t.setAttribute("x", left + width / 2); m.t.setAttribute("y", m.top + 11);
        box[m.id] = { x: left, y: m.top, w: width };
        height = Math.max(height, m.top + 34);
      }
      left += width + 70;
    }
    for (const ed of edges) {
      const s = ed.getAttribute("data-from"), d = ed.getAttribute("data-to");
      if (!(s in box) || !(d in box)) continue;
      const x0 = box[s].x + box[s].w, y0 = box[s].y + 11, x1 = box[d].x, y1 = box[d].y + 11, mid = (x0 + x1) / 2;
      const path = document.createElementNS(SVGNS, "path");
      path.setAttribute("class", "edge" + (s === focus.id || d === focus.id ? " hot" : ""));
      path.setAttribute("d", "M" + x0 + " " + y0 + " C" + mid + " " + y0 + " " + mid + " " + y1 + " " + x1 + " " + y1);
      path.setAttribute("marker-end", s === focus.id || d === focus.id ? "url(#wb-arrow-hot)" : "url(#wb-arrow)");
      path.setAttribute("data-from", s); path.setAttribute("data-to", d);
      gEdges.appendChild(path);
    }
    svg.setAttribute("width", left); svg.setAttribute("height", height);
    svg.setAttribute("viewBox", "0 0 " + left + " " + height);
  }
  function setFocus(id, depth) {
    const note = document.getElementById("wb-focus-note");
    if (!id) { focus = null; note.hidden = true; apply(); drawFocus(); return; }
    if (!nodes.some(function (a) { return a.getAttribute("data-claim") === id; })) {
      focus = null; note.hidden = false; note.textContent = "no claim " + id + " to focus on"; apply(); drawFocus(); return;
    }
    const anc = within(id, downs, depth), desc = within(id, ups, depth), set = {};
    for (const k in anc) set[k] = true;
    for (const k in desc) set[k] = true;
    focus = { id: id, depth: depth, set: set, anc: anc, desc: desc };
    note.hidden = false;
    note.textContent = "Focus on " + id + ": " + (Object.keys(anc).length - 1) + " claim(s) it rests on and " +
      (Object.keys(desc).length - 1) + " that rest on it, within " + depth + " step(s) along the uses edges (" +
      Object.keys(set).length + " shown; the whole graph: show all).";
    document.getElementById("wb-focus").value = id;
    document.getElementById("wb-depth").value = depth;
    apply();
    drawFocus();
  }
  function fromUrl() {
    const params = new URLSearchParams(window.location.search);
    const id = params.get(D.focus), depth = Math.max(1, Math.min(50, Math.floor(Number(params.get(D.depth) || 2)) || 2));
    setFocus(id, depth);
    if (focus && box.scrollIntoView) box.scrollIntoView({ block: "start" });
  }
  function toUrl(id, depth) {
    const url = new URL(window.location.href);
    if (id) { url.searchParams.set(D.focus, id); url.searchParams.set(D.depth, String(depth)); }
    else { url.searchParams.delete(D.focus); url.searchParams.delete(D.depth); }
    try { window.history.replaceState(null, "", url.href); } catch (err) { /* file:// may refuse: the view still changes */ }
  }
  document.getElementById("wb-search").addEventListener("input", apply);
  document.getElementById("wb-status").addEventListener("change", apply);
  document.getElementById("wb-kind").addEventListener("change", apply);
  document.getElementById("wb-focus-go").addEventListener("click", function () {
    const id = document.getElementById("wb-focus").value.trim();
    const depth = Math.max(1, Math.floor(Number(document.getElementById("wb-depth").value)) || 2);
    toUrl(id, depth); setFocus(id, depth);
  });
  document.getElementById("wb-clear").addEventListener("click", function () {
    document.getElementById("wb-search").value = ""; document.getElementById("wb-status").value = "";
    document.getElementById("wb-kind").value = ""; toUrl(null); setFocus(null);
  });
  fromUrl();
  window.WB = { apply: apply, setFocus: setFocus, ready: true };
})();
"""
