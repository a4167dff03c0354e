r"""The blueprint web site (`l2g all`, step "site"): every claim of the registry, browsable offline.

`write_site(records, out_dir)` writes `<out_dir>/site/`:

- ``index.html``: counts of claims by status (the numbers of `l2g check`'s summary line), a colour legend,
  the dependency graph of every registered claim (inline SVG, one node per claim linking to its page, an
  edge for every `uses`), the coverage table of the paper's numbered results (Lemmas 1-16, Theorems 1-11,
  Remarks 1-5, Figures 1-6), the errata (printed form next to corrected form), the figures and notebooks;
- ``claims/<id>.html``: one page per claim: paper label, title, status line and what it means, the statement
  as mathematics, its proof steps by kind (what each states, as MathML, what it found, how and where; the
  argued steps in full, the cited ones with their reference), the corroborations and the negative control, for
  an erratum the printed form's steps beside the corrected form's, its trust base (the claims it rests on, the
  steps per kind, the software trusted with versions, every argued and cited step), the stated and checked
  domains, the claims it uses and those that use it, the focus graph of its ancestors and descendants, the
  derived expressions of the derivations-document sections that back it, the figures that show it and the
  notebook that walks through it;
- ``style.css`` and ``figures/*.png`` (copied from ``<out_dir>/figures`` when the figures were rendered);
- ``explorer.html``: the basin explorer (`proofs.outputs.explorer`), linked from the index.

With JavaScript the index also searches, filters and opens a focus view by URL (`proofs.outputs.workbench`);
without it the pages read as described here.

The pages are static HTML5 (the index's script only adds search, filters and focus; the explorer computes in the
browser), no server and nothing fetched: they open from ``file://`` URLs.
LaTeX is converted to MathML at build time (latex2mathml) and rendered by the browser (MathML Core); the
graph layout is computed here (layers along the `uses` edges, Sugiyama style; no graphviz). Output is
deterministic: two builds of the same records are byte-identical, whatever folder they are written to.

Statuses are shown on the ladder proved > certified > sampled > experiment > erratum > open > failed, with
the record's status line (`proofs.outputs.records`: the one rule of every output); ``verified`` (older records)
is read as ``sampled`` and coloured like it (the legends no longer list it). Record fields a record lacks (``own_status``,
``stated_domain``, ``checked_domain``, ``weakest``) are absent from the page. Nothing is parsed out of text: the
steps are data, their mathematics is the LaTeX inside ``$...$`` of each step's statement.
"""
from __future__ import annotations

import html
import os
import re
import shutil
import sys
import tempfile
import xml.etree.ElementTree as ET
from collections import Counter, defaultdict
from dataclasses import dataclass, field, replace
from pathlib import Path

from local2global.proofs._registry import resolve_uses
from local2global.proofs.outputs import palette, records as RD

#: the site's folder inside the output directory (build/site/)
SITE_DIR = "site"

#: the status ladder, strongest first
LADDER = ("proved", "certified", "sampled", "experiment", "erratum", "open", "failed")
#: legacy status names and the rung they are shown on
LEGACY = {"verified": "sampled"}
#: status of a registered claim that has no record in the build (e.g. a run restricted with --only)
NOT_RUN = "not run"

COLOURS = RD.COLOURS
#: text colour on each fill (contrast)
INK = RD.INK

MEANINGS = {
    "proved": "established on the whole stated domain by an exact symbolic argument (SymPy decides it), "
              "and the negative control was rejected",
    "certified": "established by interval arithmetic (arb) on boxes covering the checked domain, and the "
                 "negative control was rejected",
    "sampled": "the check passed on the paper's printed form at sampled points (random rational points, high "
               "precision) and rejected the negative control: strong evidence, not a proof",
    "verified": "legacy status, shown as sampled: the check passed on the paper's printed form (exactly where "
                "SymPy could decide, otherwise at sampled points) and rejected the negative control",
    "experiment": "a numerical experiment (flows, training, float64 witnesses) supports the claim: evidence, "
                  "not a check of a formula",
    "erratum": "the paper's printed form fails the check; our corrected form passes it and the negative "
               "control is rejected (both forms are shown)",
    "open": "no machine check exists; the reason is given",
    "failed": "our own check broke: the printed form failed with no correction, the check crashed, or the "
              "negative control was not rejected; for an experiment, also: the measured runs contradict its "
              "prediction (the failing step says where and by how much)",
    NOT_RUN: "registered, but this build has no record of its check (l2g check or l2g all runs it)",
    "uncovered": "no registered claim refers to this result",
}

#: notebook walking through each topic (a claim's `section`), by notebook stem (notebooks/<stem>.py)
SECTION_NOTEBOOK = {
    "setting": "01_canonical_model_and_bias", "canonical": "01_canonical_model_and_bias",
    "bias": "01_canonical_model_and_bias", "landscape": "02_loss_landscape", "critical": "02_loss_landscape",
    "flow": "03_gradient_flow_and_basins", "attention": "04_attention", "full model": "05_full_model",
    "untied": "06_weight_tying",
}


def rung(status: str) -> str:
    """The ladder rung a status is shown on (legacy names mapped; unknown names unchanged)."""
    return LEGACY.get(status, status)


def rank(status: str) -> int:
    """Position on the ladder, 0 = strongest; statuses off the ladder rank below `failed`."""
    r = rung(status)
    return LADDER.index(r) if r in LADDER else len(LADDER)


def colour(status: str) -> str:
    return COLOURS.get(rung(status), "#ffffff")


def ink(status: str) -> str:
    return INK.get(rung(status), "#000000")


def _esc(s) -> str:
    return html.escape(str(s), quote=True)


# ---------------------------------------------------------------------------------------------
# Mathematics: LaTeX -> MathML at build time
# ---------------------------------------------------------------------------------------------

class MathError(ValueError):
    """A LaTeX string latex2mathml cannot convert faithfully (an unknown command, malformed output)."""


_UNKNOWN_COMMAND = re.compile(r">\\[A-Za-z]+<")


_DELIM = r"(\\[{}|]|\\[lr]?[vV]ert|\\langle|\\rangle|\\lfloor|\\rfloor|\\lceil|\\rceil|[()\[\]|./])"
_LEFT_RIGHT = re.compile(r"\\(left|right)\s*" + _DELIM)
_TALL = re.compile(r"\\(?:d?frac|tfrac|begin|binom|sum|prod|int|oint|bigcup|bigcap|substack|overset|underset)\b")


def _unstretch(tex: str) -> str:
    """\\left( x \\right) -> ( x ) where the content is not tall (no fraction, array, big operator):
    Chromium draws a stretchy fence around short content with its first enlarged variant, wider than
    TeX's, which spreads out every sigma(c). Tall content keeps its stretchy fences."""
    toks = list(_LEFT_RIGHT.finditer(tex))
    if not toks:
        return tex
    keep: set = set()
    stack: list = []            # (index of the \\left token, content is tall so far)
    pairs = []
    for k, m in enumerate(toks):
        if m.group(1) == "left":
            stack.append([k, False])
        elif stack:
            i, tall = stack.pop()
            start, end = toks[i].end(), m.start()
            tall = tall or bool(_TALL.search(tex[start:end]))
            pairs.append((i, k, tall))
            if tall and stack:
                stack[-1][1] = True
    if stack:                   # unbalanced: leave the formula as it is
        return tex
    for i, k, tall in pairs:
        if tall:
            keep.update((i, k))
    out, pos = [], 0
    for k, m in enumerate(toks):
        out.append(tex[pos:m.start()])
        if k in keep:
            out.append(m.group(0))
        else:
            d = m.group(2)
            out.append("" if d == "." else (" " + d if d.startswith("\\") else d))
        pos = m.end()
    out.append(tex[pos:])
    return "".join(out)


_FUNCTION = re.compile(r"(</mi>|</mn>|</msup>|</msub>|</msubsup>|</mrow>|</mfrac>|</msqrt>|&#x00029;</mo>|&#x0007C;</mo>)(<mi>[a-z]{2,}</mi>)")


_ARGUMENT = re.compile(r"(<mi>(?:log|exp|ln|sin|cos|tan|sign)</mi>)(?=<mi>|<mn>|<mfrac>|<msqrt>|<msub>|<msup>)")


def _tidy(out: str) -> str:
    """TeX's spacing where MathML Core's differs: a plain bar is an ordinary symbol (|w|, no operator
    space), and so is a slash (a/b); \\operatorname{sign} is a function name like \\log; a function name
    gets TeX's thin space after a factor (sigma(c) exp(c), not sigma(c)exp(c)) and before an argument
    that is not parenthesised (log x, log of a fraction)."""
    out = out.replace('<mo stretchy="false">&#x0007C;</mo>', '<mo stretchy="false" lspace="0" rspace="0">&#x0007C;</mo>')
    out = out.replace("<mo>&#x0002F;</mo>", '<mo lspace="0" rspace="0">&#x0002F;</mo>')     # a/b: ordinary
    out = re.sub(r"<mo>(?!lim|max|min|sup|inf|det)([a-z]{2,})</mo>", r"<mi>\1</mi>", out)
    out = _FUNCTION.sub(r'\1<mspace width="0.1667em"></mspace>\2', out)
    return _ARGUMENT.sub(r'\1<mspace width="0.1667em"></mspace>', out)


def mathml(tex: str, display: bool = False) -> str:
    """MathML for one LaTeX formula (no $ delimiters). Raises MathError where the conversion would show
    raw TeX (latex2mathml passes unknown commands through as text) or is not well-formed XML."""
    from latex2mathml.converter import convert

    try:
        out = convert(_unstretch(tex), display="block" if display else "inline")
    except Exception as ex:                     # noqa: BLE001 - any converter failure is a MathError
        raise MathError(f"cannot convert {tex!r}: {type(ex).__name__}: {ex}") from None
    bad = _UNKNOWN_COMMAND.search(out)
    if bad:
        raise MathError(f"unsupported command {bad.group(0)[1:-1]} in {tex!r}")
    out = _tidy(out)
    try:
        ET.fromstring(out)
    except ET.ParseError as ex:
        raise MathError(f"malformed MathML for {tex!r}: {ex}") from None
    return out


_MATH_SPAN = re.compile(r"(?<!\\)\$(.+?)(?<!\\)\$", re.S)
_TEXT_MARKUP = (("``", "\u201c"), ("''", "\u201d"), ("---", "\u2014"), ("--", "\u2013"), ("~", "\u00a0"),
                (r"\$", "$"), (r"\%", "%"), (r"\&", "&"), (r"\#", "#"), (r"\_", "_"), (r"\{", "{"),
                (r"\}", "}"), (r"\S{}", "\u00a7"), (r"\~{}", "~"), (r"\^{}", "^"), (r"\ ", " "))


def _text_mode(s: str) -> str:
    """LaTeX text mode (quotes, dashes, escapes as the derivations document writes them) -> plain text."""
    for a, b in _TEXT_MARKUP:
        s = s.replace(a, b)
    return s


class Renderer:
    """Converts LaTeX to HTML with MathML, collecting what it could not convert (shown as code, listed
    in `problems`; the tests require an empty list for the registry)."""

    def __init__(self):
        self.problems: list[str] = []
        self._cache: dict[tuple[str, bool], str] = {}

    def math(self, tex: str, display: bool = False, where: str = "") -> str:
        key = (tex, display)
        if key not in self._cache:
            try:
                self._cache[key] = mathml(tex, display)
            except MathError as ex:
                self.problems.append(f"{where}: {ex}")
                self._cache[key] = '<code class="tex">%s</code>' % _esc(tex)
        return self._cache[key]

    def mixed(self, s: str, where: str = "") -> str:
        """A LaTeX string mixing text and $...$ math (claim statements) as HTML."""
        out, pos = [], 0
        for m in _MATH_SPAN.finditer(s):
            out.append(_esc(_text_mode(s[pos:m.start()])))
            out.append(self.math(m.group(1), where=where))
            pos = m.end()
        tail = _text_mode(s[pos:])
        if "$" in tail:
            self.problems.append(f"{where}: unbalanced $ in {s!r}")
        out.append(_esc(tail))
        return "".join(out)

    def text(self, s: str, where: str = "") -> str:
        """Text with LaTeX mathematics inside $...$ (a step's statement, an argument, a form): the text escaped as
        it is, the mathematics as MathML; with unbalanced $ the whole string is text (and a problem)."""
        pieces = RD.split_math(s)
        if RD.unbalanced(s):
            self.problems.append(f"{where}: unbalanced $ in {s!r}")
        return "".join(self.math(t, where=where) if is_math else _esc(t) for is_math, t in pieces)

    def fragment(self, tex: str, where: str = "") -> str:
        """HTML for the LaTeX of the derivations document (`document`): align* and centred displays, \\paragraph,
        itemize lists, \\noindent, text-mode escapes and inline math."""
        token = re.compile(r"\\begin\{align\*\}(.*?)\\end\{align\*\}"
                           r"|\\begin\{center\}\s*\\resizebox\{[^}]*\}\{[^}]*\}\{\$(?:\\displaystyle)?(.*?)\$\}\s*"
                           r"\\end\{center\}"
                           r"|\\paragraph\{((?:[^{}]|\{[^{}]*\})*)\}"
                           r"|\\begin\{itemize\}|\\end\{itemize\}|\\item\b|\\noindent\b", re.S)
        out, pos, open_items = [], 0, []
        for m in token.finditer(tex):
            out.append(self._inline(tex[pos:m.start()], where))
            pos = m.end()
            t = m.group(0)
            if m.group(1) is not None:
                out.append('<div class="display">%s</div>' % self.math(
                    "\\begin{align*}%s\\end{align*}" % m.group(1), display=True, where=where))
            elif m.group(2) is not None:
                out.append('<div class="display">%s</div>' % self.math(m.group(2).strip(), display=True,
                                                                        where=where))
            elif m.group(3) is not None:
                out.append("<h5>%s</h5>" % self._inline(m.group(3), where))
            elif t == "\\begin{itemize}":
                out.append("<ul>")
                open_items.append(False)
            elif t == "\\end{itemize}":
                if open_items and open_items.pop():
                    out.append("</li>")
                out.append("</ul>")
            elif t == "\\item":
                if open_items and open_items[-1]:
                    out.append("</li>")
                out.append("<li>")
                if open_items:
                    open_items[-1] = True
        out.append(self._inline(tex[pos:], where))
        return "".join(x for x in out if x.strip())

    def _inline(self, s: str, where: str) -> str:
        s = s.strip()
        if not s:
            return ""
        return '<p>%s</p>' % self.mixed(s, where) if "\n\n" not in s else "".join(
            '<p>%s</p>' % self.mixed(p, where) for p in s.split("\n\n") if p.strip())


# ---------------------------------------------------------------------------------------------
# The claims and their `uses` edges
# ---------------------------------------------------------------------------------------------

@dataclass
class Item:
    """One registered claim with its record (None when this build did not run it)."""

    id: str
    ref: str
    title: str
    statement: str
    uses: tuple
    section: str
    record: dict | None
    claim: object = None
    page: str = ""

    @property
    def status(self) -> str:
        return self.record.get("status", NOT_RUN) if self.record else NOT_RUN

    def field(self, name: str):
        """A record field, or None when the record does not carry it (or carries it empty)."""
        v = (self.record or {}).get(name)
        return v if v not in (None, "", [], {}) else None


def page_name(cid: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]", "_", cid) + ".html"


def gather(records, claims=None) -> list[Item]:
    """Items in registry order: every registered claim, then records naming no registered claim."""
    if claims is None:
        from local2global.proofs import select
        claims = select()
    recs = RD.by_id(records)
    items = []
    for c in claims:
        items.append(Item(c.id, c.ref, c.title, c.statement, tuple(c.uses), c.section, recs.get(c.id), c))
    known = {c.id for c in claims}
    for cid, d in recs.items():
        if cid not in known:
            items.append(Item(cid, d.get("ref", ""), d.get("title", ""), d.get("statement", ""),
                              tuple(d.get("uses", ())), d.get("section", ""), d))
    pages = [page_name(it.id) for it in items]
    if len(set(pages)) != len(pages):
        raise ValueError("two claim ids map to the same page name")
    for it, p in zip(items, pages):
        it.page = p
    return items


def resolve(use: str, items: list[Item]) -> list[str]:
    """Claims a `uses` entry names (`_registry.resolve_uses`, the one resolver)."""
    return resolve_uses(use, [it.id for it in items])


def edges_of(items: list[Item]) -> tuple[list[tuple[str, str]], dict[str, list[str]]]:
    """`uses` edges (used -> user), registry order, and per claim the `uses` entries naming no claim."""
    edges, seen, unresolved = [], set(), defaultdict(list)
    for it in items:
        for u in it.uses:
            hits = resolve(u, items)
            if not hits:
                unresolved[it.id].append(u)
            for h in hits:
                if h != it.id and (h, it.id) not in seen:
                    seen.add((h, it.id))
                    edges.append((h, it.id))
    return edges, dict(unresolved)


def closure(start: str, adj: dict[str, list[str]]) -> list[str]:
    """Every node reachable from `start` along adj (start excluded), in discovery order."""
    out, seen, todo = [], {start}, [start]
    while todo:
        n = todo.pop(0)
        for m in adj.get(n, ()):
            if m not in seen:
                seen.add(m)
                out.append(m)
                todo.append(m)
    return out


# ---------------------------------------------------------------------------------------------
# Layered graph layout (deterministic) and SVG
# ---------------------------------------------------------------------------------------------

CHAR_W = 7.4        # advance of the 12 px monospace font (DejaVu Sans Mono: 0.602 em = 7.2 px), with margin
NODE_H = 22.0
PAD_X = 8.0
GAP_X = 64.0        # between columns: room for the edges' curves
GAP_Y = 9.0         # between boxes of one column
DUMMY_GAP = 7.0     # between a long edge's lane and its neighbours
MARGIN = 12.0


@dataclass
class Layout:
    """Boxes (x, y of the top-left corner, width, height) and edge polylines of a layered drawing."""

    width: float
    height: float
    boxes: dict = field(default_factory=dict)
    paths: list = field(default_factory=list)        # (src, dst, [(x, y), ...]) from src's right side


def _pava(targets: list[float], weights: list[float]) -> list[float]:
    """Weighted isotonic regression (non-decreasing fit), pool-adjacent-violators."""
    blocks: list[list[float]] = []           # [value, weight, count]
    for t, w in zip(targets, weights):
        blocks.append([t, w, 1])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            v2, w2, c2 = blocks.pop()
            v1, w1, c1 = blocks.pop()
            blocks.append([(v1 * w1 + v2 * w2) / (w1 + w2), w1 + w2, c1 + c2])
    out = []
    for v, _, c in blocks:
        out.extend([v] * c)
    return out


def _place(desired: list[float], seps: list[float], weights: list[float]) -> list[float]:
    """Positions closest (weighted least squares) to `desired`, in order, consecutive ones at least
    seps[i] apart: isotonic regression of desired - cumulative separation."""
    offs, acc = [], 0.0
    for i in range(len(desired)):
        if i:
            acc += seps[i - 1]
        offs.append(acc)
    z = _pava([d - o for d, o in zip(desired, offs)], weights)
    return [a + o for a, o in zip(z, offs)]


def layout(nodes: list[str], edges: list[tuple[str, str]], width_of) -> Layout:
    """Layered layout of a DAG, sources on the left: longest-path layers (sources pulled next to their
    first user), long edges routed through lanes, barycentre ordering (best of several sweeps by crossing
    count), vertical positions by least squares under separation constraints. Deterministic."""
    index = {n: i for i, n in enumerate(nodes)}
    succ: dict = {n: [] for n in nodes}
    pred: dict = {n: [] for n in nodes}
    # drop edges closing a cycle (none expected: `uses` is a DAG), deterministically: DFS in node order
    state: dict = {}
    kept = []
    adj = defaultdict(list)
    for s, d in edges:
        adj[s].append(d)
    topo: list = []

    def dfs(root):
        stack = [(root, iter(adj[root]))]
        state[root] = 1
        while stack:
            n, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                state[n] = 2
                topo.append(n)
                stack.pop()
            elif state.get(nxt) is None:
                state[nxt] = 1
                stack.append((nxt, iter(adj[nxt])))
            elif state[nxt] == 1:
                cyc.add((n, nxt))

    cyc: set = set()
    for n in nodes:
        if n not in state:
            dfs(n)
    topo.reverse()
    for s, d in edges:
        if (s, d) not in cyc and s != d:
            kept.append((s, d))
            succ[s].append(d)
            pred[d].append(s)
    layer: dict = {}
    for n in topo:
        layer[n] = max((layer[p] + 1 for p in pred[n]), default=0)
    for n in reversed(topo):
        if not pred[n] and succ[n]:
            layer[n] = min(layer[s] for s in succ[n]) - 1
    depth = max(layer.values(), default=0) + 1

    # lanes: a chain of dummy vertices for each edge spanning several layers
    up: dict = defaultdict(list)       # vertex -> vertices on the previous layer
    down: dict = defaultdict(list)
    chains = []
    layers: list[list] = [[] for _ in range(depth)]
    for n in nodes:
        layers[layer[n]].append(n)
    for s, d in kept:
        chain = [s] + [("lane", s, d, k) for k in range(layer[s] + 1, layer[d])] + [d]
        for k, v in enumerate(chain[1:-1]):
            layers[layer[s] + 1 + k].append(v)
        for a, b in zip(chain, chain[1:]):
            down[a].append(b)
            up[b].append(a)
        chains.append((s, d, chain))

    def tiebreak(v):
        if isinstance(v, str):
            return (0 if (up[v] or down[v]) else 1, index[v], -1, -1)
        return (0, index[v[1]], index[v[2]], v[3])

    for L in layers:
        L.sort(key=tiebreak)
    pos = {v: i for L in layers for i, v in enumerate(L)}

    def crossings(ls) -> int:
        """Edge crossings between consecutive layers: inversions of the lower ends once the segments are
        sorted by their upper ends (a Fenwick tree, O(E log V))."""
        total = 0
        for k in range(len(ls) - 1):
            p = {v: i for i, v in enumerate(ls[k])}
            q = {v: i for i, v in enumerate(ls[k + 1])}
            segs = sorted((p[a], q[b]) for a in ls[k] for b in down[a] if b in q)
            tree = [0] * (len(ls[k + 1]) + 1)
            for seen, (_, lo) in enumerate(segs):
                i, not_above = lo + 1, 0          # segments so far whose lower end is <= lo
                while i > 0:
                    not_above += tree[i]
                    i -= i & -i
                total += seen - not_above
                i = lo + 1
                while i < len(tree):
                    tree[i] += 1
                    i += i & -i
        return total

    best = [list(L) for L in layers]
    best_c, stale = crossings(best), 0
    for sweep in range(16):
        if best_c == 0 or stale >= 4:          # nothing to gain, or no gain in two down-up rounds
            break
        rng = range(1, depth) if sweep % 2 == 0 else range(depth - 2, -1, -1)
        nb = up if sweep % 2 == 0 else down
        for k in rng:
            def key(v):
                if not up[v] and not down[v]:
                    return (float("inf"), pos[v])      # isolated claims: at the end of their column
                ps = [pos[m] for m in nb[v]]
                return (sum(ps) / len(ps) if ps else pos[v], pos[v])
            layers[k].sort(key=key)
            for i, v in enumerate(layers[k]):
                pos[v] = i
        c = crossings(layers)
        if c < best_c:
            best, best_c, stale = [list(L) for L in layers], c, 0
        else:
            stale += 1
    layers = best

    # columns
    widths = {n: max(CHAR_W * len(width_of(n)) + 2 * PAD_X, 40.0) for n in nodes}
    col_w = [max((widths[v] for v in L if isinstance(v, str)), default=20.0) for L in layers]
    col_x, x = [], MARGIN
    for w in col_w:
        col_x.append(x)
        x += w + GAP_X
    total_w = x - GAP_X + MARGIN

    def h(v):
        return NODE_H if isinstance(v, str) else 0.0

    def sep(a, b):
        g = GAP_Y if isinstance(a, str) and isinstance(b, str) else DUMMY_GAP
        return (h(a) + h(b)) / 2 + g

    y: dict = {}
    for L in layers:
        acc = 0.0
        for i, v in enumerate(L):
            if i:
                acc += sep(L[i - 1], v)
            y[v] = acc
    weight = {v: (1.0 if isinstance(v, str) else 3.0) for L in layers for v in L}
    for it in range(16):
        order = range(depth) if it % 2 == 0 else range(depth - 1, -1, -1)
        for k in order:
            L = layers[k]
            desired = []
            for v in L:
                ns = up[v] + down[v]
                desired.append(sum(y[m] for m in ns) / len(ns) if ns else y[v])
            placed = _place(desired, [sep(a, b) for a, b in zip(L, L[1:])], [weight[v] for v in L])
            for v, yy in zip(L, placed):
                y[v] = yy
    top = min(y[v] - h(v) / 2 for L in layers for v in L) if nodes else 0.0
    for v in y:
        y[v] += MARGIN - top
    total_h = max((y[v] + h(v) / 2 for v in y), default=0.0) + MARGIN

    out = Layout(width=round(total_w, 1), height=round(total_h, 1))
    for k, L in enumerate(layers):
        for v in L:
            if isinstance(v, str):
                out.boxes[v] = (col_x[k], y[v] - NODE_H / 2, widths[v], NODE_H)
    # ports: the edges leaving (entering) a box are spread over its right (left) side in the order of
    # the vertices they come from or go to, so that arrows do not pile up on one point
    port_out, port_in = {}, {}
    for v in nodes:
        for ends, side, ports in ((down[v], "out", port_out), (up[v], "in", port_in)):
            ordered = sorted(range(len(ends)), key=lambda i: (y[ends[i]], i))
            span = NODE_H - 8.0
            for r, i in enumerate(ordered):
                ports[(v, ends[i])] = (r + 1) / (len(ends) + 1) * span - span / 2 if len(ends) > 1 else 0.0
    for s, d, chain in chains:
        pts = []
        ks = layer[s]
        x0, _, w0, _ = out.boxes[s]
        y0 = y[s] + port_out[(s, chain[1])]
        pts.append((x0 + w0, y0))
        pts.append((col_x[ks] + col_w[ks], y0))
        for j, v in enumerate(chain[1:-1]):
            k = ks + 1 + j
            pts.append((col_x[k], y[v]))
            pts.append((col_x[k] + col_w[k], y[v]))
        pts.append((col_x[layer[d]] - 3.0, y[d] + port_in[(d, chain[-2])]))   # short: the arrowhead ends at the box
        out.paths.append((s, d, pts))
    return out


def _f(x: float) -> str:
    s = f"{x:.1f}"
    return "0.0" if s == "-0.0" else s


def _path_d(pts) -> str:
    """SVG path: straight runs through columns, cubic curves with horizontal tangents between them."""
    d = ["M%s %s" % (_f(pts[0][0]), _f(pts[0][1]))]
    for (x0, y0), (x1, y1) in zip(pts, pts[1:]):
        if abs(y1 - y0) < 0.05:
            d.append("L%s %s" % (_f(x1), _f(y1)))
        else:
            mx = (x0 + x1) / 2
            d.append("C%s %s %s %s %s %s" % (_f(mx), _f(y0), _f(mx), _f(y1), _f(x1), _f(y1)))
    return " ".join(d)


def svg_graph(items: list[Item], edges, href, *, focus: str | None = None, label: str = "") -> str:
    """Inline SVG of the claims `items` and the edges among them; each node an <a> to href(item),
    with a <title> tooltip (id, reference, title, status). `focus` is drawn highlighted."""
    ids = [it.id for it in items]
    by_id = {it.id: it for it in items}
    es = [(s, d) for s, d in edges if s in by_id and d in by_id]
    lay = layout(ids, es, lambda n: n)
    out = ['<svg xmlns="http://www.w3.org/2000/svg" class="graph" width="%s" height="%s" viewBox="0 0 %s %s" '
           'role="img" aria-label="%s">' % (_f(lay.width), _f(lay.height), _f(lay.width), _f(lay.height),
                                            _esc(label or "dependency graph of the claims"))]
    out.append('<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
               'markerHeight="7" orient="auto-start-reverse"><path d="M0 0 L10 5 L0 10 z" fill="#666"/>'
               '</marker><marker id="arrow-hot" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
               'markerHeight="7" orient="auto-start-reverse"><path d="M0 0 L10 5 L0 10 z" fill="#222"/>'
               '</marker></defs>')
    out.append('<g class="edges">')
    for s, d, pts in lay.paths:
        hot = focus is not None and focus in (s, d)
        out.append('<path class="edge%s" d="%s" marker-end="url(#%s)" data-from="%s" data-to="%s"><title>%s uses %s'
                   '</title></path>' % (" hot" if hot else "", _path_d(pts), "arrow-hot" if hot else "arrow", _esc(s),
                                        _esc(d), _esc(d), _esc(s)))
    out.append("</g>")
    out.append('<g class="nodes">')
    for cid in ids:
        it = by_id[cid]
        x, y, w, h = lay.boxes[cid]
        st = it.status
        cls = "node" + (" focus" if cid == focus else "") + (" notrun" if st == NOT_RUN else "")
        tip = f"{it.id} \u2014 {it.ref}: {it.title} ({st})"
        out.append('<a href="%s" class="%s" data-claim="%s"><title>%s</title>'
                   '<rect x="%s" y="%s" width="%s" height="%s" rx="4" fill="%s"/>'
                   '<text x="%s" y="%s" fill="%s">%s</text></a>'
                   % (_esc(href(it)), cls, _esc(cid), _esc(tip), _f(x), _f(y), _f(w), _f(h), colour(st),
                      _f(x + w / 2), _f(y + h / 2), ink(st), _esc(cid)))
    out.append("</g></svg>")
    return "".join(out)


# ---------------------------------------------------------------------------------------------
# Figures and notebooks
# ---------------------------------------------------------------------------------------------

_FIG_REF = re.compile(r"\b(?:Figs?\.?|Figures?)\s*(\d+)((?:\s*,?\s*\([a-z]\))*)")
_FIG_FILE = re.compile(r"fig(\d+)([a-z]?)(?:_.*)?")


def figure_refs(ref: str) -> list[tuple[int, str]]:
    """Paper figures (number, panel letters or '') named in a reference: 'Fig. 1 (b), (d)' -> [(1, 'bd')]."""
    return [(int(m.group(1)), "".join(re.findall(r"\(([a-z])\)", m.group(2)))) for m in _FIG_REF.finditer(ref or "")]


def figures_for(ref: str, stems: list[str]) -> list[str]:
    """Figure files (stems under build/figures) showing the paper figures a reference names."""
    out = []
    for num, panels in figure_refs(ref):
        for stem in stems:
            m = _FIG_FILE.fullmatch(stem)
            if m and int(m.group(1)) == num and (not panels or not m.group(2) or m.group(2) in panels):
                if stem not in out:
                    out.append(stem)
    return out


def _notebook_title(path: Path) -> str:
    for line in path.read_text(encoding="utf-8").splitlines():
        m = re.match(r"#\s+#\s+(.*)", line)
        if m:
            return m.group(1).strip()
    return path.stem


def notebook_of(it: Item, items: list[Item]) -> str | None:
    """The notebook stem walking through a claim's topic: by its section; for a section without a
    notebook (e.g. `certified`), that of the claims it uses, else of claims on the same numbered result."""
    if it.section in SECTION_NOTEBOOK:
        return SECTION_NOTEBOOK[it.section]
    from local2global.proofs.outputs.report import numbered_results
    for u in it.uses:
        for h in resolve(u, items):
            other = next(x for x in items if x.id == h)
            if other.section in SECTION_NOTEBOOK:
                return SECTION_NOTEBOOK[other.section]
    mine = set(numbered_results(it.ref)) or {it.ref}
    votes = Counter(SECTION_NOTEBOOK[x.section] for x in items
                    if x is not it and x.section in SECTION_NOTEBOOK
                    and (set(numbered_results(x.ref)) or {x.ref}) & mine)
    return min(votes, key=lambda s: (-votes[s], s)) if votes else None


# ---------------------------------------------------------------------------------------------
# Pages
# ---------------------------------------------------------------------------------------------

CSS = """\
body { font-family: "DejaVu Sans", "Helvetica Neue", Arial, sans-serif; margin: 0; color: #1d1d1d;
       background: #fcfcfa; line-height: 1.45; }
header { background: #24323f; color: #fff; padding: 0.55em 1.2em; }
header a { color: #fff; text-decoration: none; font-weight: bold; }
header .sub { color: #c9d3dc; margin-left: 1em; font-size: 0.9em; }
main { padding: 0.5em 1.5em 3em; max-width: 78em; }
h1 { font-size: 1.55em; margin: 0.6em 0 0.2em; }
h2 { font-size: 1.2em; margin-top: 1.8em; border-bottom: 1px solid #d8d8d0; padding-bottom: 0.15em; }
h3 { font-size: 1.05em; margin: 1.2em 0 0.3em; }
h4 { font-size: 1em; margin: 0.9em 0 0.2em; }
h5 { font-size: 0.95em; margin: 0.7em 0 0.2em; }
a { color: #1a5a96; }
code { font-family: "DejaVu Sans Mono", monospace; font-size: 0.9em; background: #eef0f2; padding: 0 0.2em;
       border-radius: 3px; }
code.tex { color: #a00; }
table { border-collapse: collapse; margin: 0.5em 0; font-size: 0.92em; }
th, td { border: 1px solid #d5d5cd; padding: 0.25em 0.5em; vertical-align: top; text-align: left; }
th { background: #eeeee8; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.badge { display: inline-block; padding: 0.05em 0.55em; border-radius: 0.8em; border: 1px solid #555;
         font-size: 0.85em; white-space: nowrap; }
.swatch { display: inline-block; width: 1.1em; height: 0.9em; border: 1px solid #555; vertical-align: middle;
          border-radius: 2px; }
.dashed { border-style: dashed; }
.summary { font-weight: bold; }
.statement { background: #fff; border-left: 4px solid #24323f; padding: 0.5em 0.9em; margin: 0.6em 0;
             font-size: 1.08em; }
math { font-family: "Latin Modern Math", "DejaVu Math TeX Gyre", "STIX Two Math", math; font-size: 1.1em; }
.statement math { math-style: normal; }
/* MathML Core ignores columnalign: align* rows (lhs right, "= ..." left) are aligned here */
mtd[columnalign="left"] { text-align: left; }
mtd[columnalign="right"] { text-align: right; }
.display { overflow-x: auto; overflow-y: hidden; padding: 0.2em 0; }
.graphbox { overflow: auto; border: 1px solid #d5d5cd; background: #fff; margin: 0.5em 0; max-height: 90vh; }
svg.graph text { font-family: "DejaVu Sans Mono", monospace; font-size: 12px; text-anchor: middle;
                 dominant-baseline: central; }
svg.graph rect { stroke: #333; stroke-width: 0.8; }
svg.graph a.notrun rect { stroke-dasharray: 3 2; }
svg.graph a.focus rect { stroke: #000; stroke-width: 3; }
svg.graph a:hover rect { stroke: #000; stroke-width: 2; }
svg.graph .edge { fill: none; stroke: #8c8c8c; stroke-width: 1.1; opacity: 0.8; }
svg.graph .edge.hot { stroke: #222; stroke-width: 1.6; opacity: 1; }
.verdict { font-weight: bold; }
.verdict.good { color: #1b6e20; }
.verdict.bad { color: #b3261e; }
.note { color: #555; font-size: 0.92em; }
.none { color: #777; font-style: italic; }
dl.fields { display: grid; grid-template-columns: max-content 1fr; gap: 0.3em 1em; }
dl.fields dt { font-weight: bold; }
dl.fields dd { margin: 0; }
dl.fields dd > p:first-child, dl.fields dd > ul:first-child { margin-top: 0; }
figure { display: inline-block; margin: 0.5em 1em 0.5em 0; vertical-align: top; }
figure img { max-width: 30em; border: 1px solid #ccc; background: #fff; }
figcaption { font-size: 0.85em; color: #444; }
section.derivation { border: 1px solid #e0e0d8; background: #fff; padding: 0.3em 1em 0.8em; margin: 0.8em 0; }
ul.links { padding-left: 1.2em; }
.nowrap { white-space: nowrap; }
.statusline { font-size: 0.9em; }
ul.steps { padding-left: 1.1em; }
ul.steps li { margin: 0.35em 0; }
.step .kind { font-family: "DejaVu Sans Mono", monospace; font-size: 0.82em; font-weight: bold; padding: 0 0.35em;
              border-radius: 3px; background: #e4e8ec; }
.step .how { color: #555; font-size: 0.88em; }
.step .found { color: #333; }
.step .argument { margin: 0.25em 0 0.2em 0.8em; border-left: 3px solid #f0c890; padding-left: 0.6em; }
.step .legacy { font-family: "DejaVu Sans Mono", monospace; font-size: 0.85em; }
table.trust td, table.trust th { text-align: center; }
details { margin: 0.3em 0; border: 1px solid #e0e0d8; background: #fff; padding: 0.2em 0.6em; }
details summary { cursor: pointer; }
table.errata td { width: 50%; }
.legendstrip .badge { margin-right: 0.3em; }
"""
# each kind of step tagged in a tint of its rung's colour (`palette`, the one palette of every output)
CSS += "".join(".step.kind-%s .kind { background: %s; }\n" % (k, palette.kind_tint(k)) for k in palette.KIND)


def _page(title: str, body: str, root: str) -> str:
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            "<title>%s</title>\n<link rel=\"stylesheet\" href=\"%sstyle.css\">\n</head>\n<body>\n"
            "<header><a href=\"%sindex.html\">local2global blueprint</a><span class=\"sub\">Makkuva et al., "
            "<i>Local to Global</i> (NeurIPS 2024, arXiv 2406.03072)</span></header>\n<main>\n%s\n</main>\n"
            "</body>\n</html>\n") % (_esc(title), root, root, body)


def badge(status: str) -> str:
    dashed = " dashed" if status in (NOT_RUN, "uncovered") else ""
    return '<span class="badge%s" style="background:%s;color:%s" title="%s">%s</span>' % (
        dashed, colour(status), ink(status), _esc(MEANINGS.get(status, MEANINGS.get(rung(status), ""))),
        _esc(status))


def status_counts(items: list[Item]) -> list[tuple[str, int]]:
    """Claims per status: the registry's statuses in its order (as `l2g check`'s summary line), then any
    other status the records carry, by ladder rank; claims without a record count as 'not run'."""
    from local2global.proofs._registry import STATUSES
    c = Counter(it.status for it in items)
    rows = [(s, c.get(s, 0)) for s in STATUSES]
    rows += [(s, c[s]) for s in sorted(c, key=lambda s: (rank(s), s)) if s not in STATUSES]
    return rows


def _legend_strip() -> str:
    """One line of colour swatches, shown with every graph."""
    return '<p class="legendstrip">%s</p>' % " ".join(badge(s) for s in LADDER + (NOT_RUN,))


def _legend() -> str:
    rows = []
    for s in LADDER + (NOT_RUN,):
        rows.append('<tr><td>%s</td><td>%s</td></tr>' % (badge(s), _esc(MEANINGS[s])))
    return ('<table class="legend"><tr><th>status</th><th>meaning</th></tr>%s</table>'
            '<p class="note">Ladder, strongest first: %s. In the graphs an arrow goes from a claim to a claim that '
            'uses it; '
            'hover a node for its title, click it for its page.</p>'
            % ("".join(rows), " &gt; ".join(LADDER)))


def _claim_link(it: Item, prefix: str) -> str:
    return '<span class="nowrap"><a href="%s%s">%s</a> %s</span>' % (prefix, _esc(it.page), _esc(it.id),
                                                                   badge(it.status))


@dataclass
class Site:
    """The site in memory: relative path -> bytes, and what could not be rendered faithfully."""

    files: dict
    problems: list


def coq_page_name(certificate: str) -> str:
    """The site page of a certificate ("coq/c_lemma5_b_star.v" -> "coq/c_lemma5_b_star.html")."""
    return certificate[:-2] + ".html" if certificate.endswith(".v") else certificate + ".html"


def coq_page(name: str, text: str) -> bytes:
    """A certificate as a page: its Coq text, escaped, each lemma with an anchor of its name."""
    lines = []
    for ln in text.splitlines():
        m = re.match(r"Lemma (\w+) :", ln)
        lines.append(('<span id="%s"></span>' % _esc(m.group(1)) if m else "") + _esc(ln))
    return ('<!DOCTYPE html>\n<html lang="en">\n<head><meta charset="utf-8"><title>%s.v</title>'
            '<link rel="stylesheet" href="../style.css"></head>\n<body><main><p><a href="../index.html">index</a></p>'
            '<h1>%s.v</h1><p class="note">A Coq certificate generated from the SymPy obligations of the steps it names '
            'and compiled by coqc; the statements are what the kernel checked.</p><pre class="coq">%s</pre></main>'
            '</body>\n</html>\n' % (_esc(name), _esc(name), "\n".join(lines))).encode()


def build_site(records, claims=None, *, figures_dir=None, notebooks_dir=None, outputs=(), coq_dir=None) -> Site:
    """Build every page in memory (nothing written).

    `records`: `Record`s or their dicts (as in report.json's "claims"), or {id: record}; `claims`: the
    registry's Claims (default `select()`); `figures_dir`: where `l2g figures` wrote its PNGs (copied);
    `notebooks_dir`: where the executed notebooks are (linked as ../notebooks/<stem>.ipynb); `coq_dir`: where the
    kernel pass wrote its certificates (each becomes a page coq/<name>.html); `outputs`:
    names of other files of the build folder to link from the index (e.g. derivations.pdf).
    """
    from local2global.proofs.outputs import notebooks as nbmod
    from local2global.proofs.outputs.report import NOT_CHECKABLE, coverage, numbered_results

    items = gather(records, claims)
    by_id = {it.id: it for it in items}
    recs = {it.id: it.record for it in items if it.record}
    labels = RD.numbered_steps(recs)
    edges, unresolved = edges_of(items)
    users, used = defaultdict(list), defaultdict(list)
    for s, d in edges:
        users[s].append(d)
        used[d].append(s)
    R = Renderer()
    from local2global.proofs.outputs import workbench
    files: dict[str, bytes] = {"style.css": (CSS + workbench.CSS).encode()}

    figs = {}
    if figures_dir is not None and Path(figures_dir).is_dir():
        for p in sorted(Path(figures_dir).glob("*.png")):
            figs[p.stem] = p
            files["figures/" + p.name] = p.read_bytes()
    stems = sorted(figs)
    if coq_dir is not None and Path(coq_dir).is_dir():
        for p in sorted(Path(coq_dir).glob("*.v")):
            files[f"coq/{p.stem}.html"] = coq_page(p.stem, p.read_text())

    nb_sources = {p.stem: p for p in nbmod.sources()}
    executed = set()
    if notebooks_dir is not None and Path(notebooks_dir).is_dir():
        executed = {p.stem for p in Path(notebooks_dir).glob("*.ipynb")}

    def notebook_html(stem: str | None, prefix: str) -> str:
        if stem is None or stem not in nb_sources:
            return '<p class="none">no walkthrough notebook covers this topic</p>'
        title = R.mixed(_notebook_title(nb_sources[stem]), where=f"notebook {stem}")
        if stem in executed:
            return ('<p><a href="%snotebooks/%s.ipynb">%s.ipynb</a> (executed by <code>l2g all</code>): %s</p>'
                    % (prefix, _esc(stem), _esc(stem), title))
        return ('<p><code>notebooks/%s.py</code>: %s <span class="note">(not executed in this build; '
                '<code>l2g all</code> writes build/notebooks/%s.ipynb)</span></p>' % (_esc(stem), title, _esc(stem)))

    from local2global.proofs.outputs.document.figures import captions as figure_captions
    captions = figure_captions()             # numbered as the paper's, LaTeX text (one table with the PDF)

    def caption(stem: str) -> str:
        if stem in captions:
            return captions[stem]
        m = _FIG_FILE.fullmatch(stem)
        if not m:
            return "%s (no numbered figure of the paper)" % stem
        return "Fig. %s%s" % (m.group(1), " (%s)" % m.group(2) if m.group(2) else "")

    def plain(tex: str) -> str:
        return re.sub(r"\\([A-Za-z]+)|[$\\{}^_]", lambda m: m.group(1) or "", tex)

    def figures_html(stem_list: list[str], prefix: str) -> str:
        return "".join('<figure><a href="%sfigures/%s.png"><img src="%sfigures/%s.png" alt="%s" '
                       'loading="lazy"></a><figcaption>%s</figcaption></figure>'
                       % (prefix, _esc(s), prefix, _esc(s), _esc(plain(caption(s))),
                          R.mixed(caption(s), f"figure {s}")) for s in stem_list)

    # derivations-document sections backing each claim
    sec_html, sec_of = _derivation_sections(items, R)

    # ---- claim pages
    for it in items:
        where = f"claim {it.id}"
        parts = ['<p class="note"><a href="../index.html">index</a> \u203a claim <code>%s</code></p>' % _esc(it.id),
                 "<h1>%s: %s</h1>" % (_esc(it.ref or it.id), _esc(it.title))]
        parts.append('<p>%s <code>%s</code> &mdash; %s</p>' % (
            badge(it.status), _esc(it.id), _esc(MEANINGS.get(it.status, MEANINGS.get(rung(it.status),
                                                                               "status not on the ladder")))))
        if it.record:
            parts.append('<p class="statusline">Status line: <b data-claim="%s">%s</b></p>'
                         % (_esc(it.id), _esc(RD.claim_line(it.record))))
        facts = []
        own = it.field("own_status")
        if own is not None:
            facts.append(("own status", "%s <span class=\"note\">(this claim's check alone, before the claims it "
                                        "uses are taken into account)</span>" % badge(str(own))))
        weak = it.field("weakest")
        if weak is not None:
            w = by_id.get(str(weak))
            facts.append(("weakest link", (_claim_link(w, "") if w else "<code>%s</code>" % _esc(weak))
                          + ' <span class="note">(the weakest claim in its uses-closure)</span>'))
        if facts:
            parts.append('<dl class="fields">%s</dl>' % "".join("<dt>%s</dt><dd>%s</dd>" % f for f in facts))
        parts.append("<h2>Statement</h2>")
        parts.append('<div class="statement">%s</div>' % (R.mixed(it.statement, where) if it.statement
                                                          else '<span class="none">no statement recorded</span>'))
        note = it.field("erratum") or (getattr(it.claim, "erratum", "") if it.claim is not None else "")
        if it.status == "erratum" or note:
            parts.append('<h2 id="erratum">Erratum</h2>')
            parts.append(_erratum_html(it, note, R))
        parts.append("<h2>Proof steps</h2>")
        if it.record:
            parts.append(_record_html(it, R, labels))
        else:
            parts.append('<p class="none">%s</p>' % _esc(MEANINGS[NOT_RUN]))
        rows = []
        for name, label in (("stated_domain", "stated domain"), ("checked_domain", "checked domain")):
            v = it.field(name)
            if v is not None:
                rows.append((label, "<p>%s</p>" % R.text(str(v), where)))
        if rows:
            parts.append('<dl class="fields">%s</dl>' % "".join("<dt>%s</dt><dd>%s</dd>" % r for r in rows))
        if it.record:
            parts.append("<h2>Trust base</h2>")
            trust = it.record.get("trust") or RD.trust_of(recs, [it.id])
            parts.append(trust_html(trust, RD.claim_line(it.record), by_id, "", R, labels, recs))
        parts.append("<h2>Dependencies</h2>")
        ups = [by_id[x] for x in used[it.id]]
        downs = [by_id[x] for x in users[it.id]]
        parts.append("<h3>Uses</h3>" + ('<ul class="links">%s</ul>' % "".join(
            "<li>%s &mdash; %s</li>" % (_claim_link(x, ""), _esc(x.title)) for x in ups) if ups
            else '<p class="none">nothing (a starting point)</p>'))
        if it.id in unresolved:
            parts.append('<p class="note"><code>uses</code> entries naming no registered claim: %s</p>'
                         % ", ".join("<code>%s</code>" % _esc(u) for u in unresolved[it.id]))
        parts.append("<h3>Used by</h3>" + ('<ul class="links">%s</ul>' % "".join(
            "<li>%s &mdash; %s</li>" % (_claim_link(x, ""), _esc(x.title)) for x in downs) if downs
            else '<p class="none">no registered claim uses it</p>'))
        anc = closure(it.id, used)
        desc = closure(it.id, users)
        focus = set(anc) | set(desc) | {it.id}
        sub = [x for x in items if x.id in focus]
        parts.append("<h3>Focus: its ancestors and descendants</h3>")
        parts.append('<p class="note">%d claim(s) it rests on, %d that rest on it; the thick box is this claim '
                     '(<a href="%s">to a chosen depth in the index</a>).</p>'
                     % (len(anc), len(desc), workbench.focus_link(it.id, "../")))
        parts.append(_legend_strip())
        parts.append('<div class="graphbox">%s</div>' % svg_graph(
            sub, edges, lambda x: x.page, focus=it.id, label=f"ancestors and descendants of {it.id}"))
        parts.append("<h2>Figures</h2>")
        shown = figures_for(it.ref, stems)
        named = figure_refs(it.ref)
        if shown:
            parts.append(figures_html(shown, "../"))
        elif named:
            parts.append('<p class="none">the paper figure(s) it refers to were not rendered in this build '
                         '(<code>l2g figures</code>)</p>')
        else:
            parts.append('<p class="none">its reference names no figure of the paper</p>')
        parts.append("<h2>Walkthrough notebook</h2>")
        parts.append(notebook_html(notebook_of(it, items), "../../"))
        parts.append("<h2>Derived expressions</h2>")
        secs = sec_of.get(it.id, [])
        if secs:
            parts.append('<p class="note">From the derivations document (<code>l2g derive</code>): the section(s) '
                         'whose paper labels this claim shares; every formula is a derived SymPy expression.</p>')
            parts.extend(sec_html[s] for s in secs)
        else:
            parts.append('<p class="none">no section of the derivations document backs this claim</p>')
        files["claims/" + it.page] = _page(f"{it.ref}: {it.title}", "\n".join(parts), "../").encode()

    # ---- the basin explorer (its own module; one page, no record needed)
    from local2global.proofs.outputs import explorer
    files.update(explorer.files())

    # ---- index
    files["index.html"] = _index_html(items, edges, unresolved, R, stems, nb_sources, notebook_html,
                                      figures_html, outputs, coverage, NOT_CHECKABLE, numbered_results).encode()
    return Site(files=files, problems=R.problems)


def _erratum_html(it: Item, note: str, R: Renderer) -> str:
    """An erratum: the note, then the form printed in the paper beside the corrected form (as the check compares
    them, through the LaTeX printer of forms), each above the steps of its check (the printed form's fail, the
    corrected form's pass)."""
    from local2global.proofs.outputs.document import forms

    where = f"erratum {it.id}"
    out = []
    if note:
        out.append("<p>%s</p>" % _esc(note))
    shown = forms.claim_forms(it.claim) if it.claim is not None else []
    rec = it.record or {}
    steps_of = {"As printed in the paper": rec.get("printed_steps", []),
                "Corrected": rec.get("steps", []) if rec.get("printed_steps") else []}
    if shown:
        heads, cells = [], []
        for heading, rows, why in shown:
            verdict = {"As printed in the paper": "fails", "Corrected": "passes"}.get(heading, "") if rec else ""
            heads.append("<th>%s%s</th>" % (_esc(heading), (' <span class="verdict %s">%s</span>' % (
                "bad" if verdict == "fails" else "good", verdict)) if verdict else ""))
            body = (_form_html(rows, R, where) if rows is not None else '<p class="none">%s</p>' % _esc(why))
            if steps_of.get(heading):
                body += "<h4>Steps of its check</h4>" + _steps_html(steps_of[heading], R, where)
            cells.append("<td>%s</td>" % body)
        out.append('<table class="errata"><tr>%s</tr><tr>%s</tr></table>' % ("".join(heads), "".join(cells)))
    return "".join(out)


def _form_html(rows, R: Renderer, where: str) -> str:
    """A form's rows (`document.forms.form_rows`: text with $...$ mathematics) as a definition list."""
    if len(rows) == 1 and not rows[0][0]:
        return "<p>%s</p>" % R.text(rows[0][1], where)
    return '<dl class="fields">%s</dl>' % "".join("<dt>%s</dt><dd>%s</dd>" % (R.text(k, where), R.text(v, where))
                                                  for k, v in rows)


# ---------------------------------------------------------------------------------------------
# Records: steps, controls and trust bases (the one HTML printer of records)
# ---------------------------------------------------------------------------------------------

def step_html(s: dict, R: Renderer, where: str, label: str = "", brief: bool = False) -> str:
    """One step (a dict of `Step.as_dict`) as a list item: its kind, what it states (mathematics as MathML), what
    it found, how and where; an argued step's whole argument, a cited step's reference. A legacy step (made from
    an unstructured record) is its text, escaped, in a span of class `legacy`."""
    cls = "step kind-%s%s%s" % (s["kind"], " legacy" if s.get("legacy") else "", "" if s.get("ok", True) else " fails")
    states = ('<span class="legacy">%s</span> <span class="note">(recorded as one line of text)</span>'
              % _esc(s["states"])) if s.get("legacy") else R.text(s["states"], where)
    out = ['<li class="%s"><span class="kind">%s%s</span> %s' % (cls, _esc(s["kind"]), (" " + _esc(label)) if label
                                                              else "", states)]
    vals = "; ".join(R.text(f"{k} = {v}" if k else v, where) for k, v in s.get("values", ()))
    if vals:
        out.append(' <span class="found">(found: %s)</span>' % vals)
    if s["kind"] == "cited":
        out.append(' <span class="reference">[%s]</span>' % _esc(s.get("reference", "")))
    if not s.get("ok", True):
        out.append(' <span class="verdict bad">fails</span>')
    how = RD.how(s)
    if how:
        out.append('<div class="how">%s</div>' % R.text(how, where))
    if s["kind"] == "kernel" and s.get("certificate"):
        page = coq_page_name(s["certificate"])
        out.append('<div class="how"><a href="../%s">the Coq certificate</a> (compiled by coqc)</div>' % _esc(page))
    if s.get("argument") and brief:
        out.append(' <span class="note">(argued as in the proof)</span>')
    elif s.get("argument"):
        out.append('<div class="argument"><b>Argument.</b> %s</div>' % R.text(s["argument"], where))
    return "".join(out) + "</li>"


def _steps_html(steps, R: Renderer, where: str, labels: dict | None = None, brief: bool = False) -> str:
    labels = labels or {}
    return '<ul class="steps">%s</ul>' % "".join(step_html(s, R, where, labels.get(i, ""), brief)
                                                 for i, s in enumerate(steps))


def _record_html(it: Item, R: Renderer, labels: dict) -> str:
    """A claim's proof: its steps grouped by kind, the corroborations, the negative control."""
    rec, where = it.record, f"claim {it.id}"
    out = []
    if rec.get("status") == "open":
        # the reason is one line of text, as recorded (shown as a legacy step's text is)
        out.append('<p><b>Why open.</b> <span class="legacy">%s</span></p>' % _esc(rec.get("evidence", "")))
    steps = rec.get("steps", [])
    index = {id(s): i for i, s in enumerate(steps)}
    if rec.get("printed_steps"):
        out.append('<p class="note">The steps of the corrected form (the printed form\'s failing steps are shown '
                   'beside them under <a href="#erratum">Erratum</a>).</p>')
    for kind, group in RD.by_kind(steps):
        out.append("<h3>%s: %d</h3>" % (_esc(RD.KIND_HEADINGS[kind]), len(group)))
        out.append('<ul class="steps">%s</ul>' % "".join(
            step_html(s, R, where, labels.get((it.id, index[id(s)]), "")) for s in group))
    if rec.get("corroborations"):
        out.append("<h3>Corroboration (must hold; does not set the status)</h3>")
        out.append(_steps_html(rec["corroborations"], R, where))
    if rec.get("control_steps") or rec.get("control"):
        ok = rec.get("control_rejected", str(rec.get("control", "")).startswith("rejected"))
        out.append('<h3>Negative control <span class="verdict %s">%s</span></h3>'
                   % ("good" if ok else "bad", "rejected" if ok else "NOT rejected"))
        out.append('<p class="note">An altered statement, which the same check must reject.</p>')
        out.append(_steps_html(rec.get("control_steps", []), R, where, brief=True))
    return "".join(out)


def trust_html(trust: dict, line: str, by_id: dict, prefix: str, R: Renderer, labels: dict, recs: dict) -> str:
    """A trust base (`records.trust_of`): the status line, the steps per kind over the claims it rests on (linked),
    the software trusted with versions, every argued step in full and every cited step with its reference."""
    if not trust:
        return '<p class="none">no record</p>'
    counts = trust.get("counts", {})
    out = ['<p>Status line: <b>%s</b>. What it rests on, like a proof assistant\'s list of axioms: every claim of '
           'its uses-closure, their steps by kind, the software trusted, and every step no machine checked.</p>'
           % _esc(line)]
    out.append('<table class="trust"><tr>%s</tr><tr>%s</tr></table>' % (
        "".join("<th>%s</th>" % _esc(RD.KIND_WORDS[k]) for k in RD.KINDS),
        "".join('<td class="num" data-kind="%s">%d</td>' % (k, counts.get(k, 0)) for k in RD.KINDS)))
    claims = trust.get("claims", [])
    out.append("<p><b>Rests on %d claim%s:</b> %s</p>" % (len(claims), "" if len(claims) == 1 else "s", ", ".join(
        '<a href="%s%s">%s</a>' % (prefix, _esc(by_id[c].page), _esc(c)) if c in by_id else "<code>%s</code>" % _esc(c)
        for c in claims)))
    out.append("<p><b>Software trusted:</b> %s</p>" % _esc(RD.software_text(trust.get("software", []))))
    for key, word in (("argued", "Argued steps"), ("cited", "Cited steps")):
        entries = trust.get(key, [])
        out.append("<p><b>%s:</b> %s</p>" % (word, len(entries) or "none"))
        if entries:
            out.append('<ul class="steps">%s</ul>' % "".join(
                step_html(e, R, f"trust base: {e['claim']}", RD.step_label(labels, recs, e)).replace(
                    "</li>", ' <span class="note">(<a href="%s%s">%s</a>)</span></li>' % (
                        prefix, _esc(by_id[e["claim"]].page) if e["claim"] in by_id else "", _esc(e["claim"])))
                for e in entries))
    return "".join(out)


def _derivation_sections(items: list[Item], R: Renderer) -> tuple[dict, dict]:
    """HTML of every derivations-document unit (one paper result) and, per claim id, the units backing it."""
    from local2global.proofs.outputs import document as D

    claims = [it.claim for it in items if it.claim is not None]
    html_of, sec_of = {}, defaultdict(list)
    for sec in D.sections():
        backing = D.claims_for(sec, claims)
        if not backing:
            continue
        where, ref = f"section {sec.id}", ""
        try:
            block = sec.build()
        except Exception as ex:             # noqa: BLE001 - shown on the page, and listed as a problem
            R.problems.append(f"{where}: build failed: {type(ex).__name__}: {ex}")
            body = '<p class="none">this section could not be built (%s)</p>' % _esc(type(ex).__name__)
        else:
            body, ref = _block_html(block, R, where), block.ref
        html_of[sec.id] = ('<section class="derivation" id="sec-%s"><h3>%s <span class="note">(%s; section '
                           '<code>%s</code>)</span></h3>%s</section>'
                           % (_esc(sec.id), R.mixed(sec.heading, where), _esc(ref), _esc(sec.id), body))
        for c in backing:
            sec_of[c.id].append(sec.id)
    return html_of, dict(sec_of)


def _block_html(block, R: Renderer, where: str) -> str:
    """A unit's Block (LaTeX text with $...$ mathematics and displays) as HTML."""
    out = []
    if getattr(block, "statement", ""):
        out.append('<div class="statement">%s</div>' % R.fragment(block.statement, where))
    if block.assumptions:
        out.append("<p><b>Assumptions.</b> %s.</p>" % R.mixed("; ".join(block.assumptions), where))
    if block.derivation:
        out.append("<p><b>Derivation.</b></p>" + R.fragment(block.derivation, where))
    if block.entries:
        out.append("<h4>Derived expressions</h4>")
        for e in block.entries:
            if e.note:
                out.append('<p class="note">%s</p>' % R.mixed(e.note, where))
            out.append(R.fragment(replace(e, note="").render(), where))
    if block.extra:
        out.append(R.fragment(block.extra, where))
    return "".join(out)


def _index_html(items, edges, unresolved, R, stems, nb_sources, notebook_html, figures_html, outputs,
                coverage, NOT_CHECKABLE, numbered_results) -> str:
    by_id = {it.id: it for it in items}
    counts = status_counts(items)
    total = len(items)
    parts = ["<h1>Blueprint: every claim of <i>Local to Global</i>, checked</h1>",
             '<p>The proof registry of <code>local2global</code> (<code>l2g check</code>): each claim of the paper '
             'with its machine check and a negative control (an altered statement the same check must '
             'reject). Every page opens offline; the mathematics is MathML generated at build time.</p>']
    parts.append('<p class="summary" id="summary">%d claims: %s</p>' % (
        total, ", ".join("%d %s" % (n, _esc(s)) for s, n in counts)))
    parts.append('<table class="counts" id="counts"><tr><th>status</th><th>claims</th></tr>%s'
                 '<tr><th>total</th><td class="num">%d</td></tr></table>'
                 % ("".join('<tr data-status="%s"><td>%s</td><td class="num">%d</td></tr>' % (_esc(s), badge(s), n)
                            for s, n in counts), total))
    parts.append('<p id="explorer-link">The <a href="explorer.html">basin explorer</a>: pick (p, q), click a start '
                 'and watch where gradient flow goes, with the basins of Thms 2/8 and A/B underneath (computed in '
                 'the browser from code generated from the derivations).</p>')
    if outputs:
        parts.append('<p>Other outputs of this build: %s.</p>' % ", ".join(
            '<a href="../%s">%s</a>' % (_esc(o), _esc(o)) for o in outputs))
    from local2global.proofs.outputs import workbench
    parts.append('<h2 id="progress-by-section">Progress by section</h2>')
    parts.append(workbench.progress_html(items, [s for s, _ in counts], badge))
    parts.append('<h2 id="graph">Dependency graph</h2>')
    parts.append(workbench.controls_html(items, [s for s, n in counts if n]))
    n_unres = sum(len(v) for v in unresolved.values())
    parts.append('<p class="note">%d claims, %d <code>uses</code> edges (arrow: used &rarr; user)%s.</p>' % (
        len(items), len(edges), "" if not n_unres else "; %d <code>uses</code> entries name no registered claim "
        "(listed on the claims' pages)" % n_unres))
    parts.append(_legend_strip())
    parts.append('<div class="graphbox">%s</div>' % svg_graph(items, edges, lambda x: "claims/" + x.page))
    parts.append('<h2 id="legend">Colour legend</h2>' + _legend())

    # coverage of the numbered results
    recs = {it.id: it.record for it in items if it.record}
    labels = RD.numbered_steps(recs)
    parts.append('<h2 id="coverage">Coverage of the paper\'s numbered results</h2>')
    parts.append('<p class="note">A result is as strong as its weakest claim (a confrontation with the torch '
                 'transformer must pass but does not weaken it); its status line names the argued and cited steps '
                 'of its trust base (<a href="#trust">below</a>).</p>')
    rows, trusts = [], []
    for row in coverage(list(recs.values())):
        covering = [by_id[c] for c in row["claims"] if c in by_id]
        status = row["status"]
        claims_cell = "<br>".join(_claim_link(x, "claims/") + (' <span class="note">(confrontation)</span>'
                                  if x.id in row["confrontations"] else "") for x in covering) or "&ndash;"
        note = row["note"]
        if row["result"].startswith("Figure"):
            figs = figures_for(row["result"], stems)
            if figs:
                note = (note + "; " if note else "") + "rendered: " + ", ".join(figs)
                claims_cell += "".join(' <a href="figures/%s.png">[%s]</a>' % (_esc(f), _esc(f)) for f in figs)
        anchor = row["result"].replace(" ", "-")
        line = ('<br><span class="statusline" data-result="%s">%s</span>' % (_esc(row["result"]), _esc(row["status_line"]))
                if covering and row["status_line"] != status else "")
        rows.append('<tr id="cov-%s"><td>%s</td><td>%s</td><td>%s</td><td>%s%s</td><td>%s</td><td>%s</td></tr>' % (
            _esc(anchor), _esc(row["result"]), _esc(row["title"]), _esc(row["where"]),
            badge(status), line, claims_cell,
            # an open claim's reason is one line of text as recorded (shown as a legacy step's text is)
            ('<span class="legacy">%s</span>' % _esc(note)) if " open: " in note else _esc(note)))
        if row["trust"]:
            trusts.append('<details id="trust-%s"><summary>%s: %s &mdash; %s</summary>%s</details>' % (
                _esc(anchor), _esc(row["result"]), _esc(row["title"]), _esc(row["status_line"]),
                trust_html(row["trust"], row["status_line"], by_id, "claims/", R, labels, recs)))
    parts.append('<table class="coverage"><tr><th>result</th><th>title</th><th>where</th><th>status (weakest)</th>'
                 '<th>claims</th><th>note</th></tr>%s</table>' % "".join(rows))
    parts.append('<h2 id="trust">Trust base of the numbered results</h2>')
    parts.append('<p class="note">Open a result for what it rests on: the claims of its uses-closure, their steps by '
                 'kind, the software trusted with versions, and every argued and cited step.</p>')
    parts.append("".join(trusts))
    others = [it for it in items if not numbered_results(it.ref)]
    if others:
        parts.append('<p class="note">Claims about unnumbered statements (equations, sections, our own results): %s.</p>'
                     % ", ".join('<a href="claims/%s">%s</a>' % (_esc(x.page), _esc(x.id)) for x in others))

    # errata
    parts.append('<h2 id="errata">Errata</h2>')
    errata = [it for it in items if it.status == "erratum" or it.field("erratum")
              or (it.record is None and getattr(it.claim, "erratum", ""))]
    if errata:
        for it in errata:
            note = it.field("erratum") or getattr(it.claim, "erratum", "")
            parts.append('<h3><a href="claims/%s">%s: %s</a> %s</h3>' % (_esc(it.page), _esc(it.ref), _esc(it.title),
                                                                        badge(it.status)))
            if it.statement:
                parts.append('<div class="statement">%s</div>' % R.mixed(it.statement, f"claim {it.id}"))
            parts.append(_erratum_html(it, note, R))
    else:
        parts.append('<p class="none">No erratum among the registered claims.</p>')

    # all claims
    parts.append('<h2 id="claims">All claims</h2>')
    parts.append('<table class="claims"><tr><th>claim</th><th>reference</th><th>title</th><th>status</th>'
                 '<th>status line</th></tr>%s</table>'
                 % "".join('<tr%s><td><a href="claims/%s">%s</a></td><td>%s</td><td>%s</td><td>%s</td>'
                           '<td class="statusline" data-claim="%s">%s</td></tr>'
                           % (workbench.row_attributes(it), _esc(it.page), _esc(it.id), _esc(it.ref), _esc(it.title),
                              badge(it.status), _esc(it.id), _esc(RD.claim_line(it.record) if it.record else NOT_RUN))
                           for it in items))

    parts.append('<h2 id="figures">Figures</h2>')
    if stems:
        parts.append(figures_html(stems, ""))
    else:
        parts.append('<p class="none">No figures in this build (<code>l2g figures</code> or <code>l2g all</code> '
                     'renders them).</p>')
    parts.append('<h2 id="notebooks">Walkthrough notebooks</h2>')
    parts.append("".join(notebook_html(stem, "../") for stem in sorted(nb_sources)))
    parts.append(workbench.script_html())
    return _page("local2global blueprint", "\n".join(parts), "")


# ---------------------------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------------------------

#: files of the build folder linked from the index when present
OTHER_OUTPUTS = ("derivations.pdf", "derivations.tex", "report.md", "report.json")


def write_site(records, out_dir, claims=None) -> list[Path]:
    """Build the site from `records` and write it to `<out_dir>/site/` (replacing a previous site whole:
    pages are built in memory, written to a temporary folder, then swapped in). Figures are taken from
    `<out_dir>/figures`, executed notebooks linked from `<out_dir>/notebooks`. Returns the written paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    site = build_site(records, claims, figures_dir=out / "figures", notebooks_dir=out / "notebooks",
                      outputs=[o for o in OTHER_OUTPUTS if (out / o).is_file()], coq_dir=out / "coq")
    target = out / SITE_DIR
    from local2global.numeric.infra import atomic
    from local2global.numeric.infra.interrupt import deferred
    tmp = atomic.temp_folder(".site-", dir=out)         # an interruption removes it
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o777 & ~umask)
        for rel, data in sorted(site.files.items()):
            p = tmp / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(data)
        with deferred():                                # an interruption waits: the old site or the new one
            old = None
            if target.exists():
                old = Path(tempfile.mkdtemp(dir=out, prefix=".site-old-"))
                os.replace(target, old / SITE_DIR)
            os.replace(tmp, target)
            atomic.release(tmp)
            if old is not None:
                shutil.rmtree(old)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        atomic.release(tmp)
        raise
    return [target / rel for rel in sorted(site.files)]


def main(argv=None) -> int:
    """`python -m local2global.proofs.outputs.site [--records FILE] [--out DIR]`: (re)build the site of a
    build folder from its report.json (default: DIR/report.json, DIR = build)."""
    import argparse

    ap = argparse.ArgumentParser(prog="python -m local2global.proofs.outputs.site", description=main.__doc__)
    ap.add_argument("--out", default="build", help="build folder (the site goes to OUT/site)")
    ap.add_argument("--records", default=None, help="report.json or checks.json (default OUT/report.json)")
    args = ap.parse_args(argv)
    path = Path(args.records) if args.records else Path(args.out) / "report.json"
    try:
        records = RD.load_records(path)
    except RD.RecordsError as ex:
        print(f"error: {ex}", file=sys.stderr)
        return 2
    paths = write_site(records, args.out)
    print(f"wrote {len(paths)} files to {Path(args.out) / SITE_DIR} (open index.html)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
