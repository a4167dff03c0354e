r"""The derivations document as a paper appendix: preamble, front matter, one fragment per unit, errata,
additional figures and how to reproduce. Building it never runs a check; the statuses come from the
records of `l2g check --json` (build/checks.json) when they are given.

Per unit (one paper result) the fragment holds: the result as an amsthm environment named and numbered as
in the paper (Lemma 5, Theorem 2, ...), stated with the derived expressions; the derivation (what was
computed, in words and formulas); the proof steps, one per registered claim, each with its status on the
ladder (own status and weakest step), the checked statement, and one compact evidence line written for a
reader; figures numbered as the paper's. Output is deterministic (no dates, no set iteration).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from local2global.proofs.outputs import records as R

from . import figures as F
from . import forms, reader
from . import steps as ST
from .layout import merge_displays
from .registry import TOPICS, Block, Section, claims_for, homes, pointers, sections

#: where `l2g derive` looks for the JSON of `l2g check --json` (relative to its --out directory)
RECORDS_NAME = "checks.json"

#: LaTeX packages of the preamble (texlive-latex-base, texlive-latex-recommended and lmodern provide them)
PACKAGES = ("fontenc", "lmodern", "microtype", "amsmath", "amssymb", "amsthm", "geometry", "graphicx", "booktabs",
            "longtable", "array", "xcolor", "caption", "subcaption", "hyperref")

#: the status ladder, strongest first, and what each rung means (the words of `proofs._registry`)
LADDER = ("proved", "certified", "sampled", "experiment", "erratum", "open", "failed")
NOT_RUN = "not run"
MEANING = {
    "proved": "exact over the whole stated domain: a SymPy identity or derivation, or an argument whose steps "
              "are proved",
    "certified": "rigorous interval arithmetic (arb) over a stated compact part of the domain",
    "sampled": "numerical: the number of points, the digits and the region are given with each step",
    "experiment": "a training run of the full transformer",
    "erratum": "the printed form fails the check, a corrected form passes it (both are shown)",
    "open": "no machine check; the reason is given",
    "failed": "our own check broke, or an experiment's runs contradict its prediction (the failing step says where)",
    NOT_RUN: "this build has no record of the check",
}


def _status_macros() -> str:
    colours, ink = R.COLOURS, R.INK                 # one palette for the site and the PDF
    out = []
    for s in LADDER + (NOT_RUN,):
        key = s.replace(" ", "")
        out.append("\\definecolor{st%s}{HTML}{%s}\\definecolor{ink%s}{HTML}{%s}"
                   % (key, colours.get(s, "#ffffff").lstrip("#").upper(), key,
                      ink.get(s, "#000000").lstrip("#").upper()))
    return "\n".join(out) + "\n" + ST.MACROS


PREAMBLE = r"""\documentclass[11pt,a4paper]{article}
\usepackage[T1]{fontenc}
\usepackage{lmodern}
\usepackage{microtype}
\usepackage{amsmath}
\usepackage{amssymb}
\usepackage{amsthm}
\usepackage[margin=2.4cm]{geometry}
\usepackage{graphicx}
\usepackage{booktabs}
\usepackage{longtable}
\usepackage{array}
\usepackage{xcolor}
\usepackage[font=small,labelfont=bf]{caption}
\usepackage{subcaption}
\usepackage{hyperref}
\definecolor{linkblue}{HTML}{1F4E9A}
\hypersetup{colorlinks=true,linkcolor=linkblue,urlcolor=linkblue,citecolor=linkblue,
  pdftitle={Local to Global: derivations and checks},pdfcreator={l2g derive},pdfproducer={l2g derive}}
\allowdisplaybreaks
\setlength{\parskip}{0.35ex}
\newtheoremstyle{paper}{1.2ex}{1ex}{\itshape}{}{\bfseries}{.}{0.5em}{\thmname{#1}\thmnumber{ #2}\thmnote{ (#3)}}
\theoremstyle{paper}
\newtheorem{lemma}{Lemma}
\newtheorem{theorem}{Theorem}
\newtheorem{proposition}{Proposition}
\newcommand{\namedname}{}
\newtheorem*{named}{\namedname}
\theoremstyle{remark}
\newtheorem{remark}{Remark}
% \statusbox{key}{status line}: the status (up to the line's first comma) in the ladder's colours, the rest of the
% line ("1 argued step, cites ...") after it as text that wraps (a colour box cannot break across lines)
\newcommand{\statusbox}[2]{\stsplit{#1}#2,\stend}
\def\stsplit#1#2,#3\stend{{\setlength{\fboxsep}{1.4pt}\colorbox{st#1}{\textcolor{ink#1}{\sffamily\footnotesize\strut #2}}}%
  \stnote#3\stend}
\def\stnote#1\stend{\if\relax\detokenize{#1}\relax\else\stnotetext#1\stend\fi}
\def\stnotetext#1,\stend{{\footnotesize ,#1}}
\newcommand{\stepid}[1]{{\footnotesize\ttfamily #1}}
\newenvironment{steps}{\begin{list}{}{\setlength{\leftmargin}{0pt}\setlength{\itemsep}{1.1ex}%
  \setlength{\parsep}{0.4ex}\setlength{\topsep}{0.6ex}}}{\end{list}}
\newcommand{\fieldname}[1]{\textsc{#1}:}
"""

_ENV = {"Lemma": "lemma", "Theorem": "theorem", "Remark": "remark"}


def _statusbox(status: str, line: str = "") -> str:
    """A coloured box with the status line (the ladder's colours by the status; a status off the ladder is shown as
    failed)."""
    key = status if status in LADDER else ("notrun" if status == NOT_RUN else "failed")
    return "\\statusbox{%s}{%s}" % (key, reader.escape(line or status))


def _record_box(rec: dict | None) -> str:
    return _statusbox(rec["status"], R.claim_line(rec)) if rec else _statusbox(NOT_RUN)


# ---------------------------------------------------------------------------------------------
# One unit
# ---------------------------------------------------------------------------------------------

def _title(c) -> str:
    return reader.authored(c.title)


def _statement(s: str) -> str:
    """A claim's statement (LaTeX text from the registry); a claim id named in the text
    (`thm5.formula_sheet_reading`) is set as code, its underscores escaped."""
    text = str(s).strip()
    from local2global.proofs._registry import REGISTRY
    ids = sorted(REGISTRY, key=len, reverse=True)
    if not ids:
        return text
    named = re.compile(r"(?<![\\\w.])(%s)(?![\w])" % "|".join(map(re.escape, ids)))
    parts = re.split(r"(\$[^$]*\$)", text)
    return "".join(part if part.startswith("$") else
                   named.sub(lambda m: "\\texttt{%s}" % m.group(1).replace("_", "\\_"), part)
                   for part in parts)


def _step(c, rec: dict | None, unit_of: dict, by_id: dict, labels: dict) -> str:
    """One claim as a step of a result: its status line, title and id, statement, then its record (`steps`)."""
    parts = ["\\item %s\\ \\textbf{%s.}\\hfill\\stepid{%s}\\par" % (_record_box(rec), _title(c), reader.escape(c.id))]
    if c.statement:
        parts.append("\\fieldname{statement} %s\\par" % _statement(c.statement))
    if rec:
        small = []
        if rec["status"] == "open":
            small.append("\\fieldname{why open} %s.\\par" % reader.authored(rec.get("evidence", "")))
        small.append(ST.record_tex(rec, labels))
        weakest = rec.get("weakest", "")
        own = rec.get("own_status", "")
        if weakest and weakest != c.id and weakest in by_id:
            w = by_id[weakest]
            where = unit_of.get(weakest)
            link = ("\\hyperref[sec:%s]{%s}" % (where, _title(w))) if where else _title(w)
            small.append("\\fieldname{own check} %s; the status is that of its weakest step, %s (%s)."
                         % (reader.escape(own or rec["status"]), link, reader.authored(w.ref)))
        elif own and own != rec["status"]:
            small.append("\\fieldname{own check} %s." % reader.escape(own))
        for key, label in (("stated_domain", "stated domain"), ("checked_domain", "checked domain")):
            if rec.get(key):
                small.append("\\fieldname{%s} %s." % (label, reader.authored(str(rec[key]))))
        parts.append("{\\small " + " ".join(small) + "}")
    else:
        parts.append("{\\small \\textit{Not run in this build.}}")
    return "\n".join(parts) + "\n"


def unit_result(claims, records: dict) -> dict:
    """The status of a unit (one result of the paper) from the claims shown in it: `records.result_of` (the rule
    of the report's coverage), `not run` when the build has no record of any of them."""
    ids = [c.id for c in claims]
    if ids and not any(i in records for i in ids):
        return {"status": NOT_RUN, "status_line": NOT_RUN, "trust": {}, "weakest": ""}
    return R.result_of(records, ids)


def _environment(sec: Section, block: Block) -> str:
    """The result as an amsthm environment named and numbered as in the paper (the unit's heading carries
    the title, so the environment has none)."""
    body = block.statement or "(see the derivation)"
    if sec.kind in _ENV and sec.number.isdigit():
        env = _ENV[sec.kind]
        return ("\\setcounter{%s}{%d}\n\\begin{%s}\\label{res:%s}\n%s\n\\end{%s}\n"
                % (env, int(sec.number) - 1, env, sec.id, body, env))
    name = sec.name or sec.kind or "Statement"
    return ("\\renewcommand{\\namedname}{%s}\n\\begin{named}\\label{res:%s}\n%s\n\\end{named}\n"
            % (name, sec.id, body))


def _bookmarked(tex: str) -> str:
    """LaTeX text whose $...$ parts get a plain form for the PDF bookmarks (\\texorpdfstring)."""
    return re.sub(r"\$([^$]*)\$", lambda m: "\\texorpdfstring{$%s$}{%s}" % (
        m.group(1), re.sub(r"\\[A-Za-z]+|[{}^_]", "", m.group(1)).strip()), tex)


def _heading_tex(text: str) -> str:
    """A heading given as LaTeX text with $...$ mathematics: text parts escaped, mathematics kept (with a
    plain-text form for the PDF bookmarks)."""
    parts = re.split(r"(\$[^$]*\$)", text)
    out = []
    for p in parts:
        if p.startswith("$"):
            plain = re.sub(r"\\[A-Za-z]+|[{}^_$]", "", p).strip()
            out.append("\\texorpdfstring{%s}{%s}" % (p, plain))
        else:
            out.append(reader.escape(p))
    return "".join(out)


def render_section(sec: Section, block: Block, claims, records, home: dict | None = None, *,
                   all_claims=None, fig_dir=None, root=None, tex_dir=None, labels: dict | None = None) -> str:
    """The LaTeX fragment of one unit (starts with \\subsection, ends with a newline).

    `claims` are the claims backing the unit (`claims_for`), `records` the check records (by id, or a list),
    `home` the unit each claim is shown in (default: computed over every registered unit), `all_claims` the
    registry (for the names of weakest steps), `labels` the labels of the argued and cited steps
    (`records.numbered_steps`, default: computed from `records`)."""
    all_claims = list(all_claims) if all_claims is not None else list(claims)
    records = R.by_id(records or {})
    labels = R.numbered_steps(records) if labels is None else labels
    if home is None:
        home = homes(sections(), all_claims)
    by_id = {c.id: c for c in all_claims}
    own = [c for c in claims if home.get(c.id, sec.id) == sec.id]
    elsewhere = [c for c in claims if c not in own]
    if home is not None and sec.id in {s.id for s in sections()}:
        elsewhere = [c for c in pointers(sec, all_claims, home) if c in claims]
    parts = ["%% fragment %s: generated by l2g derive; do not edit\n" % sec.id,
             "\\subsection{%s}\\label{sec:%s}\n" % (_heading_tex(sec.heading), sec.id)]
    if sec.where:
        parts.append("\\noindent{\\small In the paper: %s.}\\par\n" % reader.escape(sec.where))
    parts.append(_environment(sec, block))
    if block.assumptions:
        parts.append("\\noindent\\fieldname{assumptions} %s.\\par\n" % "; ".join(block.assumptions))
    if block.derivation or block.entries or block.extra:
        parts.append("\\paragraph{Derivation.} %s\n" % block.derivation)
        parts.extend(merge_displays([e.render() for e in block.entries]))
        if block.extra:
            parts.append(block.extra)
    fig = F.BY_UNIT.get(sec.id)
    if fig is not None:
        parts.append(F.figure_tex(fig, fig_dir, root, tex_dir))
    shown = own + elsewhere
    result = unit_result(shown, records)
    parts.append("\\paragraph{Proof steps as checked.} ")
    if not shown:
        parts.append("No registered claim backs this result yet.\n")
    else:
        box = _statusbox(result["status"], result["status_line"])
        if len(shown) == 1:
            parts.append("Status: %s, that of its one step.\n" % box)
        else:
            parts.append("Status: %s, the weakest of its %d steps%s.\n" % (
                box, len(shown), "" if not elsewhere else " (%d of them shown elsewhere)" % len(elsewhere)))
        if own:
            parts.append("\\begin{steps}\n")
            parts.extend(_step(c, records.get(c.id), home, by_id, labels) for c in own)
            parts.append("\\end{steps}\n")
        if elsewhere:
            parts.append("\\noindent{\\small Also backed by: %s.}\\par\n" % "; ".join(
                "%s %s (shown under \\hyperref[sec:%s]{%s})" % (
                    _record_box(records.get(c.id)), _title(c), home[c.id],
                    _heading_tex(_heading_of(home[c.id]))) for c in elsewhere))
        if result.get("trust"):
            parts.append("\\paragraph{Trust base.} {\\small %s}\\par\n" % ST.trust_tex(
                result["trust"], records, labels, line=result["status_line"]))
    return "".join(parts)


def _heading_of(sec_id: str) -> str:
    from .registry import SECTIONS
    s = SECTIONS.get(sec_id)
    return (s.name or s.title) if s else sec_id


# ---------------------------------------------------------------------------------------------
# Front matter, errata, appendices
# ---------------------------------------------------------------------------------------------

def provenance_tex(prov) -> str:
    """The lines of the title page that say what built this document: the package version, the commit (or why
    there is none) and the date with its source (`provenance.Provenance`)."""
    commit = ("\\texttt{%s}" % reader.escape(prov.commit)
              + (" with uncommitted changes" if prov.modified else "")) if prov.commit else reader.escape(prov.commit_text())
    return ("{\\small\\begin{tabular}{@{}r@{\\enspace}l@{}}\n"
            "version & \\texttt{local2global} %s\\\\\n"
            "commit & %s\\\\\n"
            "date & %s\\\\\n"
            "\\end{tabular}}" % (reader.escape(prov.version), commit, reader.escape(prov.date_text())))


def _front(records: dict, claims, secs, prov, home: dict) -> str:
    from local2global.proofs.outputs.report import coverage
    counts = {s: 0 for s in LADDER}
    for r in records.values():
        counts[r.get("status", "failed")] = counts.get(r.get("status", "failed"), 0) + 1
    out = [r"""\title{Local to Global: derivations and machine checks\\[0.5ex]
\large An appendix to Makkuva, Bondaschi, Ekbote, Girish, Nagle, Kim and Gastpar,\\
\emph{Local to Global: Learning Dynamics and Effect of Initialization for Transformers},\\ NeurIPS 2024}
\author{Generated by the \texttt{local2global} companion\\[1ex]
""" + provenance_tex(prov) + r"""}
\date{\small How to cite: \hyperref[sec:cite]{Appendix~\ref*{sec:cite}}}
\maketitle
\begin{abstract}
\noindent Every numbered result of the paper that concerns the canonical model is restated here from
expressions derived from scratch with SymPy (the logit is computed by running the rank-one transformer
symbolically, the optimal bias by solving the first-order condition, the critical points by solving
$\nabla L = 0$, the energy by integrating the flow equations), followed by what was computed and by its
proof steps as a registry of machine checks established them. Each step says how it was established (exact,
interval arithmetic, sampled, an experiment, argued in prose, or cited), what it states and what it found;
every check was also run on an altered statement (its negative control), which it had to reject; every result
lists its trust base: the claims it rests on, the software trusted, and every argued and cited step. Two results
of the paper do not hold as printed; they are listed in the Errata with the printed and the corrected form side by
side.
\end{abstract}
"""]
    out.append("\\section*{How to read this document}\\label{sec:ladder}\\addcontentsline{toc}{section}{How to read this document}\n")
    out.append("Statuses, strongest first. A step's own status is what its check established; its status is the "
               "weakest over its own and those of every step it uses (a theorem is as strong as its weakest "
               "step). A result's status is the weakest of its steps. A status line names what a result rests on "
               "that no machine checked: its argued steps and its cited theorems (``proved, 2 argued steps'').\n\n")
    out.append("\\begin{center}\\small\\begin{tabular}{@{}l p{0.72\\textwidth}@{}}\\toprule\n")
    for s in LADDER:
        out.append("%s & %s\\\\\n" % (_statusbox(s), reader.escape(MEANING[s])))
    out.append("\\bottomrule\\end{tabular}\\end{center}\n")
    if records:
        out.append("\\noindent This build: %d checked claims: %s.\n\n" % (
            len(records), ", ".join("%d %s" % (counts.get(s, 0), s) for s in LADDER)))
    else:
        out.append("\\noindent This build has no check records: the statuses below read ``not run''.\n\n")
    # the coverage of the numbered results
    unit_of_result = {}
    for s in secs:
        if s.kind in ("Lemma", "Theorem", "Remark", "Figure"):
            kind = s.kind
            for n in s.number.split("/"):
                unit_of_result[f"{kind} {n}"] = s.id
    recs = list(records.values())
    rows = coverage(recs) if recs else coverage([dict(id=c.id, ref=c.ref, status=NOT_RUN) for c in claims])
    out.append("\\begin{center}\\small\n\\begin{longtable}{@{}l p{0.42\\textwidth} p{0.26\\textwidth} l@{}}\n")
    out.append("\\caption{The paper's numbered results and their status in this build.}\\label{tab:coverage}\\\\\n")
    out.append("\\toprule Result & Title & Status & Shown in\\\\\\midrule\\endfirsthead\n"
               "\\toprule Result & Title & Status & Shown in\\\\\\midrule\\endhead\n\\bottomrule\\endfoot\n")
    for row in rows:
        st = row["status"] if recs else (NOT_RUN if row["claims"] else "uncovered")
        box = _statusbox(st, row["status_line"] if recs else st) if st in LADDER or st == NOT_RUN else \
            "\\textit{%s}" % reader.escape("not checkable" if row["note"].startswith("not machine-checkable") else st)
        # the unit of the result itself, else the one its claims are shown in (Remark 3 under Lemma 4)
        unit = unit_of_result.get(row["result"]) or next((home[c] for c in row["claims"] if c in home), None)
        shown = ("\\hyperref[sec:%s]{Section~\\ref*{sec:%s}}" % (unit, unit) if unit else
                 "\\textit{no section (no claim)}")
        out.append("%% result: %s\n%s & %s & %s & %s\\\\\n" % (row["result"], reader.escape(row["result"]),
                                                             reader.authored(row["title"]), box, shown))
    out.append("\\end{longtable}\n\\end{center}\n")
    return "".join(out)


def _forms_tex(rows) -> str:
    if rows is None:
        return ""
    return "\\newline ".join(("%s: %s" % (reader.mixed(k), reader.mixed(v))) if k else reader.mixed(v)
                             for k, v in rows)


def errata_section(records, claims, labels: dict | None = None) -> str:
    """The errata: every claim whose printed form failed and whose correction passed (from the records), or,
    without records, every claim that declares a correction (as not run). The printed and the corrected form (as
    the check compares them) side by side, and beside each the steps of its check: those of the printed form
    fail, those of the corrected form pass."""
    records = R.by_id(records or {})
    labels = R.numbered_steps(records) if labels is None else labels
    out = ["\\section{Errata}\\label{sec:errata}\n"]
    if records:
        errata = [c for c in claims if records.get(c.id, {}).get("status") == "erratum"]
        out.append("The checks found %d place%s where a statement of the paper, as printed, fails while a "
                   "corrected form passes the same check (whose negative control is rejected).\n"
                   % (len(errata), "" if len(errata) == 1 else "s"))
    else:
        errata = [c for c in claims if c.corrected is not None or c.erratum]
        out.append("%d registered claim%s declare a correction of the paper (this build has no check records).\n"
                   % (len(errata), "" if len(errata) == 1 else "s"))
    if not errata:
        out.append("No erratum was found.\n")
    for c in errata:
        rec = records.get(c.id)
        title = _bookmarked(_title(c))
        out.append("\\subsection*{%s: %s}\n" % (reader.authored(c.ref), title))
        out.append("\\addcontentsline{toc}{subsection}{%s: %s}\n" % (reader.authored(c.ref), title))
        out.append("\\noindent %s\\ \\stepid{%s}\\par\n" % (_record_box(rec), reader.escape(c.id)))
        if c.erratum:
            out.append("\\noindent %s\\par\n" % reader.authored(c.erratum))
        shown = forms.claim_forms(c)
        steps_of = {"As printed in the paper": (rec or {}).get("printed_steps", []),
                    "Corrected": (rec or {}).get("steps", []) if rec and rec.get("printed_steps") else []}
        if shown:
            # one table: the two forms side by side, then their steps row by row (a long table breaks between rows)
            width = "%.2f\\textwidth" % (0.94 / len(shown))
            out.append("\\par\\medskip{\\small\\begin{longtable}{@{}%s@{}}\\toprule\n"
                       % " ".join(["@{}>{\\raggedright\\arraybackslash}p{%s}@{\\hspace{0.03\\textwidth}}" % width]
                                  * len(shown)))
            heads = []
            for heading, _, _ in shown:
                verdict = {"As printed in the paper": " (fails)", "Corrected": " (passes)"}.get(heading, "") if rec else ""
                heads.append("\\textbf{%s%s}" % (heading, verdict))
            out.append(" & ".join(heads) + "\\\\\\midrule\n")
            out.append(" & ".join("\\fieldname{form} " + (_forms_tex(rows) if rows is not None else
                                                           "\\textit{%s}" % reader.escape(why))
                                  for _, rows, why in shown) + "\\\\\n")
            columns = [steps_of.get(heading, []) for heading, _, _ in shown]
            if any(columns):
                out.append(" & ".join("\\fieldname{steps of its check}" if col else "" for col in columns)
                           + "\\\\\n")
            for i in range(max(map(len, columns))):
                out.append(" & ".join(ST.step_tex(col[i]) if i < len(col) else ""
                                      for col in columns) + "\\\\[0.6ex]\n")
            out.append("\\bottomrule\n\\end{longtable}}\n")
        if rec and rec.get("control_steps"):
            out.append("{\\small %s}\\par\n" % ST.record_tex(dict(rec, steps=[], printed_steps=[], corroborations=[]),
                                                           labels))
    return "".join(out)


def claims_appendix(records: dict, claims) -> str:
    """Every registered claim with its reference and its status line (the same as in the report and on the
    site), in registry order."""
    out = ["\\section{The claims and their statuses}\\label{sec:claims}\n",
           "Every claim of the registry with the status line of its record (what it rests on that no machine "
           "checked is named in it).\n",
           "\\begin{center}\\small\n\\begin{longtable}{@{}p{0.3\\textwidth} p{0.28\\textwidth} p{0.34\\textwidth}@{}}\n"
           "\\toprule Claim & Reference & Status\\\\\\midrule\\endfirsthead\n"
           "\\toprule Claim & Reference & Status\\\\\\midrule\\endhead\n\\bottomrule\\endfoot\n"]
    for c in claims:
        rec = records.get(c.id)
        out.append("%% claim: %s\n\\texttt{%s} & %s & %s\\\\\n" % (c.id, reader.escape(c.id), reader.authored(c.ref),
                                                                  _record_box(rec)))
    out.append("\\end{longtable}\n\\end{center}\n")
    return "".join(out)


REPRODUCE = r"""\section{How to reproduce}\label{sec:reproduce}
Everything in this document is regenerated by the companion's command-line tool from a clean checkout:
\begin{itemize}
\item \texttt{l2g all} runs every check, writes the report, renders the figures (the training runs and the
basin maps with attention take several minutes on first use and are cached), and compiles this document;
\item \texttt{l2g check -{}-only ID} reruns one step; the identifier is printed at the right of each step;
\item \texttt{l2g derive -{}-pdf} rebuilds this document from the records of the last check run;
\item \texttt{l2g figures} renders the figures alone; \texttt{l2g flow -{}-suite} integrates the flows on both
sides of every basin boundary.
\end{itemize}
Numbers on the command line are read exactly (\texttt{0.9} is $9/10$). The document is deterministic: its date
is the commit's (or \texttt{SOURCE\_DATE\_EPOCH}), never the clock, so two builds of one commit from the same
records are identical byte for byte.
"""


@dataclass(frozen=True)
class Document:
    """The derivations document: the full standalone `tex` and one fragment per unit id."""

    tex: str
    fragments: dict = field(default_factory=dict)


def cite_section(prov) -> str:
    """The appendix "How to cite": the BibTeX entries of `provenance.bibtex` (the README prints the same), with
    this build's version."""
    from local2global.proofs.outputs import provenance
    return ("\\section{How to cite}\\label{sec:cite}\n"
            "Please cite the paper and, for the derivations and checks of this document, the companion at the version "
            "on the title page (BibTeX; the repository's \\texttt{CITATION.cff} holds the same data):\n"
            "{\\footnotesize\n\\begin{verbatim}\n%s\\end{verbatim}\n}\n" % provenance.bibtex(prov.version))


def build_document(records=None, claims=None, fig_dir=None, tex_dir=None, provenance=None) -> Document:
    """Build every registered unit (no check is run); `claims` defaults to the registry.

    `records` (`Record`s or their dicts, a list or by id, as `records.load_records` reads them from the
    checks.json of `l2g check`) give the statuses and the steps; `fig_dir` is
    where `l2g figures` wrote the figures; figure paths are written relative to `tex_dir`, where
    derivations.tex goes (also where the report's dependency graph is looked for). `provenance` (a
    `provenance.Provenance`, default that of the running code) is printed on the title page.
    """
    from local2global.proofs.outputs import provenance as P
    prov = P.current() if provenance is None else provenance
    if claims is None:
        from local2global.proofs import select
        claims = select()
    claims = list(claims)
    records = R.by_id(records or {})
    labels = R.numbered_steps(records)
    secs = sections()
    home = homes(secs, claims)
    fragments = {}
    for sec in secs:
        fragments[sec.id] = render_section(sec, sec.build(), claims_for(sec, claims), records, home,
                                           all_claims=claims, fig_dir=fig_dir, root=tex_dir, tex_dir=tex_dir,
                                           labels=labels)
    body = []
    for key, heading, where, intro in TOPICS:
        members = [s for s in secs if s.topic == key]
        if not members:
            continue
        body.append("\\section{%s}\\label{topic:%s}\n\\noindent{\\small In the paper: %s.}\\par\n%s\n\n"
                    % (reader.escape(heading), key, reader.escape(where), intro))
        body.extend(fragments[s.id] + "\n" for s in members)
    body.append(errata_section(records, claims, labels))
    body.append("\\appendix\n")
    if records:
        body.append("\\section{Argued and cited steps}\\label{sec:argued}\n"
                    "Every step of the records that no machine checked: the argued steps with their whole argument, "
                    "the cited theorems with their reference. The trust bases above name them by these labels.\n"
                    + ST.argued_and_cited_tex(records, labels))
        body.append(claims_appendix(records, claims))
    body.append("\\section{Additional figures}\\label{sec:extra_figures}\n"
                "Figures that are not in the paper: the basins with attention, which the paper does not state (by "
                "integration and from our closed form), and the dependency graph of the checks.\n")
    for fig in F.FIGURES:
        if fig.unit is None:
            body.append(F.figure_tex(fig, fig_dir, tex_dir, tex_dir))
    body.append("\\clearpage\n" + REPRODUCE)
    body.append(cite_section(prov))
    tex = (PREAMBLE + _status_macros() + "\\begin{document}\n\\sloppy\n" + _front(records, claims, secs, prov, home)
           + "{\\hypersetup{linkcolor=black}\\tableofcontents}\n\\clearpage\n\n" + "".join(body) + "\\end{document}\n")
    return Document(tex=tex, fragments=fragments)


def write_document(out_dir, doc: Document):
    """Write doc's fragments (out_dir/fragments/<id>.tex), then derivations.tex; return the .tex path.

    Each file is written atomically; the document was built in memory before any file is touched.
    """
    from pathlib import Path

    from local2global.numeric.infra.atomic import atomic_write

    out_dir = Path(out_dir)
    (out_dir / "fragments").mkdir(parents=True, exist_ok=True)
    for ident, frag in doc.fragments.items():
        atomic_write(out_dir / "fragments" / f"{ident}.tex", frag)
    return atomic_write(out_dir / "derivations.tex", doc.tex)
