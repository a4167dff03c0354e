"""A derived result: what the paper calls it, under which assumptions, and its SymPy expressions."""
from __future__ import annotations

from dataclasses import dataclass, field

import sympy as sp


@dataclass(frozen=True)
class Result:
    """One named result of the paper as derived here.

    `ref` is the paper's label ("Lemma 5", "Thm 1 (ii)"), `assumptions` says under which sign of
    e and w and which regime of p+q it holds, `expressions` maps names to the derived SymPy
    expressions (in insertion order, which the LaTeX output keeps), `derivation` says in one
    or two sentences how they were obtained.
    """

    ref: str
    title: str
    assumptions: tuple[str, ...]
    expressions: dict[str, sp.Basic] = field(default_factory=dict)
    derivation: str = ""

    def __getitem__(self, name: str) -> sp.Basic:
        return self.expressions[name]
