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


def _on_piece(expr_in_w: sp.Expr, interval: str) -> sp.Expr:
    """An expression of w on an open piece of the w-line, as a factored expression of s > 0 (`_on`)."""
    wb = w_pos if interval == "w>0" else w_neg
    return sp.factor(sp.cancel(expr_in_w.subs(w, wb).subs(wb, _on(interval))))


def _sign_of(x: sp.Expr) -> int:
    """+1 / -1 if SymPy decides x (an expression of s > 0) positive / negative, else 0."""
    return 1 if x.is_positive else (-1 if x.is_negative else 0)


def _sign_on(expr_in_w: sp.Expr, interval: str) -> int:
    """The constant sign of an expression of w on an open interval, decided by SymPy (0 if it cannot)."""
    return _sign_of(_on_piece(expr_in_w, interval))


@derivation
def contour_facts() -> Result:
    r"""The derived facts the limit of every flow in R^2 rests on (the proof of Thms 2 and 8).

    * A = e^2 V(w) with V = A/e^2 = 1 + 2w|w|: the sign of V on each piece of the w-line (so A has the sign
      of V off e = 0), V(0) = 1 and V(w_sad) = 0; A = 0 on the w-axis;
    * ∂_w A / e^2 = 4|w| > 0 off w = 0 (at w_sad too): along the flow ẇ = -G'(A) ∂_w A has the sign of
      -(A - A*) (G' has the sign of A - A*: G'' > 0 and G'(A*) = 0, `landscape.structure`), and
      sign A* = -sign(p + q - 1) (exp(A*) - 1 = (1 - p - q)/(pq));
    * f = E(0, ·) is monotone on each piece, with f < E_sad on w < 0 except f(w_sad) = E_sad (Lemma 12), and
      its limits at the ends of the pieces (-oo at w -> -oo, 0-, +oo; +oo at 0+);
    * along the contour E = E0 (e^2 = E0 - f(w), E0 a free symbol): e^2 -> -oo as w -> 0+ (the contour ends on
      the w-axis before w = 0) and -> +oo as w -> -oo, 0-, +oo, where A = (E0 - f)V tends to -oo, +oo, +oo;
      at w_sad, A = (E0 - E_sad) V(w_sad) = 0; on the e-axis A = e^2 V(0) -> +oo as |e| -> oo.

    `V_on`, `dA_dw_on`, `df_on` hold the expressions whose signs were decided (each piece written as a function
    of s > 0, `_on`), for the exact obligations of the proof record. `limit_walk` reads these facts only.
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
    V_on = {k: _on_piece(V, k) for k in pieces}
    dAdw_on = {k: _on_piece(dAdw, k) for k in pieces}
    df_on = {k: _on_piece(df[half[k]], k) for k in pieces}
    V_sign = {k: _sign_of(x) for k, x in V_on.items()}
    V_sign["w=0"], V_sign["w_sad"] = int(sp.sign(V.subs(w, 0))), int(sp.sign(sp.simplify(V.subs(w, w_sad))))
    dAdw_sign = {k: _sign_of(x) for k, x in dAdw_on.items()}
    dAdw_sign["w_sad"] = int(sp.sign(sp.simplify(dAdw.subs(w, w_sad))))
    f_sign = {k: _sign_of(x) for k, x in df_on.items()}
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
    # the ends of the pieces: f there (Lemma 12's limits; E_sad at w_sad) and A along a contour with e != 0
    f_end = {"-oo": ew["f(-inf)"], "w_sad": E_sad if at_sad == 0 else sp.nan, "0-": ew["f(0-)"],
             "0+": ew["f(0+)"], "+oo": ew["f(+inf)"]}
    A_end = {"-oo": lim["A(-oo)"], "0-": lim["A(0-)"], "+oo": lim["A(+oo)"],
             "w_sad": sp.simplify((E0 - f["w<0"].subs(w, w_sad)) * V.subs(w, w_sad))}
    A_star = _landscape.A_star()
    p, q = sorted(A_star.free_symbols, key=lambda x: x.name)
    star_vs_regime = -1 if sp.simplify(sp.exp(A_star) - 1 - (1 - p - q) / (p * q)) == 0 else 0
    st = _landscape.structure()
    return Result(
        ref="Thm 2 / Thm 8 (proof)",
        title="Facts behind the limit of every flow in R^2",
        assumptions=("(p, q) in (0,1)^2, p + q != 1", "theta_0 in R^2"),
        expressions={"V": V, "dA_dw_over_e2": dAdw, "V_sign": V_sign, "dA_dw_sign": dAdw_sign, "f_sign": f_sign,
                     "E_sad_minus_f_sign": below, "E_sad_minus_f_at_w_sad": at_sad, "limits": lim,
                     "f_end": f_end, "A_end": A_end, "A_on_w_axis": sp.expand(A.subs(e, 0)),
                     "A_e_axis_end": sp.limit(A.subs(w, 0).subs(e, s_par), s_par, sp.oo),
                     "A_star_sign_times_regime": star_vs_regime,
                     "G_prime_sign_rule": bool(st["G_second_positive"] == sp.true and st["G_prime_at_A_star"] == 0),
                     "V_on": V_on, "dA_dw_on": dAdw_on, "df_on": df_on},
        derivation="Signs decided by SymPy on each piece of the w-line written as a function of s > 0; limits by "
                   "sp.limit along a contour E = E0 with E0 a free symbol; sign A* from exp(A*) - 1 = (1-p-q)/(pq).",
    )


# ---------------------------------------------------------------------------------------------
# The limit of every flow: a walk along its contour, computed from the derived facts
# ---------------------------------------------------------------------------------------------
#
# Off the axes the flow stays on its contour E = E0 with the sign of e fixed (Lemma 9), a graph over w on
# which it solves a one-dimensional equation ẇ = F(w), F = -G'(A) ∂_wA, of the sign -(A - A*) ∂_wA. Its limit
# is the first zero of F met in the direction of motion: a point of Θ* (A = A*) or an end of the contour on
# the w-axis (e = 0). `limit_walk` computes, per sign datum, the direction of motion, the end of each piece
# of the w-line the flow heads to, the value of A there, and whether A (monotone towards A*) can reach that
# value; the class of the point reached is read off Thm 1's derived families. What it takes from arguments
# in prose rather than from SymPy is `ARGUED` (with `Premises`, the switches a test turns to mutate it).

#: the ends (left, right) of each open piece of the w-line
PIECE_ENDS = {"(-inf,w_sad)": ("-oo", "w_sad"), "(w_sad,0)": ("w_sad", "0-"), "w>0": ("0+", "+oo")}
#: the open piece a flow enters when it crosses w_sad moving with the sign d of ẇ
_BEYOND_W_SAD = {1: "(w_sad,0)", -1: "(-inf,w_sad)"}
#: the pieces and points of the w-line in words
PIECE_WORDS = {"w>0": "w > 0", "w=0": "w = 0", "(w_sad,0)": "w in (w_sad, 0)", "w_sad": "w = w_sad",
               "(-inf,w_sad)": "w < w_sad"}
INTERVAL_WORDS = {"w>0": "(0, +oo)", "(w_sad,0)": "(w_sad, 0)", "(-inf,w_sad)": "(-oo, w_sad)"}
END_WORDS = {"-oo": "w -> -oo", "w_sad": "w_sad", "0-": "w -> 0-", "0+": "w -> 0+", "+oo": "w -> +oo"}

#: the argued steps of the walk: (what each states, the whole argument). The records print them in full.
ARGUED = {
    "one_dimensional": (
        r"Off the axes the flow solves a one-dimensional equation $\dot w = F(w)$ along its contour branch and "
        r"converges to the first zero of $F$ in its direction of motion (bounded), or leaves every compact part "
        r"of the branch if there is none; on the $e$-axis the same holds for $|e|$.",
        "By Lemma 9, E(theta_t) = E_0 for all t, and E = e^2 + f(w) on each half-plane (exact), so theta_t lies on "
        "{e^2 = E_0 - f(w)}; e keeps its sign (every point of e = 0 is critical and solutions are unique, Lemma 9, "
        "e-axis), so theta_t lies on the branch e = sign(e_0) sqrt(E_0 - f(w)), a graph over the open interval J "
        "of w (in the half-line of w_0) on which E_0 - f > 0. Along it w solves w' = F(w) with F(w) = "
        "-G'(a(w)) (E_0 - f(w)) dA/dw / e^2, a(w) = (E_0 - f(w)) V(w), and F is locally Lipschitz on J. A solution "
        "of a scalar autonomous equation with a locally Lipschitz field is monotone (F keeps its sign between its "
        "zeros, and by uniqueness no solution reaches a zero in finite time), so it either converges to a finite "
        "limit, which is a zero of F (else the solution would move on), and then to the first zero of F met in "
        "its direction of motion, or it leaves every compact subinterval of J in that direction. In the first "
        "case theta_t converges to the point of the branch over that zero; it stays on the compact arc between "
        "w_0 and the zero, on which e^2 = E_0 - f(w) is continuous, hence bounded. A zero of F in J has A = A* "
        "(G' = 0: a point of Theta*); at an end of J on the w-axis e = 0 (grad A = 0: a critical point of Thm 1). "
        "On the e-axis (w_0 = 0, invariant) the coordinate r = |e| solves r' = -G'(A) dA/dr with A = r^2 V(0), "
        "and the same argument applies with J = (0, oo)."),
    "a_towards_A_star": (
        r"Along the flow $A$ moves strictly monotonically towards $A^\star$ and never passes it, so an end of a "
        r"piece where $A$ takes a value not strictly between its current value and $A^\star$ is not reached: the "
        r"flow meets $\Theta^\star$ first.",
        "dA/dt = grad A . theta' = -G'(A) |grad A|^2 (theta' = -G'(A) grad A), and G'(A) has the sign of A - A* "
        "(G'' > 0 and G'(A*) = 0, structure), so A(t) moves strictly towards A* while grad A != 0 (e != 0), and "
        "it cannot pass A*: every point of {A = A*} is an equilibrium, and solutions are unique. Since w(t) is "
        "monotone (the one-dimensional step), a(w) = A along the part of the branch the flow traverses is "
        "monotone from A_0 towards A*. Suppose the end of the current piece in the direction of motion has a "
        "value of A (computed: 0 where the branch meets the w-axis and at w_sad, +oo or -oo at the unbounded "
        "ends) that does not lie strictly between A_0 and A*. Reaching it, a would leave the interval between "
        "A_0 and A* or pass A*: impossible. So the flow stays in a compact part of the piece, where by the "
        "one-dimensional step it converges to a zero of F; e != 0 there, so that zero has A = A*: a point of "
        "Theta*."),
}


@dataclass(frozen=True)
class Premises:
    """What `limit_walk` takes from `ARGUED`, as switches (tests turn them to mutate the argued steps):
    `motion` = 1: the one-dimensional solution moves with the sign of its field (-1: against it);
    `a_monotone`: an end whose value of A is not strictly between the current A and A* is not reached."""

    motion: int = 1
    a_monotone: bool = True


PREMISES = Premises()


@dataclass(frozen=True)
class Limit:
    """Where the flow from a sign datum ends, as `limit_walk` computed it: the class of the limit, the point
    (in words), the events of the walk (sentences), and whether the limit is a finite point."""

    limit_class: str
    point: str
    events: tuple[str, ...]
    finite: bool = True


def _landmarks(sA: int) -> dict:
    """Positions on the extended line of values of A: the landmarks -oo, A*, 0, +oo at even indices in their
    order (A* < 0 if sA < 0), the open gaps between them at the odd indices."""
    order = ("-oo", "A*", "0", "+oo") if sA < 0 else ("-oo", "0", "A*", "+oo")
    return {name: 2 * i for i, name in enumerate(order)}


def _value_words(v) -> str:
    return {sp.oo: "+oo", -sp.oo: "-oo"}.get(v, str(v))


def _index_of(value, lm: dict) -> int:
    if value == sp.oo:
        return lm["+oo"]
    if value == -sp.oo:
        return lm["-oo"]
    if value == 0:
        return lm["0"]
    raise ValueError(f"a value of A at an end that the walk cannot place among -oo, 0, A*, +oo: {value}")


def _gaps_of_sign(s: int, lm: dict) -> list[int]:
    """The positions a value of A of sign s can take (the gaps on that side of 0; the landmark 0 for s = 0)."""
    if s == 0:
        return [lm["0"]]
    return [i for i in (1, 3, 5) if (i > lm["0"]) == (s > 0)]


def _sgn(x) -> int:
    return int(bool(x > 0)) - int(bool(x < 0))


def _position_words(pos: int, lm: dict) -> str:
    names = {v: k for k, v in lm.items()}
    if pos in names:
        return f"A = {names[pos]}"
    lo, hi = names[pos - 1], names[pos + 1]
    return f"{lo} < A < {hi}"


@lru_cache(maxsize=None)
def _family_class(regime: int, where: str, star: bool = False) -> tuple[str, str]:
    """(class, family name) of a critical point by Thm 1's derived families (`critical_sets`): a point of Θ*
    (`star`), or the point (0, w) of the w-axis with w on the piece `where` (or w = w_sad, w = 0), its family
    found by the family's equations and the sign of its derived condition there (regime = sign(p + q - 1))."""
    w_sad = _energy.energy_on_w_axis()["w_sad"]
    A, A_star = canonical_model().A, _landscape.A_star()
    found = []
    for cs in canonical_model().critical_sets(False):
        eqs = [x for x in cs.equations if isinstance(x, sp.Eq)]
        diffs = [sp.expand(x.lhs - x.rhs) for x in eqs]
        if star:
            if len(diffs) == 1 and sp.expand(diffs[0] - (A - A_star)) == 0 and cs.condition is sp.true:
                found.append(cs)
            continue
        if not any(d in (e, -e) for d in diffs):
            continue
        on = True
        for d in diffs:
            if d in (e, -e):
                continue
            if d.free_symbols != {w} or not sp.Poly(d, w).is_linear:
                raise ValueError(f"{cs.name}: an equation the walk cannot read: {d} = 0")
            c = sp.solve(d, w)[0]
            at = {"w_sad": w_sad, "w=0": sp.Integer(0)}.get(where)
            on = on and (sp.simplify(c - at) == 0 if at is not None else _in_piece(c, where, w_sad))
        if on and _condition_holds(cs.condition, regime, where, w_sad):
            found.append(cs)
    if len(found) != 1:
        raise ValueError(f"{len(found)} derived families contain the point ({'Theta*' if star else where})")
    return found[0].classification, found[0].name


def axis_family_class(regime: int, where: str) -> str:
    """The class Thm 1's derived families give to the points (0, w) of the w-axis with w on `where`."""
    return _family_class(regime, where)[0]


def _in_piece(c, piece: str, w_sad) -> bool:
    """Whether the number c lies in the open piece (exact comparisons)."""
    lo, hi = {"w>0": (0, sp.oo), "(w_sad,0)": (w_sad, 0), "(-inf,w_sad)": (-sp.oo, w_sad)}[piece]
    return bool(sp.simplify(c - lo) > 0) and bool(sp.simplify(hi - c) > 0)


def _condition_holds(cond, regime: int, where: str, w_sad) -> bool:
    """A derived condition (True, or `expr > 0` / `expr < 0` with expr a product of factors in p, q and in w) at
    the points of `where`, for every (p, q) of the regime: each factor's sign is decided (p + q - 1 by the regime,
    positive factors in p, q by SymPy, factors in w on the piece by `_sign_on` or at the point)."""
    if cond is sp.true:
        return True
    if not isinstance(cond, (sp.StrictGreaterThan, sp.StrictLessThan)) or cond.rhs != 0:
        raise ValueError(f"a condition the walk cannot read: {cond}")
    const, facs = sp.factor_list(cond.lhs)
    s = _sgn(const)
    for fac, k in facs:
        syms = {x.name for x in fac.free_symbols}
        if syms <= {"p", "q"}:
            pq1 = sum(x for x in fac.free_symbols) - 1
            fs = regime if sp.expand(fac - pq1) == 0 else (1 if fac.is_positive else (-1 if fac.is_negative else 0))
        elif syms == {"w"}:
            at = {"w_sad": w_sad, "w=0": sp.Integer(0)}.get(where)
            fs = int(sp.sign(sp.simplify(fac.subs(w, at)))) if at is not None else _sign_on(fac, where)
        else:
            fs = 0
        if fs == 0 and k:
            if syms == {"w"} and where in ("w_sad", "w=0"):
                return False                      # the factor vanishes at the point: no strict inequality
            raise ValueError(f"the sign of the factor {fac} of {cond} is not decided on {where}")
        s *= fs ** k
    return s > 0 if isinstance(cond, sp.StrictGreaterThan) else s < 0


def limit_walk(regime: int, w_side: str, e_sign: int, E_side: int | None, facts: dict | None = None,
               premises: Premises | None = None) -> Limit:
    r"""The limit of the flow from a start with this sign datum, computed by walking along its contour
    (regime = sign(p + q - 1); w_side in `W_SIDES`; e_sign = sign(e); E_side = sign(E - E_sad) for w < 0).

    A start on e = 0 is critical. Otherwise the value A0 of A has the sign of V on the start's piece, and A* the
    sign -regime (facts); where these agree, A0 may lie between 0 and A* or beyond A*, and both are walked (they
    must end alike). From a position of A among -oo, A*, 0, +oo: ẇ has the sign -(A - A*) (dA/dw) (times
    `motion`); the end of the piece ahead is read off the facts (f rising along the motion towards +oo or E_sad:
    the branch meets the w-axis inside the piece, at w_sad, or crosses w_sad with e != 0, by the sign of
    E - E_sad; f falling: the branch is unbounded there), with the value of A there (0 or the limits); if A,
    monotone towards A*, cannot reach that value the flow ends on Θ*; else on the w-axis point reached (its
    class from Thm 1's derived families), or it crosses w_sad and walks on. Raises ValueError wherever the facts
    do not decide (a gap in the argument, never a guess)."""
    F = facts if facts is not None else contour_facts().expressions
    P = premises if premises is not None else PREMISES
    if not F["G_prime_sign_rule"] or F["A_star_sign_times_regime"] not in (1, -1):
        raise ValueError("the sign of G'(A) or of A* is not derived: the direction of the flow is undecided")
    sA = F["A_star_sign_times_regime"] * regime
    lm = _landmarks(sA)
    if e_sign == 0:
        cls, fam = _family_class(regime, w_side)
        return Limit(cls, f"(0, w) with {PIECE_WORDS[w_side]}", (f"e = 0: a critical point ({fam}); the flow stays",))
    on_axis = w_side == "w=0"
    s0 = F["V_sign"].get(w_side, 0)
    if s0 == 0 and w_side != "w_sad":
        raise ValueError(f"the sign of A on {w_side} is not decided")
    walks = [_walk_e_axis(regime, pos, F, P, lm) if on_axis else _walk(regime, w_side, pos, E_side, F, P, lm)
             for pos in _gaps_of_sign(s0, lm)]
    classes = {x.limit_class for x in walks}
    if len(classes) != 1:
        raise ValueError(f"the walks from the possible values of A end in different classes: {sorted(classes)}")
    if len(walks) == 1:
        return walks[0]
    events = tuple(f"if {ev}" if i == 0 else ev for x in walks for i, ev in enumerate(x.events))
    return Limit(walks[0].limit_class, walks[0].point, events, all(x.finite for x in walks))


def _star(regime, pos, lm, events, why) -> Limit:
    cls, fam = _family_class(regime, "", star=True)
    return Limit(cls, "Theta*", (*events, f"{why}: the flow meets {fam} (A = A*) first"))


def _reachable(v: int, pos: int, lm: dict) -> bool:
    """v lies strictly between the current position and A*."""
    a = lm["A*"]
    return min(pos, a) < v < max(pos, a)


def _walk(regime, where, pos, E_side, F, P, lm) -> Limit:
    events = [f"{_position_words(pos, lm)} on {PIECE_WORDS[where]}"]
    for _ in range(4):                          # a walk crosses w_sad at most once
        sigma = _sgn(pos - lm["A*"])
        slope = F["dA_dw_sign"].get(where, 0)
        if sigma == 0 or slope == 0:
            raise ValueError(f"the direction of the flow on {where} is undecided")
        d = P.motion * (-sigma) * slope
        if where == "w_sad":                    # e != 0 here: A = 0, a regular point; the flow passes on
            nxt = _BEYOND_W_SAD[d]
            s_next = F["V_sign"][nxt]
            if P.a_monotone and s_next != _sgn(lm["A*"] - lm["0"]):
                raise ValueError(f"A leaves 0 away from A* into {nxt}: the facts contradict the monotonicity of A")
            where, pos = nxt, lm["0"] + s_next
            events.append(f"w {'increases' if d > 0 else 'decreases'} across w_sad into {PIECE_WORDS[nxt]}, "
                          f"{_position_words(pos, lm)}")
            continue
        end = PIECE_ENDS[where][0 if d < 0 else 1]
        rising = F["f_sign"][where] * d         # the sign of df/dt along the motion; e^2 = E0 - f
        fe = F["f_end"][end]
        move = f"w {'increases' if d > 0 else 'decreases'} towards {END_WORDS[end]}"
        if rising > 0 and fe == sp.oo:
            kind, value, what = "axis", F["A_on_w_axis"], f"f rises to +oo: the branch meets the w-axis inside {PIECE_WORDS[where]}"
        elif rising > 0 and end == "w_sad" and F["E_sad_minus_f_at_w_sad"] == 0:
            if F["E_sad_minus_f_sign"].get(where, 0) <= 0:
                raise ValueError(f"f is not below E_sad on {where}: the motion towards w_sad is undecided")
            if E_side is None:
                raise ValueError("the sign of E - E_sad is needed on w < 0")
            if E_side < 0:
                kind, value, what = "axis", F["A_on_w_axis"], ("f rises to E_sad > E0: the branch meets the w-axis "
                                                                f"inside {PIECE_WORDS[where]}")
            elif E_side == 0:
                kind, value, what = "saddle", F["A_end"]["w_sad"], "f rises to E_sad = E0: the branch ends at (0, w_sad)"
            else:
                kind, value, what = "cross", F["A_end"]["w_sad"], "f rises to E_sad < E0: e stays nonzero up to w_sad"
        elif rising < 0 and end in ("-oo", "0-", "+oo") and F["limits"].get(f"e2({end})") == sp.oo:
            kind, value, what = "unbounded", F["A_end"][end], f"f falls to {fe}: the branch is unbounded there"
        else:
            raise ValueError(f"on {where}, f {'rises' if rising > 0 else 'falls'} towards {end}, where it tends to {fe}: "
                             "the end is undecided")
        v = _index_of(value, lm)
        events.append(f"{move}; {what}, where A -> {_value_words(value)}")
        if P.a_monotone and not _reachable(v, pos, lm):
            return _star(regime, pos, lm, events, f"A = {_value_words(value)} is not between the current A and A*")
        if kind == "axis":
            cls, fam = _family_class(regime, where)
            return Limit(cls, f"(0, w_1), w_1 in {INTERVAL_WORDS[where]}",
                         (*events, f"the first zero of the field is that point of the w-axis ({fam})"))
        if kind == "saddle":
            cls, fam = _family_class(regime, "w_sad")
            return Limit(cls, "(0, w_sad)", (*events, f"the first zero of the field is (0, w_sad) ({fam})"))
        if kind == "unbounded":
            return Limit("unbounded", END_WORDS[end], tuple(events), finite=False)
        where, pos = "w_sad", v
    raise ValueError("the walk did not end")


def _walk_e_axis(regime, pos, F, P, lm) -> Limit:
    """The e-axis (w = 0, invariant): r = |e| moves with the sign -(A - A*) dA/dr, dA/dr = 2 r V(0); its ends are
    the origin (A = 0) and r -> oo (A -> `A_e_axis_end`)."""
    events = [f"{_position_words(pos, lm)} on the e-axis"]
    sigma, slope = _sgn(pos - lm["A*"]), F["V_sign"]["w=0"]
    d = P.motion * (-sigma) * slope
    if d < 0:
        kind, value, what = "origin", F["A_on_w_axis"], "|e| decreases towards the origin"
    else:
        kind, value, what = "unbounded", F["A_e_axis_end"], "|e| increases without bound"
    events.append(f"{what}, where A -> {_value_words(value)}")
    if P.a_monotone and not _reachable(_index_of(value, lm), pos, lm):
        return _star(regime, pos, lm, events, f"A = {_value_words(value)} is not between the current A and A*")
    if kind == "origin":
        cls, fam = _family_class(regime, "w=0")
        return Limit(cls, "(0, 0)", (*events, f"the first zero of the field is the origin ({fam})"))
    return Limit("unbounded", "|e| -> oo", tuple(events), finite=False)


def limit_rule(regime: int, w_side: str, e_sign: int, E_side: int | None, facts: dict | None = None) -> str:
    r"""The class of the limit of the flow from a start with the given sign datum (`limit_walk`): global_min,
    local_min, local_max or saddle (or unbounded, which the facts never give). Raises ValueError where the facts
    do not decide the case."""
    return limit_walk(regime, w_side, e_sign, E_side, facts).limit_class


def datum_words(w_side: str, e_sign: int, E_side: int | None) -> str:
    """A sign datum in words: "w in (w_sad, 0), e > 0, E < E_sad"."""
    e_w = {1: "e > 0", -1: "e < 0", 0: "e = 0"}[e_sign]
    E_w = {1: ", E > E_sad", -1: ", E < E_sad", 0: ", E = E_sad", None: ""}[E_side]
    return f"{PIECE_WORDS[w_side]}, {e_w}{E_w}"


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


def piece_holds(piece: Piece, w_side: str, e_sign: int, E_side: int | None, g: sp.Expr | None = None) -> bool:
    """Whether every start with this sign datum satisfies the conditions of `piece` (read off the datum).

    Each atomic condition is read off the datum: w, w - w_sad from `w_side`, e from `e_sign`, and |e| - g(w)
    from E_side, which is legitimate exactly when g(w)^2 = E_sad - f(w) and g >= 0 on w < 0 (checked by the
    caller for the g it passes): then |e| - g has the sign of e^2 + f - E_sad = E - E_sad. A condition that is
    none of these raises ValueError (the sets are not written in the sign data)."""
    w_sign = {"w>0": 1, "w=0": 0, "(w_sad,0)": -1, "w_sad": -1, "(-inf,w_sad)": -1}[w_side]
    sad_sign = {"w>0": 1, "w=0": 1, "(w_sad,0)": 1, "w_sad": 0, "(-inf,w_sad)": -1}[w_side]
    eg = _abs_e_minus_g(g)
    w_sad = _energy.energy_on_w_axis()["w_sad"]
    for ex, o in piece.conditions:
        if ex == w:
            s = w_sign
        elif ex == e:
            s = e_sign
        elif ex == eg:
            s = E_side
        elif sp.expand(ex - (w - w_sad)) == 0:
            s = sad_sign
        else:
            raise ValueError(f"condition {ex} is not read off the sign data")
        if s is None or not _OP_HOLDS[o](s):
            return False
    return True


_OP_HOLDS = {"<": lambda s: s < 0, ">": lambda s: s > 0, "==": lambda s: s == 0, "<=": lambda s: s <= 0,
             ">=": lambda s: s >= 0}


def set_class(regime_label: str, w_side: str, e_sign: int, E_side: int | None, g: sp.Expr | None = None,
              sets: tuple[Basin, ...] | None = None) -> str:
    """The class that the sets of Thm 2 / Thm 8 (`sets`, by default `basins(regime, g)`) give to a start with
    this sign datum: the first basin one of whose pieces holds (`piece_holds`), the complement last."""
    for bset in (sets if sets is not None else basins(regime_label, g)):
        if bset.pieces is None:
            return bset.limit_class
        if any(piece_holds(pc, w_side, e_sign, E_side, g) for pc in bset.pieces):
            return bset.limit_class
    raise ValueError("the sets do not cover the plane")
