r"""Basins of convergence of the gradient flow in R^2 (Thm 2 for p+q > 1, Thm 8 for p+q < 1, I_common).

The sets are built from the *derived* objects: g(w) and E_sad from `energy`, the critical sets and
A* from `landscape`. Each basin is a union of pieces; a piece is a conjunction of sign conditions
``(expr, op)`` meaning ``expr op 0`` with op in {"<", ">", "==", "<=", ">="}, evaluated left to right
(conditions that need w < 0, such as |e| - g(w), come after it). That keeps the sets both printable
(`as_boolean`) and usable numerically (`local2global.numeric.dynamics.basins` evaluates the conditions with
mpmath and a precision-aware tolerance for "== 0").

Pieces written by the paper with "otherwise" (I*) are the complement, in the order I_sad, I_max,
I_min, I*; `I_common` is a separate set, claimed to lie in I* for every (p, q).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import sympy as sp

from . import energy as _energy
from . import landscape as _landscape
from .model import canonical_model
from ._result import Result
from ._symbols import e, w, w_neg

REGIMES = ("p+q>1", "p+q<1")
CLASSES = ("global_min", "local_min", "local_max", "saddle")
OPS = {"<": sp.StrictLessThan, ">": sp.StrictGreaterThan, "==": sp.Eq, "<=": sp.LessThan, ">=": sp.GreaterThan}


@dataclass(frozen=True)
class Piece:
    """One conjunction of sign conditions ``expr op 0`` in (e, w), evaluated left to right."""

    conditions: tuple[tuple[sp.Expr, str], ...]

    def as_boolean(self) -> sp.Boolean:
        return sp.And(*[OPS[op](ex, 0) for ex, op in self.conditions])


@dataclass(frozen=True)
class Basin:
    """A basin of Thm 2 / Thm 8: the paper's name, the class of the limit, its pieces (None = complement)."""

    name: str
    limit_class: str
    pieces: tuple[Piece, ...] | None

    def as_boolean(self) -> sp.Boolean:
        if self.pieces is None:
            return sp.Symbol("otherwise")
        return sp.Or(*[pc.as_boolean() for pc in self.pieces])


def _abs_e_minus_g(g: sp.Expr | None = None) -> sp.Expr:
    """|e| - g(w) in the real symbol w (valid for w < 0); g defaults to the derived saddle asymptote."""
    g = _energy.g_of_w().subs(w_neg, w) if g is None else g
    return sp.Abs(e) - g


@lru_cache(maxsize=None)
def basins(regime: str, g: sp.Expr | None = None) -> tuple[Basin, ...]:
    r"""Thm 2 (p+q > 1) or Thm 8 (p+q < 1): the ordered basins (I_sad, I_max, I_min, I*); first match wins.

    p+q > 1: I_min = {w > 0} ∪ {w = 0} ∪ {-1/√2 < w < 0, |e| < g(w)}; I_sad = {-1/√2 <= w < 0, |e| = g(w)};
    I_max = Θmax = {e = 0, w < -1/√2}; I* = the rest.
    p+q < 1: I_min = {w < -1/√2, |e| < g(w)}; I_sad = {w <= -1/√2, |e| = g(w)}; I_max = Θmax =
    {e = 0, w > -1/√2} (the origin included); I* = the rest (the e-axis without the origin included).
    The line w = -1/√2 is read off the derived saddle (`energy_on_w_axis()["w_sad"]`). `g` (an expression
    in the real symbol w) replaces the derived g(w): the proof checks pass the paper's printed g here.
    """
    if regime not in REGIMES:
        raise ValueError(f"regime must be one of {REGIMES}")
    w_sad = _energy.energy_on_w_axis()["w_sad"]
    eg = _abs_e_minus_g(g)
    if regime == "p+q>1":
        I_sad = Basin("I_sad", "saddle", (Piece(((w, "<"), (w - w_sad, ">="), (eg, "=="))),))
        I_max = Basin("I_max", "local_max", (Piece(((e, "=="), (w - w_sad, "<"))),))
        I_min = Basin("I_min", "local_min", (Piece(((w, ">"),)), Piece(((w, "=="),)),
                                             Piece(((w, "<"), (w - w_sad, ">"), (eg, "<")))))
    else:
        I_sad = Basin("I_sad", "saddle", (Piece(((w, "<"), (w - w_sad, "<="), (eg, "=="))),))
        I_max = Basin("I_max", "local_max", (Piece(((e, "=="), (w - w_sad, ">"))),))
        I_min = Basin("I_min", "local_min", (Piece(((w, "<"), (w - w_sad, "<"), (eg, "<"))),))
    I_star = Basin("I_star", "global_min", None)
    return (I_sad, I_max, I_min, I_star)


@lru_cache(maxsize=None)
def basin_sets(regime: str) -> Result:
    """Thm 2 / Thm 8 basins as a Result (SymPy Booleans; I_star is 'otherwise')."""
    bs = basins(regime)
    return Result(
        ref="Thm 2" if regime == "p+q>1" else "Thm 8",
        title=f"Basins of convergence for {regime}",
        assumptions=(regime, "theta_0 in R^2"),
        expressions={b.name: b.as_boolean() for b in bs},
        derivation="Sets of the theorem written with the derived g(w) and w_sad; I* is the complement.",
    )


@lru_cache(maxsize=None)
def I_common(g: sp.Expr | None = None) -> Piece:
    r"""I_common = {w < 0, |e| > g(w)}: claimed to reach a global minimum for every (p, q)."""
    return Piece(((w, "<"), (_abs_e_minus_g(g), ">")))


@lru_cache(maxsize=None)
def limit_equations() -> Result:
    r"""The equation pair fixing the limit of a start in I*: E(e, w) = E_0 and A(e, w) = A*.

    A* = log((1-p)(1-q)/(pq)) is the derived root of G'(A) = 0 (`landscape.structure`); on w < 0
    (the paper's case) A = e^2(1 - 2w^2). Eliminating e^2 with E = e^2 + f(w) leaves one equation
    in w: (E_0 - f(w))(1 + 2w|w|) = A*, whose root on the contour component is unique (App. F).
    """
    A_star = _landscape.A_star()
    Aexpr = canonical_model().A
    E0 = _energy.E0
    out = {}
    for lab, wb in _energy.HALF_PLANES.items():
        Eb = _energy.energy(lab)
        fb = _energy.f_w_axis(lab)
        out[f"pair_{lab}"] = sp.Matrix([Eb - E0, Aexpr.subs(w, wb) - A_star])
        out[f"in_w_{lab}"] = sp.expand((E0 - fb) * (Aexpr.subs(w, wb) / e**2)) - A_star
    out["A_star"] = A_star
    return Result(
        ref="Thm 2 (proof) / Thm 8",
        title="Limit of a start in I*",
        assumptions=("theta_0 in I*", "w_0 != 0"),
        expressions=out,
        derivation="E(e, w) = E_0 (Lemma 11) intersected with Theta* = {A = A*} (Thm 1); e^2 eliminated.",
    )
