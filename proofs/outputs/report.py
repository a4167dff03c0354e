"""The proof-check report (`l2g check`, `l2g all`): the project's blueprint of the paper.

`write_report(records, out_dir)` writes

- ``report.md``: a table of every registered claim (status, method, evidence, negative control, uses), then a
  coverage table listing *every* numbered result of the paper (Lemmas 1-16, Theorems 1-11, Remarks 1-5,
  Figures 1-6) with the claims that cover it, or, where none does, why it is not machine-checkable or that it
  is not covered yet;
- ``report.json``: the same content as data (sorted keys, registry order, no timings);
- ``dependencies.png`` / ``dependencies.pdf``: the dependency graph of the numbered results, built from the
  claims' ``uses`` (like a Lean blueprint), nodes coloured by status.

All outputs are deterministic: two runs on the same records are byte-identical.
"""
from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from pathlib import Path

from local2global.numeric.infra.atomic import atomic_write
from local2global.proofs._registry import COVERED, STATUSES

#: Every numbered result of the paper (arXiv 2406.03072, NeurIPS 2024 version), in order, with its title
#: and where it appears. Titles are the paper's; figures are described by what they show.
NUMBERED_RESULTS: tuple[tuple[str, str, str], ...] = (
    ("Lemma 1", "Constant energy along the flow (R^2)", "Sec. 4"),
    ("Lemma 2", "Loss as a logistic function (with bias)", "App. D"),
    ("Lemma 3", "Gradient computation (with bias)", "App. D"),
    ("Lemma 4", "Hessian at local minima and saddle points", "App. D"),
    ("Lemma 5", "Optimal bias", "App. E"),
    ("Lemma 6", "Loss as a logistic function (reduced loss)", "App. E"),
    ("Lemma 7", "Gradient computation (reduced loss)", "App. E"),
    ("Lemma 8", "Hessian computation (Schur complement)", "App. E"),
    ("Lemma 9", "Constant energy along the flow", "App. F"),
    ("Lemma 10", "GF convergence", "App. F"),
    ("Lemma 11", "Energy at the limit point", "App. F"),
    ("Lemma 12", "Analysis of the energy function", "App. F"),
    ("Lemma 13", "Gradient computation and optimal bias (attention)", "App. G"),
    ("Lemma 14", "Constant energy along the flow (attention)", "App. G"),
    ("Lemma 15", "GF convergence (attention)", "App. G"),
    ("Lemma 16", "Energy at the limit point (attention)", "App. G"),
    ("Theorem 1", "All critical points in R^2", "Sec. 3"),
    ("Theorem 2", "GF dynamics for p + q > 1", "Sec. 4"),
    ("Theorem 3", "GF dynamics with attention", "Sec. 4.1"),
    ("Theorem 4", "Global minimum of the full transformer", "App. A"),
    ("Theorem 5", "Bad local minimum of the full transformer", "App. A"),
    ("Theorem 6", "All critical points with bias (R^3)", "App. D"),
    ("Theorem 7", "Loss landscape with bias", "App. D"),
    ("Theorem 8", "GF dynamics for p + q < 1", "App. F"),
    ("Theorem 9", "All critical points for linear attention in R^4", "App. G"),
    ("Theorem 10", "All critical points in R^3 (attention)", "App. G"),
    ("Theorem 11", "[Informal] Role of standard initialization for p + q > 1", "App. G"),
    ("Remark 1", "All local minima with bias are bad / global", "App. D"),
    ("Remark 2", "Gradients share one expectation term", "App. D"),
    ("Remark 3", "Hessian parameter ordering (b, e, w)", "App. D"),
    ("Remark 4", "Gradients for e and w proportional (basis of the energy)", "App. E"),
    ("Remark 5", "Class of the stationary set Theta_station left open", "App. G"),
    ("Figure 1", "Gradient-flow dynamics and basins in R^2 (p = q = 0.9, p = q = 0.1)", "Sec. 1"),
    ("Figure 2", "Gradient flow with the attention scalar in R^3", "Sec. 4.1"),
    ("Figure 3", "Rank-one structure emerges from Gaussian initialization", "Sec. 5"),
    ("Figure 4", "Loss curves: standard vs. the paper's initialization (p = 0.5, q = 0.8)", "Sec. 5"),
    ("Figure 5", "Gradient flow in R^3 near the origin", "App. G"),
    ("Figure 6", "Rank-one initialization stays rank one", "App. H"),
)

#: Why a numbered result has no claim of its own, where that is a property of the result (not of our progress).
NOT_CHECKABLE: dict[str, str] = {}       # every numbered result has claims now (Remark 3, Lemmas 10, 15, Thm 11 too)

_KIND = {"lemma": "Lemma", "lem": "Lemma", "lemmas": "Lemma", "theorem": "Theorem", "theorems": "Theorem",
         "thm": "Theorem", "thms": "Theorem", "remark": "Remark", "remarks": "Remark", "rem": "Remark",
         "figure": "Figure", "figures": "Figure", "fig": "Figure", "figs": "Figure",
         "eq": "Eq.", "eqs": "Eq.", "equation": "Eq.", "equations": "Eq.",
         "sec": "Sec.", "secs": "Sec.", "section": "Sec.", "sections": "Sec.", "\u00a7": "Sec.",
         "app": "App.", "appendix": "App.", "appendices": "App."}
#: one mention of results in a reference: a kind word ("Lemma", "Lem.", "Thms", "Eq.", "Sec.", "App."), its
#: numbers ("12", "9-12", "2 and 8", "1/9"; sections "5.1"; appendices a letter) and, after the last
#: number, its sub-items ("(ii)", "(b), (d)"). No word boundary is needed before the number ("lemma12").
_ITEM = r"\((?:[ivx]{1,4}|[a-h])\)"
_REF_RE = re.compile(
    r"(?<![A-Za-z])(lemmas?|lem|theorems?|thms?|remarks?|rem|figures?|figs?|equations?|eqs?|sections?|secs?|\u00a7|"
    r"appendix|appendices|app)(?![A-Za-z])\.?\s*"
    r"(?:(?P<nums>\d+(?:\.\d+)*(?:\s*(?:[-\u2013/,&]|and)\s*\d+(?:\.\d+)*)*)|(?P<letter>[A-H])(?![A-Za-z]))"
    r"(?P<items>(?:\s*,?\s*" + _ITEM + r")*)", re.IGNORECASE)


def kind_words() -> dict[str, str]:
    """The kind words the reference parser reads ("lem", "thms", "fig", ...) and the label kind of each ("Lemma",
    "Theorem", "Figure", ...): the site's search reads a typed label with the same table."""
    return dict(_KIND)


def ref_mentions(ref: str) -> list[tuple[str, tuple[str, ...]]]:
    """Every result a claim reference names, as (label, sub-items): "Thm 2 (ii) / Thm 8 (ii)" gives
    [("Theorem 2", ("ii",)), ("Theorem 8", ("ii",))], "Lemmas 9-12" the four lemmas, "Eq. 39-40" two
    equations, "Sec. 3 / App. E" ("Sec. 3", ()) and ("App. E", ()). Labels are "Lemma N", "Theorem N",
    "Remark N", "Figure N", "Eq. N", "Sec. N[.M]", "App. X". The one parser behind the report's coverage
    (`numbered_results`) and `l2g check --only` / `l2g figures --only` (`proofs.selection`)."""
    found: dict[str, set[str]] = {}
    for m in _REF_RE.finditer(ref or ""):
        kind = _KIND[m.group(1).lower()]
        items = tuple(i.lower() for i in re.findall(r"\(([^)]*)\)", m.group("items") or ""))
        if m.group("letter"):
            names = [f"{kind} {m.group('letter').upper()}"]
        else:
            names = []
            for lo, hi in re.findall(r"(\d+(?:\.\d+)*)(?:\s*[-\u2013]\s*(\d+))?", m.group("nums")):
                if hi and lo.isdigit() and int(hi) - int(lo) <= 50:
                    names += [f"{kind} {n}" for n in range(int(lo), int(hi) + 1)]
                else:
                    names.append(f"{kind} {lo}")
        for j, name in enumerate(names):
            found.setdefault(name, set())
            if j == len(names) - 1:                 # "(ii)" belongs to the number right before it
                found[name].update(items)
    return [(name, tuple(sorted(items))) for name, items in found.items()]


_ORDER = {name: i for i, (name, _, _) in enumerate(NUMBERED_RESULTS)}
_STATUS_RANK = {"failed": 0, "open": 1, "erratum": 2, "experiment": 3, "sampled": 4, "certified": 5, "proved": 6}
_COLOURS = {"proved": "#00441b", "certified": "#1b7837", "sampled": "#a6d96a", "experiment": "#6baed6",
            "erratum": "#f1a340", "open": "#c2c2f0",
            "failed": "#d73027", "uncovered": "#ffffff", "external": "#eeeeee"}


def numbered_results(ref: str) -> list[str]:
    """The numbered results ("Lemma 9", "Theorem 2", ...) named in a claim reference such as
    "Thm 2 (ii)", "Lemma 1/9", "Lemmas 9-12" or "Fig. 1 (a)"; unknown numbers are dropped."""
    return [name for name, _ in ref_mentions(ref) if name in _ORDER]


def _rec(r) -> dict:
    return r.as_dict() if hasattr(r, "as_dict") else dict(r)


def _units(rec: dict) -> list[str]:
    """The blueprint nodes a claim belongs to: its numbered results, else its reference itself."""
    return numbered_results(rec["ref"]) or [rec["ref"] or rec["id"]]


def _resolve(use: str, recs: list[dict]) -> list[dict]:
    """Claims a `uses` entry names: exact id, id prefix ("lemma5" -> "lemma5.*"), or paper reference."""
    hits = [r for r in recs if r["id"] == use or r["id"].startswith(use + ".") or r["ref"] == use]
    return hits


def coverage(records) -> list[dict]:
    """One row per numbered result of the paper: the covering claims and their statuses, or why none."""
    recs = [_rec(r) for r in records]
    by_result: dict[str, list[dict]] = defaultdict(list)
    for r in recs:
        for name in numbered_results(r["ref"]):
            by_result[name].append(r)
    rows = []
    for name, title, where in NUMBERED_RESULTS:
        covering = by_result.get(name, [])
        statuses = Counter(r["status"] for r in covering)
        step = ""
        if covering:
            # confrontations (the torch model against the derivation) must pass but do not weaken the result
            proof = [r for r in covering if r.get("role", "proof") != "confrontation"] or covering
            weakest_claim = min(proof, key=lambda r: _STATUS_RANK.get(r["status"], -1))
            failed = [r for r in covering if r["status"] == "failed"]
            if failed:
                weakest_claim = failed[0]
            worst = weakest_claim["status"]
            step = weakest_claim.get("weakest") or weakest_claim["id"]
            # an `open` claim says why it has no machine check: show that reason here too
            note = "; ".join(f"{r['id']} open: {r['evidence']}" for r in covering if r["status"] == "open")
        elif name in NOT_CHECKABLE:
            worst, note = "uncovered", "not machine-checkable: " + NOT_CHECKABLE[name]
        elif name.startswith("Figure"):
            worst, note = "uncovered", ("not covered yet: no claim refers to this figure (a figure is checked "
                                        "through the claims behind what it shows; see `l2g figures`)")
        else:
            worst, note = "uncovered", "not covered yet: no registered claim refers to it"
        rows.append({"result": name, "title": title, "where": where, "claims": [r["id"] for r in covering],
                     "confrontations": [r["id"] for r in covering if r.get("role", "proof") == "confrontation"],
                     "statuses": dict(sorted(statuses.items())), "status": worst, "weakest_step": step,
                     "note": note})
    return rows


def dependency_graph(records) -> tuple[list[str], list[tuple[str, str]], list[str]]:
    """Nodes (numbered results in paper order, then other references), edges (used -> user) and the
    `uses` entries that name no registered claim (listed, never silently dropped)."""
    recs = [_rec(r) for r in records]
    nodes = [name for name, _, _ in NUMBERED_RESULTS]
    extra = sorted({u for r in recs for u in _units(r) if u not in _ORDER})
    nodes += extra
    edges: set[tuple[str, str]] = set()
    unresolved: set[str] = set()
    for r in recs:
        for use in r.get("uses", []):
            hits = _resolve(use, recs)
            if not hits:
                unresolved.add(use)
                continue
            for h in hits:
                for src in _units(h):
                    for dst in _units(r):
                        if src != dst:
                            edges.add((src, dst))
    return nodes, sorted(edges, key=lambda e: (_key(e[0]), _key(e[1]))), sorted(unresolved)


def _key(node: str):
    return (_ORDER.get(node, len(_ORDER)), node)


def _layers(nodes: list[str], edges: list[tuple[str, str]]) -> dict[str, int]:
    """Longest-path layering (sources on layer 0); back edges of cycles are ignored, deterministically."""
    preds: dict[str, list[str]] = defaultdict(list)
    for s, d in edges:
        preds[d].append(s)
    depth: dict[str, int] = {}
    onstack: set[str] = set()

    def visit(n: str) -> int:
        if n in depth:
            return depth[n]
        onstack.add(n)
        d = 0
        for s in sorted(preds[n], key=_key):
            if s not in onstack:
                d = max(d, visit(s) + 1)
        onstack.discard(n)
        depth[n] = d
        return d

    for n in nodes:
        visit(n)
    return depth


def _abbrev(node: str) -> str:
    for long, short in (("Lemma ", "L"), ("Theorem ", "T"), ("Remark ", "R"), ("Figure ", "F")):
        if node.startswith(long) and node[len(long):].isdigit():
            return short + node[len(long):]
    return node if len(node) <= 14 else node[:13] + "\u2026"


def draw_dependency_graph(records, out_dir: Path, stem: str = "dependencies", workers: int | None = None) -> list[Path]:
    """Render the blueprint graph as PNG and PDF (layered layout computed here; no graphviz), the two formats in
    `workers` processes (default two; 1: one after the other in this process). Drawing the edges' arrows is most
    of the report's time, and each format draws them again; the files do not depend on `workers`."""
    from local2global.numeric.infra.executor import make_executor
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = [out_dir / f"{stem}.{fmt}" for fmt in _GRAPH_FORMATS]
    with make_executor(1 if workers == 1 else min(workers or 2, len(paths)), start_method="fork") as ex:
        for path, blob in zip(paths, ex.map(_graph_file, [records] * len(paths), _GRAPH_FORMATS)):
            atomic_write(path, blob)
    return paths


#: the dependency graph's formats and their fixed metadata (no dates, no versions: byte-identical runs)
_GRAPH_FORMATS = {"png": dict(format="png", dpi=150, metadata={"Software": None}),
                  "pdf": dict(format="pdf", metadata={"CreationDate": None, "Creator": None, "Producer": None})}


def _graph_file(records, fmt: str) -> bytes:
    """The dependency graph of `records` drawn as one file of format `fmt` (a key of `_GRAPH_FORMATS`)."""
    import io

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyArrowPatch, Patch

    cov = {row["result"]: row["status"] for row in coverage(records)}
    recs = [_rec(r) for r in records]
    for r in recs:
        for u in _units(r):
            if u not in _ORDER:
                cov[u] = min(cov.get(u, "proved"), r["status"], key=lambda s: _STATUS_RANK.get(s, -1))
    nodes, edges, _ = dependency_graph(records)
    depth = _layers(nodes, edges)
    linked = {n for e in edges for n in e}
    per_row = 10
    preds: dict[str, list[str]] = defaultdict(list)
    for s, d in edges:
        preds[d].append(s)
    rows: list[list[str]] = []
    pos: dict[str, tuple[float, float]] = {}

    def place(members: list[str]) -> None:
        for i in range(0, len(members), per_row):
            row = members[i:i + per_row]
            for x, n in enumerate(row):
                pos[n] = (x - (len(row) - 1) / 2, -1.4 * len(rows))
            rows.append(row)

    # Connected results in longest-path layers, each ordered by the mean position of what it uses
    # (barycentre heuristic: fewer crossings), ties in paper order.
    def barycentre(n: str) -> float:
        xs = [pos[s][0] for s in preds[n] if s in pos]
        return sum(xs) / len(xs) if xs else 0.0

    for layer in range(max((depth[n] for n in linked), default=-1) + 1):
        members = [n for n in nodes if n in linked and depth[n] == layer]
        members.sort(key=lambda n: (barycentre(n), _key(n)) if layer else _key(n))
        place(members)
    first_isolated = len(rows)
    place(sorted((n for n in nodes if n not in linked), key=_key))
    width = max(len(r) for r in rows) if rows else 1
    with matplotlib.rc_context({"svg.hashsalt": "local2global", "font.size": 8}):
        # rows close together: the graph is long (one row per layer) and must stay legible on a printed page
        fig, ax = plt.subplots(figsize=(1.25 * width + 1.5, 0.55 * len(rows) + 1.6))
        for n, (x, y) in pos.items():
            status = cov.get(n, "uncovered")
            ax.text(x, y, _abbrev(n), ha="center", va="center", fontsize=8,
                    color="white" if status in ("proved", "certified", "failed") else "black",
                    bbox=dict(boxstyle="round,pad=0.35", fc=_COLOURS.get(status, "#ffffff"),
                              ec="#333333" if status != "uncovered" else "#999999",
                              ls="-" if status != "uncovered" else "--", lw=0.7))
        ax.set_xlim(-width / 2 - 0.3, width / 2 + 0.3)
        ax.set_ylim(-1.4 * (len(rows) - 1) - 0.8, 0.8)
        if first_isolated < len(rows) and first_isolated > 0:
            y_sep = -1.4 * first_isolated + 0.7
            ax.axhline(y_sep, color="#bbbbbb", lw=0.5, ls=":")
            ax.text(-width / 2 - 0.2, y_sep - 0.15, "no `uses` edges:", fontsize=6, va="top", color="#666666")
        ax.axis("off")
        ax.set_title("Blueprint of the paper: numbered results and the claims' `uses`\n"
                     "(arrow: used -> user; L = Lemma, T = Theorem, R = Remark, F = Figure)", fontsize=9)
        ax.legend(handles=[Patch(fc=_COLOURS[s], ec="#333333", label=s)
                           for s in ("proved", "certified", "sampled", "experiment", "erratum", "open", "failed",
                                     "uncovered")],
                  loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=4, fontsize=8, frameon=False)
        fig.tight_layout()
        # the arrows once the axes are placed: each stops 11 points short of both centres, shortened along its
        # chord here (matplotlib's own shrink clips every curve by bisection at each draw, most of the drawing)
        to_points = ax.transData + fig.dpi_scale_trans.inverted()          # data -> inches (72 points each)
        for s, d in edges:
            a, b = to_points.transform([pos[s], pos[d]]) * 72
            gap = 11 * (b - a) / max(float(((b - a) ** 2).sum()) ** 0.5, 22.0)
            ends = (to_points.inverted().transform([(a + gap) / 72, (b - gap) / 72]))
            ax.add_patch(FancyArrowPatch(tuple(ends[0]), tuple(ends[1]), arrowstyle="-|>", mutation_scale=9, lw=0.6,
                                         color="#555555", shrinkA=0, shrinkB=0, connectionstyle="arc3,rad=0.08"))
        buf = io.BytesIO()
        fig.savefig(buf, **_GRAPH_FORMATS[fmt])
        plt.close(fig)
    return buf.getvalue()


def _cell(text: str) -> str:
    """A Markdown table cell: one line, pipes escaped."""
    return " ".join(str(text).split()).replace("|", "\\|")


def counts(records) -> dict[str, int]:
    """Number of claims per status (every status listed, in the registry's order)."""
    c = Counter(_rec(r)["status"] for r in records)
    return {s: c.get(s, 0) for s in STATUSES}


def summary_line(records) -> str:
    """One line of claim counts by status, e.g. for the end of `l2g all`."""
    c = counts(records)
    n = sum(c.values())
    return f"{n} claim{'' if n == 1 else 's'}: " + ", ".join(f"{k} {s}" for s, k in c.items())


def render_markdown(records) -> str:
    """report.md as a string."""
    recs = [_rec(r) for r in records]
    cov = coverage(records)
    _, edges, unresolved = dependency_graph(records)
    out = ["# local2global proof-check report", "",
           "Companion to Makkuva et al., *Local to Global: Learning Dynamics and Effect of Initialization for "
           "Transformers* (NeurIPS 2024, arXiv 2406.03072).", "",
           "Statuses (strongest first): **proved** (exact over the whole stated domain), **certified** (rigorous "
           "interval arithmetic over a stated compact part), **sampled** (numerical: points or flows, digits, "
           "region in the evidence), **experiment** (a training run), **erratum** (the printed form fails, our "
           "corrected form passes), **open** (no machine check; reason given), **failed** (our check broke). "
           "Every status is that of the claim's weakest step (its own check or any claim it uses), named in the "
           "column *weakest step*; every check also rejected its negative control. A numbered result is as strong "
           "as its weakest claim, except that a *confrontation* (the same statement checked again on the torch "
           "transformer) must pass but does not weaken it.", "",
           "**" + summary_line(records) + "**", ""]
    cov_counts = Counter(row["status"] if row["status"] in COVERED else
                         ("open (not covered)" if row["status"] == "open" else
                          ("not machine-checkable" if row["result"] in NOT_CHECKABLE else "not covered yet"))
                         for row in cov)
    out += ["## Coverage of the paper's numbered results", "",
            f"{len(cov)} numbered results: " + ", ".join(f"{n} {k}" for k, n in sorted(cov_counts.items())) + ".",
            "", "| Result | Title | Where | Status | Weakest step | Claims | Note |", "|---|---|---|---|---|---|---|"]
    for row in cov:
        named = [c + (" (confrontation)" if c in row.get("confrontations", ()) else "") for c in row["claims"]]
        out.append(f"| {row['result']} | {_cell(row['title'])} | {row['where']} | {row['status']} | "
                   f"{row['weakest_step'] or '-'} | {_cell(', '.join(named)) or '-'} | {_cell(row['note'])} |")
    others = [r for r in recs if not numbered_results(r["ref"])]
    if others:
        out += ["", "Claims about unnumbered statements (equations, sets, our own results): "
                + ", ".join(f"`{r['id']}` ({_cell(r['ref'])})" for r in others) + "."]
    out += ["", "## Claims", "", "| Id | Reference | Title | Status | Own | Weakest step | Domain (stated; checked) "
            "| Method | Evidence | Negative control | Uses |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in recs:
        dom = "; ".join(x for x in (r.get("stated_domain", ""), r.get("checked_domain", "")) if x) or "-"
        out.append(f"| `{r['id']}` | {_cell(r['ref'])} | {_cell(r['title'])} | {r['status']} | {r.get('own_status', '')} "
                   f"| {r.get('weakest', '') if r.get('weakest') != r['id'] else '-'} | {_cell(dom)} "
                   f"| {_cell(r['method'])} | {_cell(r['evidence'])} | {_cell(r['control'])} "
                   f"| {_cell(', '.join(r['uses'])) or '-'} |")
    errata = [r for r in recs if r["status"] == "erratum" or r.get("erratum")]
    out += ["", "## Errata", ""]
    if errata:
        for r in errata:
            note = _cell(r.get("erratum") or r["evidence"])
            out.append(f"- `{r['id']}` ({_cell(r['ref'])}, status {r['status']}): {note}")
    else:
        out.append("None found among the registered claims.")
    out += ["", "## Dependency graph", "", "![dependency graph](dependencies.png)", "",
            f"{len(edges)} {'edge' if len(edges) == 1 else 'edges'} between results (from the claims' `uses`)."]
    if unresolved:
        out.append("`uses` entries naming no registered claim: " + ", ".join(f"`{u}`" for u in unresolved) + ".")
    out.append("")
    return "\n".join(out)


def report_data(records) -> dict:
    """report.json as a dict (no timings; registry order)."""
    nodes, edges, unresolved = dependency_graph(records)
    return {"paper": "arXiv:2406.03072", "counts": counts(records), "claims": [_rec(r) for r in records],
            "coverage": coverage(records), "graph": {"nodes": nodes, "edges": [list(e) for e in edges],
                                                     "unresolved_uses": unresolved}}


def write_report(records, out_dir, workers: int | None = None) -> list[Path]:
    """Write report.md, report.json and the dependency figure (PNG, PDF) into out_dir; return the paths.

    `records`: the `Record`s of `run_claim`, in registry order (e.g. `[run_claim(c, ctx) for c in select(ids)]`);
    `workers`: processes drawing the figure's two formats (see `draw_dependency_graph`)."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    md, js = out_dir / "report.md", out_dir / "report.json"
    atomic_write(md, render_markdown(records))
    atomic_write(js, json.dumps(report_data(records), indent=2, sort_keys=True, ensure_ascii=False) + "\n")
    return [md, js, *draw_dependency_graph(records, out_dir, workers=workers)]
