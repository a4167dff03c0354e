r"""The LaTeX printer of proof records: a claim's steps with their kind, the argued steps in full, the cited
references, the corroborations, the negative control, the printed and corrected steps of an erratum, and a
result's trust base. The one place the derivations document turns a record into LaTeX.

A step prints as its kind, what it states, what it found (its `values`), how (method) and where (domain, count,
digits), all through `reader.authored`: the mathematics written inside $...$ kept as written, the plain text escaped
with the authors' notations (R^3, x_n, e^2) set as mathematics; an argued step prints its whole argument, a cited
step its reference. A step synthesised from an unstructured record (`legacy`) is printed as the
escaped text it holds, inside ``\legacytext`` (set between single guillemets; nothing is parsed out of it).
"""
from __future__ import annotations

from local2global.proofs.outputs import records as R

from . import reader

#: macros the printer uses (in the document's preamble)
MACROS = r"""\newcommand{\kindtag}[1]{{\sffamily\footnotesize\bfseries #1}\enspace}
\newcommand{\legacytext}[1]{\guilsinglleft#1\guilsinglright}
\newcommand{\failstag}{\textcolor{stfailed}{\sffamily\footnotesize\bfseries FAILS}}
\newenvironment{stepl}{\begin{list}{\textperiodcentered}{\setlength{\leftmargin}{1.1em}\setlength{\itemsep}{0.25ex}%
  \setlength{\parsep}{0pt}\setlength{\topsep}{0.25ex}\setlength{\labelwidth}{0.6em}\setlength{\labelsep}{0.4em}}}{\end{list}}
"""


def step_tex(s: dict, label: str = "", anchor: bool = False, brief: bool = False) -> str:
    """One step (a dict of `Step.as_dict`) as the body of a list item; `label` ("A3") is printed with its kind, and
    with `anchor` the trust bases' links point here; `brief` leaves out an argued step's argument (a control repeats
    the argument of the proof)."""
    head = "\\kindtag{%s%s}" % (s["kind"], (" " + label) if label else "")
    if label and anchor:
        head = "\\phantomsection\\label{step:%s}" % label + head
    if s.get("legacy"):
        body = "\\legacytext{%s} {\\itshape (recorded as one line of text)}" % reader.escape(s["states"])
    else:
        body = reader.authored(s["states"])
    vals = "; ".join(reader.authored(f"{k} = {v}" if k else v) for k, v in s.get("values", ()))
    if vals:
        body += " (found: %s)" % vals
    if s["kind"] == "cited":
        body += " [%s]" % reader.authored(s.get("reference", ""))
    if not s.get("ok", True):
        body += " \\failstag"
    how = reader.authored(R.how(s))         # written by people in plain text: R^3, x_n, (0,1)^2 set as mathematics
    if how:
        body += ". {\\color{black!60}%s}" % how
    if brief and s.get("argument"):
        body += " \\textit{(argued as in the proof)}"
    elif s["kind"] == "argued" or (s["kind"] == "cited" and s.get("argument")):
        body += ".\\par\\noindent\\textit{Argument.} %s" % reader.authored(s.get("argument", ""))
    return head + body


def steps_tex(steps, labels=None, brief: bool = False) -> str:
    """A list of steps (`labels`: index -> label for argued and cited steps; `brief`: see `step_tex`); "" for none."""
    steps = list(steps)
    if not steps:
        return ""
    labels = labels or {}
    return ("\\begin{stepl}\n" + "".join("\\item %s\n" % step_tex(s, labels.get(i, ""), brief=brief)
                                       for i, s in enumerate(steps)) + "\\end{stepl}\n")


def record_tex(rec: dict, labels: dict) -> str:
    """A claim record's proof: its steps (for an erratum the failing printed form's steps beside the corrected
    form's), the corroborations and the negative control. `labels`: `records.numbered_steps`."""
    own = {i: labels[(rec["id"], i)] for i in range(len(rec.get("steps", ()))) if (rec["id"], i) in labels}
    counts = R.counts_text({k: len(v) for k, v in R.by_kind(rec.get("steps", ()))})
    out = []
    if rec.get("printed_steps"):
        out.append("\\noindent\\fieldname{as printed} fails:\n" + steps_tex(rec["printed_steps"]))
        out.append("\\noindent\\fieldname{corrected} passes (%s):\n" % counts + steps_tex(rec.get("steps", ()), own))
    elif rec.get("steps"):
        out.append("\\noindent\\fieldname{proof steps} (%s):\n" % counts + steps_tex(rec["steps"], own))
    if rec.get("corroborations"):
        out.append("\\noindent\\fieldname{corroboration} (must hold; does not set the status):\n"
                   + steps_tex(rec["corroborations"]))
    if rec.get("control_steps"):
        verdict = "rejected" if rec.get("control_rejected") else "\\textcolor{stfailed}{NOT rejected}"
        out.append("\\noindent\\fieldname{negative control} (an altered statement, %s by the same check):\n" % verdict
                   + steps_tex(rec["control_steps"], brief=True))
    return "".join(out)


def trust_tex(trust: dict, recs: dict, labels: dict, *, line: str = "") -> str:
    """A trust base (`records.trust_of`) as a paragraph: the status line, the claims it rests on, the steps per
    kind, the software with versions, every argued and cited step by its label (in full in the appendix)."""
    if not trust:
        return ""
    parts = []
    if line:
        parts.append("\\fieldname{status} %s." % reader.escape(line))
    claims = trust.get("claims", [])
    parts.append("\\fieldname{rests on} %d claim%s (%s)." % (
        len(claims), "" if len(claims) == 1 else "s", ", ".join("\\texttt{%s}" % reader.escape(c) for c in claims)))
    parts.append("\\fieldname{steps} %s." % reader.escape(R.counts_text(trust.get("counts", {}))))
    parts.append("\\fieldname{software trusted} %s." % reader.escape(R.software_text(trust.get("software", []))))
    for key, word in (("argued", "argued"), ("cited", "cited")):
        entries = trust.get(key, [])
        if not entries:
            continue
        items = []
        for e in entries:
            lab = R.step_label(labels, recs, e)
            ref = ("\\hyperref[step:%s]{%s} " % (lab, lab)) if lab else ""
            extra = (" [%s]" % reader.escape(e.get("reference", ""))) if key == "cited" else ""
            items.append("%s%s%s (\\texttt{%s})" % (ref, reader.authored(e["states"]), extra, reader.escape(e["claim"])))
        parts.append("\\fieldname{%s} %s." % (word, "; ".join(items)))
    return " ".join(parts)


def argued_and_cited_tex(recs: dict, labels: dict) -> str:
    """The appendix listing every argued step in full and every cited step with its reference, by label."""
    rows = []
    for lab, places in R.labelled(labels):
        cid, i = places[0]
        rows.append("\\item %s {\\small(%s)}\n" % (step_tex(recs[cid]["steps"][i], lab, anchor=True),
                                                   ", ".join("\\texttt{%s}" % reader.escape(c) for c, _ in places)))
    if not rows:
        return "No step of the records is argued or cited: every step was established by a machine.\n"
    return "\\begin{stepl}\n" + "".join(rows) + "\\end{stepl}\n"


def without_legacy(tex: str) -> str:
    """`tex` without the text of legacy steps (every ``\\legacytext{...}``, braces balanced): what remains is printed
    from structured records, and the tests hold it free of Python (an unstructured record's text is shown as
    recorded)."""
    out, i = [], 0
    while (j := tex.find("\\legacytext{", i)) >= 0:
        out.append(tex[i:j])
        depth, k = 0, j + len("\\legacytext")
        while True:
            depth += {"{": 1, "}": -1}.get(tex[k], 0) if tex[k - 1] != "\\" else 0
            k += 1
            if depth == 0:
                break
        i = k
    return "".join(out) + tex[i:]
