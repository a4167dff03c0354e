r"""The basin sets of the gradient flow: one type for R^2 (Thms 2, 8) and R^3 (Thms A, B), one operator table.

A theorem's sets are an ordered tuple of `Basin`s, read first match first: a start belongs to the first basin one of
whose pieces it satisfies; the last basin has `pieces = None`, the complement ("a global minimum otherwise"). A
`Piece` is a conjunction of sign conditions ``(expr, op)`` meaning ``expr op 0``, op a key of `RELATIONS`, tested
left to right and no further than the first that fails (a condition that needs w < 0, such as |e| - g(w), comes
after w < 0).

* R^2 (`basins.basins`): expr is a SymPy expression in (e, w) built from the derived objects (g(w), w_sad).
* R^3 (`basins_r3.theorem_sets`): expr is written in (e, w, a) and in the quantities the theorems name that have no
  closed form in (e, w, a), as undefined functions: U(e, a), y_S(a), w_c(e, a), ... (`basins_r3.QUANTITIES`).

The sets are read three ways, all through `Piece.holds` with a `sign_of(expr)` of the reader's: on the sign data of
the proofs (`basins.set_class`, `basins_r3.set_class_r3`), numerically at a start (`numeric.dynamics.basins`), over
numpy arrays (`numeric.evaluate.engine.basin_labels`); and printed (`Basin.as_boolean`, the document's LaTeX).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import sympy as sp


@dataclass(frozen=True)
class Relation:
    """One operator of the sign conditions: ``x op 0`` as SymPy builds it, as LaTeX prints it, and as a test on a
    number, a sign or a numpy array (`holds` compares with 0 and works elementwise on arrays)."""

    op: str
    sympy: type
    latex: str
    holds: Callable


#: the one operator table of the basin sets (R^2 and R^3; symbolic, numeric and printed)
RELATIONS = {r.op: r for r in (
    Relation("<", sp.StrictLessThan, "<", lambda x: x < 0),
    Relation(">", sp.StrictGreaterThan, ">", lambda x: x > 0),
    Relation("==", sp.Eq, "=", lambda x: x == 0),
    Relation("!=", sp.Ne, r"\neq", lambda x: x != 0),
    Relation("<=", sp.LessThan, r"\leq", lambda x: x <= 0),
    Relation(">=", sp.GreaterThan, r"\geq", lambda x: x >= 0),
)}


def relation_of(rel: sp.Basic) -> Relation:
    """The operator of a SymPy relation `lhs op rhs` (its `holds` tests lhs - rhs)."""
    for r in RELATIONS.values():
        if type(rel) is r.sympy:
            return r
    raise ValueError(f"not a relation of the table: {rel}")


def holds(op: str, x) -> bool:
    """``x op 0`` (x a number, a sign, or a numpy array: then elementwise)."""
    return RELATIONS[op].holds(x)


@dataclass(frozen=True)
class Piece:
    """One conjunction of sign conditions ``expr op 0``, tested left to right."""

    conditions: tuple[tuple[sp.Expr, str], ...]

    def __post_init__(self):
        bad = [op for _, op in self.conditions if op not in RELATIONS]
        if bad:
            raise ValueError(f"unknown relation {bad[0]!r}: one of {sorted(RELATIONS)}")

    def as_boolean(self) -> sp.Boolean:
        return sp.And(*[RELATIONS[op].sympy(ex, 0) for ex, op in self.conditions])

    def holds(self, sign_of: Callable) -> bool:
        """Whether every condition holds, `sign_of(expr)` giving the sign (or value) of each expr, None where it is
        undefined (the condition then fails); stops at the first condition that fails."""
        for ex, op in self.conditions:
            s = sign_of(ex)
            if s is None or not holds(op, s):
                return False
        return True


@dataclass(frozen=True)
class Basin:
    """A basin of a theorem: its name, the class of the limit, its pieces (None: the complement of the earlier ones)."""

    name: str
    limit_class: str
    pieces: tuple[Piece, ...] | None

    def as_boolean(self) -> sp.Boolean:
        if self.pieces is None:
            return sp.Symbol("otherwise")
        return sp.Or(*[pc.as_boolean() for pc in self.pieces])


def first_match(sets, sign_of: Callable) -> Basin:
    """The basin a start belongs to: the first one with a piece that holds (`Piece.holds` with `sign_of`), the
    complement (pieces None) as soon as it is reached."""
    for b in sets:
        if b.pieces is None or any(pc.holds(sign_of) for pc in b.pieces):
            return b
    raise ValueError("the sets do not cover the space (no complement at the end)")


def replace_condition(sets, basin: str, old: tuple, new: tuple) -> tuple[Basin, ...]:
    """The sets with the condition `old` replaced by `new` in every piece of the basin named `basin` (an altered
    statement: the negative controls of the proofs build theirs with it)."""
    out = []
    for b in sets:
        if b.name == basin and b.pieces is not None:
            b = Basin(b.name, b.limit_class, tuple(Piece(tuple(new if c == old else c for c in pc.conditions))
                                                   for pc in b.pieces))
        out.append(b)
    return tuple(out)
