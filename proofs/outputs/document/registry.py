r"""The document's units: one per result of the paper, grouped by topic, with the claims that back it.

A unit is a function returning a `Block` (the statement, the derivation and the derived formulas of one
paper result), registered with `section`::

    @section("optimal_bias", order=240, topic="landscape", kind="Lemma", number="5", title="Optimal bias",
             where="App. E", refs=("Lemma 5",))
    def _optimal_bias() -> Block:
        opt = canonical_model().optimal_bias              # every formula from symbolic/
        return Block(ref="Lemma 5", statement=..., derivation=..., entries=(Entry("b^\\star", opt["b_star"]),))

`order` fixes the position in the document, `topic` the paper topic (a top-level section, `TOPICS`),
`kind`/`number` the paper's name of the result (typeset as an amsthm environment: "Lemma 5"), `refs` the
paper labels whose claims back the unit (a claim matches when one of its labels, e.g. "Thm 6/7" ->
Thm 6 and Thm 7, is in `refs`). `id` names the fragment file `fragments/<id>.tex`.

Blocks hold LaTeX text (mathematics in `$...$`) and SymPy objects; they are rendered twice, by
`assemble.render_section` (the PDF) and by the blueprint site (`site._block_html`, MathML), so their
LaTeX stays within what both understand: `align*`, `itemize`, `\paragraph`, inline mathematics.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Iterable

import sympy as sp

from . import layout


@dataclass(frozen=True)
class Entry:
    """One displayed formula `lhs = expr` (expr: SymPy object or ready LaTeX) with an optional note (LaTeX text)."""

    lhs: str
    expr: object
    note: str = ""
    rel: str = "="

    def render(self) -> str:
        head = ("\\noindent %s\n" % self.note) if self.note else ""
        if isinstance(self.expr, sp.MatrixBase):
            return head + layout.display_matrix(self.lhs, self.expr)
        return head + layout.display(self.lhs, self.expr, self.rel)


@dataclass(frozen=True)
class Block:
    """One unit's content: paper reference, the statement as derived, assumptions, how it was derived,
    the derived formulas (`entries`) and ready LaTeX appended after them (`extra`). Text fields are LaTeX
    text with `$...$` mathematics."""

    ref: str
    assumptions: tuple[str, ...] = ()
    derivation: str = ""
    entries: tuple = ()
    extra: str = ""
    statement: str = ""


@dataclass(frozen=True)
class Section:
    """A registered unit: fragment id, position, title, paper labels of its claims, builder, and where it sits
    in the paper (topic, kind and number of the result, section of the paper)."""

    id: str
    order: int
    title: str
    refs: tuple[str, ...]
    build: Callable[[], Block]
    topic: str = "setting"
    kind: str = ""
    number: str = ""
    where: str = ""
    only_topic: bool = False        # match only claims of this unit's topic (see `CLAIM_TOPIC`)

    @property
    def heading(self) -> str:
        """'Lemma 5 (Optimal bias)', or the title alone for a result the paper does not number."""
        name = self.name
        return f"{name} ({self.title})" if name else self.title

    @property
    def name(self) -> str:
        """The paper's name: 'Lemma 5', 'Lemmas 1 and 9', 'Equations (39)--(41)', 'Figure 1' ('' if unnumbered)."""
        if not self.kind or not self.number:
            return ""
        if "/" in self.number:
            return "%ss %s" % (self.kind, " and ".join(self.number.split("/")))
        if self.kind == "Equation":
            return "Equation (%s)" % self.number
        if self.kind == "Equations":
            return "Equations (%s)" % self.number.replace("-", ")--(")
        return f"{self.kind} {self.number}"


#: the paper's topics, in document order: (key, heading, where in the paper, introduction)
TOPICS = (
    ("setting", "The Markov chain and the canonical model", "Sec. 2, Sec. 3, App. C",
     r"The data is a stationary binary first-order Markov chain with switching probabilities "
     r"$p = P(x_{n+1} = 1 \mid x_n = 0)$ and $q = P(x_{n+1} = 0 \mid x_n = 1)$, $(p, q) \in (0, 1)^2$. "
     r"On the canonical rank-one manifold the single-layer transformer has four scalars: the embedding $e$, "
     r"the feed-forward weight $w$, the bias $b$ and, in Sec.~4.1, the attention scalar $a$."),
    ("landscape", "The loss landscape", "Sec. 3, App. D, App. E",
     r"The loss with bias $L(e, w, b)$ and the reduced loss $L(e, w) = \min_b L(e, w, b)$: optimal bias, "
     r"gradients, Hessians and every critical point with its class. Everything factors through the slope "
     r"$A = z_1 - z_0$ of the logit and the offset $z_0$: $L(e, w, b) = F(A, z_0)$ and $L(e, w) = G(A)$ with "
     r"$G$ strictly convex."),
    ("flow", "Gradient flow in the plane", "Sec. 4, App. F",
     r"The gradient flow $\dot\theta_t = -\nabla L(\theta_t)$ of the reduced loss in $\mathbb{R}^2$: the conserved "
     r"energy, its analysis on the $w$-axis, and the basins of the global and the bad local minima."),
    ("attention", "The attention scalar", "Sec. 4.1, App. G",
     r"With the attention scalar $a$ the canonical model has three parameters $(e, w, a)$, four with the bias. "
     r"The same structure $L = G(A)$ holds with a new slope $A(e, w, a)$; a new stationary set appears."),
    ("full", "The full transformer", "Sec. 5, App. A, App. H",
     r"The full single-layer transformer (softmax attention, ReLU feed-forward layer, tied head) in double "
     r"precision with its exact population loss over all $2^N$ sequences, compared with the canonical model, "
     r"and the paper's training experiments."),
    ("untied", "Beyond the paper: weight tying", "Sec. 2 (the premise); our result",
     r"The paper ties the output head to the token embedding, on the strength of two results of its reference [23]. "
     r"Here both are checked, and the model without tying is derived from the transformer with the same machinery: "
     r"its critical points and their classes, the conserved quantities of its gradient flow, where that flow ends, "
     r"and the full untied transformer against the derivation."),
)
TOPIC_KEYS = tuple(t[0] for t in TOPICS)

SECTIONS: dict[str, Section] = {}


def section(id: str, *, order: int, title: str, refs: Iterable[str] = (), topic: str = "setting", kind: str = "",
            number: str = "", where: str = "", only_topic: bool = False):
    """Decorator registering a `() -> Block` function as a unit of the derivations document."""
    if not re.fullmatch(r"[a-z0-9_]+", id):
        raise ValueError(f"section id must be [a-z0-9_]+ (it names a file): {id!r}")
    if topic not in TOPIC_KEYS:
        raise ValueError(f"unknown topic {topic!r}")

    def deco(fn):
        if id in SECTIONS:
            raise ValueError(f"section {id!r} registered twice")
        SECTIONS[id] = Section(id=id, order=order, title=title, refs=tuple(refs), build=fn, topic=topic,
                               kind=kind, number=str(number), where=where, only_topic=only_topic)
        return fn
    return deco


def sections() -> list[Section]:
    """Registered units in document order (the section modules are imported on first use)."""
    from . import units as _register  # noqa: F401 - importing registers every unit
    return sorted(SECTIONS.values(), key=lambda s: (s.order, s.id))


_LABEL = re.compile(r"(Lemma|Lemmas|Thm|Thms|Theorem|Remark|Eq\.|Sec\.|App\.|Cor\.|Prop\.|Fig\.|Figs\.|Figure)"
                    r"\s*([0-9][0-9/,\s]*)")
_KIND = {"Lemmas": "Lemma", "Thms": "Thm", "Theorem": "Thm", "Figs.": "Fig.", "Figure": "Fig."}


def labels(ref: str) -> set[str]:
    """Paper labels in a reference string: 'Thm 6/7 (ii)' -> {'Thm 6', 'Thm 7'}."""
    return set(ordered_labels(ref))


def ordered_labels(ref: str) -> list[str]:
    """Paper labels in the order the reference names them ('Fig. 2 / Fig. 5' -> ['Fig. 2', 'Fig. 5'])."""
    out: list[str] = []
    for kind, nums in _LABEL.findall(ref or ""):
        kind = _KIND.get(kind, kind)
        for n in re.split(r"[/,\s]+", nums.strip()):
            if n and f"{kind} {n}" not in out:
                out.append(f"{kind} {n}")
    return out


def _exact(ref: str) -> bool:
    """A unit ref with a qualifier ("Sec. 4 (I_common)") matches that claim reference exactly, not by label."""
    return "(" in ref


def claims_for(sec: Section, claims) -> list:
    """The registry's claims whose paper labels meet the unit's `refs` (registry order); a ref with a
    qualifier in parentheses matches only claims with exactly that reference."""
    wanted = set().union(*(labels(r) for r in sec.refs if not _exact(r))) if sec.refs else set()
    exact = {r for r in sec.refs if _exact(r)}
    return [c for c in claims if (c.ref in exact or labels(c.ref) & wanted)
            and (not sec.only_topic or CLAIM_TOPIC.get(getattr(c, "section", ""), None) == sec.topic)]


def pointers(sec: Section, claims, home: dict) -> list:
    """Claims that back this unit but are shown in full in another one (their home names their reference
    exactly, or they match this unit only by a label)."""
    out = []
    for c in claims_for(sec, claims):
        h = home.get(c.id)
        if h is None or h == sec.id or c.ref in set(SECTIONS[h].refs):
            continue
        out.append(c)
    return out


#: a claim's `section` (its topic in the registry) -> the document topic it is shown in
CLAIM_TOPIC = {"setting": "setting", "canonical": "setting", "bias": "landscape", "landscape": "landscape",
               "critical": "landscape", "certified": None, "flow": "flow", "attention": "attention",
               "full model": "full", "untied": "untied"}


def homes(secs: list[Section], claims) -> dict[str, str]:
    """The unit each claim is shown in full (claim id -> section id): a unit naming its reference exactly;
    else, among the units whose refs meet its labels (preferring units of the claim's own topic), the first
    one matching the claim's first label. Other matching units only point to it."""
    out = {}
    for c in claims:
        matching = [s for s in secs if claims_for(s, [c])]
        if not matching:
            continue
        exact = [s for s in matching if c.ref in s.refs]
        if exact:
            out[c.id] = exact[0].id
            continue
        topic = CLAIM_TOPIC.get(getattr(c, "section", ""), None)
        same = [s for s in matching if topic is None or s.topic == topic] or matching
        best = None
        for lab in ordered_labels(c.ref):
            best = next((s for s in same if lab in set().union(*(labels(r) for r in s.refs if not _exact(r)))), None)
            if best is not None:
                break
        out[c.id] = (best or same[0]).id
    return out
