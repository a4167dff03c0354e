r"""What a unit of the derivations document is, and the list the units register into.

A unit module (`units/*.py`) imports `section`, `Block` and `Entry` from here; `registry` reads `SECTIONS` once it
has imported the units (`registry.sections`). Kept apart from `registry` so that no import circle joins the units
to the module that imports them. The registry's docstring says how a unit is written.
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
