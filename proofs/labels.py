"""The paper's numbered results and the one parser of the references that name them.

`NUMBERED_RESULTS` lists every numbered result of the paper with its title; `ref_mentions` reads the results a
claim reference names ("Thm 2 (ii) / Thm 8 (ii)", "Lemmas 9-12", "Fig. 1 (a)"); `parse_label` reads one label a
reader typed ("Lem. 12", "thm2", "Fig. 1a"). The report's coverage (`outputs.report`), the selection language of
`--only` (`proofs.selection`) and the site's search read labels with these, so a label means the same everywhere.
Standard library only: the registry, the selection and every output module import it, it imports none of them.
"""
from __future__ import annotations

import re

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


#: a numbered result's position in the paper (the report's tables and graph are in this order)
RESULT_ORDER = {name: i for i, (name, _, _) in enumerate(NUMBERED_RESULTS)}


def numbered_results(ref: str) -> list[str]:
    """The numbered results ("Lemma 9", "Theorem 2", ...) named in a claim reference such as
    "Thm 2 (ii)", "Lemma 1/9", "Lemmas 9-12" or "Fig. 1 (a)"; unknown numbers are dropped."""
    return [name for name, _ in ref_mentions(ref) if name in RESULT_ORDER]


def parse_label(text: str) -> tuple[str, tuple[str, ...]] | None:
    """(label, sub-items) if `text` is one paper label ("Thm. 2 (i)" -> ("Theorem 2", ("i",))), else None.

    A figure sub-item may also follow the number directly ("Fig. 1a", "fig1a")."""
    t = " ".join(str(text).split()).rstrip(".")
    t = re.sub(r"(?i)^(fig(?:ure)?s?\.?\s*\d+)([a-h])$", r"\1 (\2)", t)
    if not _REF_RE.fullmatch(t):
        return None
    found = ref_mentions(t)
    return found[0] if len(found) == 1 else None
