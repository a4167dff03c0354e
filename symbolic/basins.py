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
from ._cache import derivation
from ._result import Result
from ._symbols import e, w, w_neg, w_pos

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


# ---------------------------------------------------------------------------------------------
# The proof of Thms 2 and 8 as a decision procedure over derived facts
# ---------------------------------------------------------------------------------------------

#: the pieces of the w-line the argument distinguishes (w_sad = -1/sqrt 2, derived)
W_SIDES = ("w>0", "w=0", "(w_sad,0)", "w_sad", "(-inf,w_sad)")
s_par = sp.Symbol("s", positive=True)


def _on(interval: str, s=s_par):
    """A point of the open interval as a function of s > 0 (s -> 0 at its left end, s -> oo at its right end
    for the bounded interval): (0, oo): w = s; (w_sad, 0): w = w_sad/(1 + s); (-oo, w_sad): w = w_sad - s."""
    w_sad = _energy.energy_on_w_axis()["w_sad"]
    return {"w>0": s, "(w_sad,0)": w_sad / (1 + s), "(-inf,w_sad)": w_sad - s}[interval]


def _sign_on(expr_in_w: sp.Expr, interval: str) -> int:
    """The constant sign of an expression of w on an open interval, decided by SymPy (0 if it cannot)."""
    wb = w_pos if interval == "w>0" else w_neg
    x = sp.factor(sp.cancel(expr_in_w.subs(w, wb).subs(wb, _on(interval))))
    return 1 if x.is_positive else (-1 if x.is_negative else 0)


@derivation
def contour_facts() -> Result:
    r"""The derived facts the limit of every flow in R^2 rests on (the proof of Thms 2 and 8).

    * A = e^2 V(w) with V = A/e^2 = 1 + 2w|w|: the sign of V on each piece of the w-line (so A has the sign
      of V off e = 0), and V(0) = 1;
    * ∂_w A / e^2 = 4|w| > 0 off w = 0: along the flow ẇ = -G'(A) ∂_w A has the sign of -(A - A*)
      (`landscape`: G' has the sign of A - A*), and the sign of e never changes (e = 0 is critical);
    * f = E(0, ·) is monotone on each piece, with f < E_sad on w < 0 except f(w_sad) = E_sad (Lemma 12), so on
      the contour E = E0 (e^2 = E0 - f(w)) the flow heading to w_sad reaches the w-axis first if E0 < E_sad,
      the saddle if E0 = E_sad, and crosses w = w_sad with e != 0 (a regular point, A = 0) if E0 > E_sad;
    * along the contour, e^2 = E0 - f(w) -> -oo as w -> 0+ (the contour ends on the w-axis before w = 0) and
      -> +oo as w -> -oo, 0-, +oo, where A = (E0 - f)V tends to -oo, +oo and +oo: a flow moving away from
      the level A = 0 on such a branch reaches A* (Lemma 10's boundedness).
    """
    A = canonical_model().A
    V = sp.cancel(A / e**2)
    dAdw = sp.cancel(sp.diff(A, w) / e**2)
    ew = _energy.energy_on_w_axis()
    E_sad, w_sad = ew["E_sad"], ew["w_sad"]
    f = {"w>0": _energy.f_w_axis("w>0").subs(w_pos, w), "w<0": _energy.f_w_axis("w<0").subs(w_neg, w)}
    df = {k: sp.diff(v, w) for k, v in f.items()}
    pieces = ("w>0", "(w_sad,0)", "(-inf,w_sad)")
    half = {"w>0": "w>0", "(w_sad,0)": "w<0", "(-inf,w_sad)": "w<0"}
    V_sign = {k: _sign_on(V, k) for k in pieces}
    V_sign["w=0"], V_sign["w_sad"] = int(sp.sign(V.subs(w, 0))), int(sp.sign(sp.simplify(V.subs(w, w_sad))))
    dAdw_sign = {k: _sign_on(dAdw, k) for k in pieces}
    f_sign = {k: _sign_on(df[half[k]], k) for k in pieces}
    # f < E_sad on w < 0 off w_sad (Lemma 12 (iii)): E_sad - f = phi(t)/2 with t = 2w^2 and phi(t) = t - 1 - log t;
    # phi(1) = 0 and phi' = (t - 1)/t is negative on (0, 1) and positive on (1, oo), so phi > 0 on both
    t, phi = _energy.t_pos, ew["t_minus_1_minus_log_t_over_2"]
    gap_ok = sp.expand(ew["E_sad_minus_f_in_t"] - phi) == 0 and phi.subs(t, 1) == 0
    dphi = sp.factor(sp.diff(phi, t))
    left_dec = sp.factor(dphi.subs(t, 1 / (1 + s_par))).is_negative        # t in (0, 1)
    right_inc = sp.factor(dphi.subs(t, 1 + s_par)).is_positive              # t in (1, oo)
    t_on = {"(w_sad,0)": sp.factor(2 * _on("(w_sad,0)") ** 2), "(-inf,w_sad)": sp.factor(2 * _on("(-inf,w_sad)") ** 2)}
    t_side = {k: (1 if sp.factor(v - 1).is_positive else (-1 if sp.factor(v - 1).is_negative else 0)) for k, v in t_on.items()}
    below = {k: (1 if gap_ok and ((t_side[k] < 0 and left_dec) or (t_side[k] > 0 and right_inc)) else 0)
             for k in t_side}
    at_sad = sp.simplify(E_sad - f["w<0"].subs(w, w_sad))
    E0 = _energy.E0
    e2 = {k: E0 - f[k] for k in f}
    lim = {
        "e2(0+)": sp.limit(e2["w>0"].subs(w, s_par), s_par, 0, "+"),
        "e2(+oo)": sp.limit(e2["w>0"].subs(w, s_par), s_par, sp.oo),
        "e2(0-)": sp.limit(e2["w<0"].subs(w, -s_par), s_par, 0, "+"),
        "e2(-oo)": sp.limit(e2["w<0"].subs(w, -s_par), s_par, sp.oo),
        "A(+oo)": sp.limit((e2["w>0"] * V).subs(w, w_pos).subs(w_pos, s_par), s_par, sp.oo),
        "A(0-)": sp.limit((e2["w<0"] * V).subs(w, w_neg).subs(w_neg, -s_par), s_par, 0, "+"),
        "A(-oo)": sp.limit((e2["w<0"] * V).subs(w, w_neg).subs(w_neg, -s_par), s_par, sp.oo),
    }
    return Result(
        ref="Thm 2 / Thm 8 (proof)",
        title="Facts behind the limit of every flow in R^2",
        assumptions=("(p, q) in (0,1)^2, p + q != 1", "theta_0 in R^2"),
        expressions={"V": V, "dA_dw_over_e2": dAdw, "V_sign": V_sign, "dA_dw_sign": dAdw_sign, "f_sign": f_sign,
                     "E_sad_minus_f_sign": below, "E_sad_minus_f_at_w_sad": at_sad, "limits": lim},
        derivation="Signs decided by SymPy on each piece of the w-line written as a function of s > 0; limits by "
                   "sp.limit along a contour E = E0 with E0 a free symbol.",
    )


def _direction_towards_saddle(side: str, w_dot: int) -> bool:
    return (side == "(w_sad,0)" and w_dot < 0) or (side == "(-inf,w_sad)" and w_dot > 0)


def limit_rule(regime: int, w_side: str, e_sign: int, E_side: int | None, facts: dict | None = None) -> str:
    r"""The class of the limit of the flow from a start with the given sign data, by the argument of the proof
    of Thms 2 and 8, consulting only the derived `contour_facts` (pass `facts` to try other facts).

    regime = sign(p + q - 1) = -sign(A*) (±1); w_side in `W_SIDES`; e_sign = sign(e); E_side = sign(E - E_sad)
    for w < 0 (None elsewhere). Returns global_min, local_min, local_max or saddle; raises if the facts do
    not decide the case (a gap in the argument, never a silent guess).
    """
    F = facts if facts is not None else contour_facts().expressions
    V, dA, fs, lim = F["V_sign"], F["dA_dw_sign"], F["f_sign"], F["limits"]

    def axis_class(side):                      # a point of e = 0 off the saddle (derived classes of Thm 1)
        return "local_min" if regime * V[side] > 0 else "local_max"

    if e_sign == 0:                             # the w-axis is critical: the flow stays
        return "saddle" if w_side == "w_sad" else axis_class(w_side)
    if w_side == "w=0":                         # the e-axis is invariant; A = e^2 V(0)
        if regime * V["w=0"] > 0:               # A0 and A* on opposite sides of 0: |e| shrinks to the origin
            return axis_class("w=0")
        return "global_min"                     # |e| moves monotonically to the point of Theta* on the axis
    sA0 = V[w_side]                             # sign of A0 (e != 0)
    if sA0 != regime:
        # A0 on the side of A* (or A0 = 0 at a regular point): A moves monotonically to A* without meeting a
        # critical point of A (all of which have A = 0); the branches ahead are unbounded in A (limits), so A* is met
        if not (lim["A(+oo)"] == sp.oo and lim["A(-oo)"] == -sp.oo and lim["A(0-)"] == sp.oo):
            raise ValueError("the contour branches do not reach every level of A: the argument does not apply")
        return "global_min"
    # A0 and A* on opposite sides of 0: w moves in the direction -sign(A0 - A*) = -regime
    if dA.get(w_side, 0) <= 0:
        raise ValueError(f"the sign of dA/dw on {w_side} is not positive: the direction of the flow is undecided")
    w_dot = -regime
    if w_side == "w>0":
        if not (w_dot < 0 and lim["e2(0+)"] == -sp.oo):
            raise ValueError("on w > 0 the flow does not run into the w-axis")
        return axis_class("w>0")               # the contour ends on the w-axis at some w > 0
    if not _direction_towards_saddle(w_side, w_dot):
        raise ValueError(f"on {w_side} the flow does not head to the saddle")
    # towards w_sad, f increases to E_sad (f' has the sign of the motion's approach): compare E0 with E_sad
    approaching = fs[w_side] * w_dot > 0
    if not (approaching and F["E_sad_minus_f_sign"][w_side] > 0 and F["E_sad_minus_f_at_w_sad"] == 0):
        raise ValueError(f"f does not rise to E_sad along the motion on {w_side}")
    if E_side is None:
        raise ValueError("E - E_sad is needed on w < 0")
    if E_side < 0:
        return axis_class(w_side)               # e^2 = E0 - f reaches 0 before w_sad: an end on the w-axis
    if E_side == 0:
        return "saddle"
    return "global_min"                         # crosses w = w_sad with e != 0 (A = 0, a regular point), then as above


def sign_cases(regime: int):
    """Every feasible sign datum (w_side, e_sign, E_side) for the rule and the sets of Thms 2 / 8.

    Feasibility is Lemma 12 (iii): on w < 0 with e = 0, E = f(w) < E_sad except at w_sad; at w_sad with e != 0,
    E > E_sad; E - E_sad is only used where w < 0."""
    out = []
    for side in W_SIDES:
        for es in (-1, 0, 1):
            if side in ("w>0", "w=0"):
                out.append((side, es, None))
            elif side == "w_sad":
                out.append((side, es, 0 if es == 0 else 1))
            else:
                for Es in ((-1,) if es == 0 else (-1, 0, 1)):
                    out.append((side, es, Es))
    return out


def set_class(regime_label: str, w_side: str, e_sign: int, E_side: int | None, g: sp.Expr | None = None) -> str:
    """The class that the sets of Thm 2 / Thm 8 (`basins(regime, g)`) give to a start with this sign datum.

    Each atomic condition is read off the datum: w, w - w_sad from `w_side`, e from `e_sign`, and |e| - g(w)
    from E_side, which is legitimate exactly when g(w)^2 = E_sad - f(w) and g >= 0 on w < 0 (checked by the
    caller for the g it passes): then |e| - g has the sign of e^2 + f - E_sad = E - E_sad."""
    w_sign = {"w>0": 1, "w=0": 0, "(w_sad,0)": -1, "w_sad": -1, "(-inf,w_sad)": -1}[w_side]
    sad_sign = {"w>0": 1, "w=0": 1, "(w_sad,0)": 1, "w_sad": 0, "(-inf,w_sad)": -1}[w_side]
    eg = _abs_e_minus_g(g)
    op = {"<": lambda s: s < 0, ">": lambda s: s > 0, "==": lambda s: s == 0, "<=": lambda s: s <= 0,
          ">=": lambda s: s >= 0}
    for bset in basins(regime_label, g):
        if bset.pieces is None:
            return bset.limit_class
        for pc in bset.pieces:
            ok = True
            for ex, o in pc.conditions:
                if ex == w:
                    s = w_sign
                elif ex == e:
                    s = e_sign
                elif ex == eg:
                    s = E_side
                elif sp.expand(ex - (w - _energy.energy_on_w_axis()["w_sad"])) == 0:
                    s = sad_sign
                else:
                    raise ValueError(f"condition {ex} is not read off the sign data")
                if s is None or not op[o](s):
                    ok = False
                    break
            if ok:
                return bset.limit_class
    raise AssertionError("the sets do not cover the plane")
