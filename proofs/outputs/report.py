"""The proof-check report (`l2g check`, `l2g all`): the project's blueprint of the paper.

`write_report(records, out_dir)` writes

- ``report.md``: a coverage table listing *every* numbered result of the paper (Lemmas 1-16, Theorems 1-11,
  Remarks 1-5, Figures 1-6) with its status line and the claims that cover it (or why none does), the trust base
  of each covered result (the claims it rests on, its steps per kind, the software trusted with versions, its
  argued and cited steps), a table of every registered claim, then every claim's proof steps by kind (the
  printed and corrected steps of an erratum, the corroborations, the negative control), every argued step in
  full and every cited step with its reference;
- ``report.json``: the same content as data (the records with their steps and trust bases, the coverage with the
  trust base of each result, the software versions; sorted keys, registry order, no timings);
- ``dependencies.png`` / ``dependencies.pdf``: the dependency graph of the numbered results, built from the
  claims' ``uses`` (like a Lean blueprint), nodes coloured by status.

All outputs are deterministic: two runs on the same records are byte-identical.
"""
from __future__ import annotations

import json
from collections import Counter, defaultdict
from pathlib import Path

from local2global.numeric.infra.atomic import atomic_write
from local2global.proofs._registry import COVERED, STATUSES, resolve_uses
from local2global.proofs.labels import NOT_CHECKABLE as NOT_CHECKABLE, NUMBERED_RESULTS as NUMBERED_RESULTS
from local2global.proofs.labels import RESULT_ORDER as _ORDER, kind_words as kind_words, numbered_results as numbered_results
from local2global.proofs.labels import ref_mentions as ref_mentions
from local2global.proofs.outputs import palette, records as R

_COLOURS = dict(palette.STATUS, external=palette.EXTERNAL)      # the one palette of every output


def _units(rec: dict) -> list[str]:
    """The blueprint nodes a claim belongs to: its numbered results, else its reference itself."""
    return numbered_results(rec["ref"]) or [rec["ref"] or rec["id"]]


def coverage(records) -> list[dict]:
    """One row per numbered result of the paper: the covering claims and their statuses, or why none; its status,
    status line and trust base (`records.result_of`: the one rule every output uses)."""
    recs = R.by_id(records)
    by_result: dict[str, list[str]] = defaultdict(list)
    for cid, r in recs.items():
        for name in numbered_results(r["ref"]):
            by_result[name].append(cid)
    rows = []
    for name, title, where in NUMBERED_RESULTS:
        covering = by_result.get(name, [])
        statuses = Counter(recs[c]["status"] for c in covering)
        res = R.result_of(recs, covering)
        note = ""
        if covering:
            # an `open` claim says why it has no machine check: show that reason here too
            note = "; ".join(f"{c} open: {recs[c].get('evidence', '')}" for c in covering if recs[c]["status"] == "open")
        elif name in NOT_CHECKABLE:
            note = "not machine-checkable: " + NOT_CHECKABLE[name]
        elif name.startswith("Figure"):
            note = ("not covered yet: no claim refers to this figure (a figure is checked through the claims behind "
                    "what it shows; see `l2g figures`)")
        else:
            note = "not covered yet: no registered claim refers to it"
        rows.append({"result": name, "title": title, "where": where, "claims": covering,
                     "confrontations": [c for c in covering if recs[c].get("role", "proof") == "confrontation"],
                     "statuses": dict(sorted(statuses.items())), "status": res["status"],
                     "status_line": res["status_line"], "weakest_step": res["weakest"], "trust": res["trust"],
                     "note": note})
    return rows


def dependency_graph(records) -> tuple[list[str], list[tuple[str, str]], list[str]]:
    """Nodes (numbered results in paper order, then other references), edges (used -> user) and the
    `uses` entries that name no registered claim (listed, never silently dropped)."""
    recs = R.by_id(records)
    nodes = [name for name, _, _ in NUMBERED_RESULTS]
    extra = sorted({u for r in recs.values() for u in _units(r) if u not in _ORDER})
    nodes += extra
    edges: set[tuple[str, str]] = set()
    unresolved: set[str] = set()
    for r in recs.values():
        for use in r.get("uses", []):
            hits = [recs[c] for c in resolve_uses(use, recs)]
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


#: characters per line of a node's label in the dependency graph (a node's slot is 1.25 in wide, 8 pt type)
LABEL_WIDTH = 16
_SUPERSCRIPT = str.maketrans("0123456789", "\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079")


def node_label(node: str) -> str:
    """A node of the dependency graph as it is printed: a numbered result abbreviated (L5, T2, R3, F1); any other
    reference whole, powers as superscripts (R^3 as R³), broken into lines of at most `LABEL_WIDTH` characters at
    its spaces (never cut short)."""
    for long, short in (("Lemma ", "L"), ("Theorem ", "T"), ("Remark ", "R"), ("Figure ", "F")):
        if node.startswith(long) and node[len(long):].isdigit():
            return short + node[len(long):]
    import re
    text = re.sub(r"\bR\^(?=[0-9(])", "\u211d^", node)                 # the reals, as the PDF sets them
    text = re.sub(r"\^(?:\(([0-9]+)\)|([0-9]+))", lambda m: (m.group(1) or m.group(2)).translate(_SUPERSCRIPT), text)
    text = re.sub(r"\b([A-Za-z])_([A-Za-z]+)\b", r"$\1_{\\mathrm{\2}}$", text)           # I_common as a subscript
    # a label and its number stay together ("Eq. 12"), and a line breaks after " / " before anywhere else
    words = re.sub(r"(?<=[A-Za-z.]) (?=[0-9])", "\u00a0", text).replace(" / ", "\u00a0/ ").split()
    lines: list[str] = []
    for word in words:
        if lines and len(lines[-1]) + 1 + len(word) <= LABEL_WIDTH and not lines[-1].endswith("/"):
            lines[-1] += " " + word
        else:
            lines.append(word)
    return "\n".join(lines).replace("\u00a0", " ")


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
    for r in R.by_id(records).values():
        for u in _units(r):
            if u not in _ORDER:
                cov[u] = min(cov.get(u, "proved"), r["status"], key=lambda s: R.RESULT_RANK.get(s, -1))
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
        fig, ax = plt.subplots(figsize=(1.25 * width + 1.5, 0.6 * len(rows) + 1.6))
        for n, (x, y) in pos.items():
            status = cov.get(n, "uncovered")
            ax.text(x, y, node_label(n), ha="center", va="center", fontsize=8,
                    color=palette.ink(_COLOURS.get(status, "#ffffff")),
                    bbox=dict(boxstyle="round,pad=0.35", fc=_COLOURS.get(status, "#ffffff"),
                              ec="#333333" if status != "uncovered" else "#999999",
                              ls="-" if status != "uncovered" else "--", lw=0.7))
        ax.set_xlim(-width / 2 - 0.3, width / 2 + 0.3)
        ax.set_ylim(-1.4 * (len(rows) - 1) - 0.8, 0.8)
        if first_isolated < len(rows) and first_isolated > 0:
            y_sep = -1.4 * first_isolated + 0.7
            ax.axhline(y_sep, color="#bbbbbb", lw=0.5, ls=":")
            ax.text(-width / 2 - 0.2, y_sep - 0.15, "using nothing, used by nothing:", fontsize=6, va="top",
                    color="#666666")
        ax.axis("off")
        ax.set_title("Blueprint of the paper: the numbered results and what their checks use\n"
                     "(an arrow points from a result to one whose check uses it; L = Lemma, T = Theorem, R = Remark, "
                     "F = Figure)", fontsize=9)
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
    c = Counter(R.as_dict(r)["status"] for r in records)
    return {s: c.get(s, 0) for s in STATUSES}


def summary_line(records) -> str:
    """One line of claim counts by status, e.g. for the end of `l2g all`."""
    c = counts(records)
    n = sum(c.values())
    return f"{n} claim{'' if n == 1 else 's'}: " + ", ".join(f"{k} {s}" for s, k in c.items())


_MD_SPECIAL = "\\`*_[]<>|#"


def _md(text: str) -> str:
    """Plain text for Markdown: one line, every character Markdown would read as markup escaped."""
    return "".join("\\" + ch if ch in _MD_SPECIAL else ch for ch in " ".join(str(text).split()))


def _md_states(s: dict) -> str:
    """A step's statement: LaTeX mathematics in $...$ as written (Markdown viewers render it); a legacy step's
    text escaped."""
    return _md(s["states"]) if s.get("legacy") else " ".join(s["states"].split())


def step_markdown(s: dict, label: str = "") -> str:
    """One step as a Markdown list item: kind, statement, what it found, how and where."""
    head = f"**{s['kind']}{' ' + label if label else ''}**: {_md_states(s)}"
    if s.get("legacy"):
        head += " *(recorded as one line of text)*"
    vals = "; ".join(" ".join(f"{k} = {v}".split()) if k else " ".join(v.split()) for k, v in s.get("values", ())
                     ) if not s.get("legacy") else ""
    if vals:
        head += f" (found: {vals})"
    if s["kind"] == "cited":
        head += f" [{_md(s.get('reference', ''))}]"
    if not s.get("ok", True):
        head += " **FAILS**"
    how = [s["method"]] if s.get("method") and s["kind"] not in ("argued", "cited") else []
    if s.get("domain"):
        how.append("on " + s["domain"])
    if how:
        head += " — " + _md("; ".join(how))
    if s.get("argument"):
        head += f"\n  *Argument.* {' '.join(s['argument'].split())}"
    return "- " + head


def _steps_md(steps, labels=None) -> list[str]:
    labels = labels or {}
    return [step_markdown(s, labels.get(i, "")) for i, s in enumerate(steps)]


def trust_markdown(trust: dict, recs: dict, labels: dict) -> list[str]:
    """A trust base as Markdown lines (the same list as the PDF, the site and `l2g verify`)."""
    if not trust:
        return []
    out = [f"- rests on {len(trust['claims'])} claim{'s' if len(trust['claims']) != 1 else ''}: "
           + ", ".join(f"`{c}`" for c in trust["claims"]),
           f"- steps: {R.counts_text(trust['counts'])}",
           f"- software trusted: {_md(R.software_text(trust['software']))}"]
    for key in ("argued", "cited"):
        for e in trust.get(key, []):
            lab = R.step_label(labels, recs, e)
            ref = f" [{_md(e.get('reference', ''))}]" if key == "cited" else ""
            out.append(f"- {key} {lab}: {' '.join(e['states'].split())}{ref} (`{e['claim']}`)")
    return out


def render_markdown(records) -> str:
    """report.md as a string."""
    recs = R.by_id(records)
    labels = R.numbered_steps(recs)
    cov = coverage(records)
    _, edges, unresolved = dependency_graph(records)
    out = ["# local2global proof-check report", "",
           "Companion to Makkuva et al., *Local to Global: Learning Dynamics and Effect of Initialization for "
           "Transformers* (NeurIPS 2024, arXiv 2406.03072).", "",
           "Statuses (strongest first): **proved** (exact over the whole stated domain), **certified** (rigorous "
           "interval arithmetic over a stated compact part), **sampled** (numerical: points or flows, digits, "
           "region with each step), **experiment** (a training run), **erratum** (the printed form fails, our "
           "corrected form passes), **open** (no machine check; reason given), **failed** (our check broke). "
           "Every status is that of the claim's weakest step (its own check or any claim it uses), named in the "
           "column *weakest step*; every check also rejected its negative control. A status line names what a "
           "claim or result rests on that no machine checked: its argued steps and its cited theorems (\"proved, "
           "2 argued steps\"). A numbered result is as strong as its weakest claim, except that a *confrontation* "
           "(the same statement checked again on the torch transformer) must pass but does not weaken it.", "",
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
        out.append(f"| {row['result']} | {_cell(row['title'])} | {row['where']} | {_cell(row['status_line'])} | "
                   f"{row['weakest_step'] or '-'} | {_cell(', '.join(named)) or '-'} | {_cell(row['note'])} |")
    others = [r for r in recs.values() if not numbered_results(r["ref"])]
    if others:
        out += ["", "Claims about unnumbered statements (equations, sets, our own results): "
                + ", ".join(f"`{r['id']}` ({_cell(r['ref'])})" for r in others) + "."]
    out += ["", "## Trust base of the numbered results", "",
            "What each result rests on, like a proof assistant's list of axioms: the claims of its uses-closure, "
            "their steps per kind, the software trusted, and every argued and cited step (in full under *Argued and "
            "cited steps*)."]
    for row in cov:
        if row["trust"]:
            out += ["", f"### {row['result']}: {_md(row['title'])}", "", f"Status: {row['status_line']}.", ""]
            out += trust_markdown(row["trust"], recs, labels)
    out += ["", "## Claims", "", "| Id | Reference | Title | Status | Own | Weakest step | Domain (stated; checked) "
            "| Method | Uses |", "|---|---|---|---|---|---|---|---|---|"]
    for r in recs.values():
        dom = "; ".join(x for x in (r.get("stated_domain", ""), r.get("checked_domain", "")) if x) or "-"
        out.append(f"| `{r['id']}` | {_cell(r['ref'])} | {_cell(r['title'])} | {_cell(R.claim_line(r))} "
                   f"| {r.get('own_status', '')} | {r.get('weakest', '') if r.get('weakest') != r['id'] else '-'} "
                   f"| {_cell(dom)} | {_cell(r['method'])} | {_cell(', '.join(r['uses'])) or '-'} |")
    out += ["", "## Proof steps", "",
            "Every claim's steps, each with how it was established (its kind), what it states and what it found; "
            "then what must hold without setting the status (corroborations) and the negative control."]
    for cid, r in recs.items():
        own = {i: labels[(cid, i)] for i in range(len(r.get("steps", ()))) if (cid, i) in labels}
        out += ["", f"### `{cid}`: {_md(r['title'])}", "", f"{_md(r['ref'])}. Status: {R.claim_line(r)}.", ""]
        if r["status"] == "open":
            out.append(f"Why open: {_md(r.get('evidence', ''))}")
        if r.get("printed_steps"):
            out += ["As printed (fails):"] + _steps_md(r["printed_steps"]) + ["", "Corrected (passes):"]
        out += _steps_md(r.get("steps", ()), own)
        if r.get("corroborations"):
            out += ["", "Corroboration (must hold; does not set the status):"] + _steps_md(r["corroborations"])
        if r.get("control_steps"):
            verdict = "rejected" if r.get("control_rejected") else "**NOT rejected**"
            out += ["", f"Negative control ({verdict}):"] + _steps_md(r["control_steps"])
    out += ["", "## Argued and cited steps", ""]
    if labels:
        for lab, places in R.labelled(labels):
            cid, i = places[0]
            out.append(step_markdown(recs[cid]["steps"][i], lab) + " (" + ", ".join(f"`{c}`" for c, _ in places) + ")")
    else:
        out.append("None: every step of the records was established by a machine.")
    used = sorted({k for r in recs.values() for s in r.get("steps", ()) for k in s.get("software", ())},
                  key=lambda k: list(R.SOFTWARE).index(k) if k in R.SOFTWARE else 99)
    out += ["", "## Software trusted", ""] + [f"- {s['label']} {s['version'] or '(not installed here)'}"
                                             for s in R.software(used)]
    errata = [r for r in recs.values() if r["status"] == "erratum" or r.get("erratum")]
    out += ["", "## Errata", ""]
    if errata:
        for r in errata:
            note = _cell(r.get("erratum") or r["title"])
            out.append(f"- `{r['id']}` ({_cell(r['ref'])}, status {R.claim_line(r)}): {note} (its printed and "
                       "corrected steps are under *Proof steps*)")
    else:
        out.append("None found among the registered claims.")
    out += ["", "## Dependency graph", "", "![dependency graph](dependencies.png)", "",
            f"{len(edges)} {'edge' if len(edges) == 1 else 'edges'} between results (from the claims' `uses`)."]
    if unresolved:
        out.append("`uses` entries naming no registered claim: " + ", ".join(f"`{u}`" for u in unresolved) + ".")
    out.append("")
    return "\n".join(out)


def report_data(records) -> dict:
    """report.json as a dict (no timings; registry order): the records with their steps, the coverage with each
    result's status line and trust base, the software trusted with versions."""
    nodes, edges, unresolved = dependency_graph(records)
    recs = R.by_id(records)
    used = sorted({k for r in recs.values() for s in r.get("steps", ()) for k in s.get("software", ())})
    return {"paper": "arXiv:2406.03072", "counts": counts(records), "claims": list(recs.values()),
            "coverage": coverage(records), "software": R.software(used),
            "graph": {"nodes": nodes, "edges": [list(e) for e in edges], "unresolved_uses": unresolved}}


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
