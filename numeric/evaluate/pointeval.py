r"""`l2g eval`'s contract: the landscape at one point as a JSON-ready dict of decimal strings.

Values come from `Landscape(chain, attention).at(θ, b, dps)` (the derived expressions, evaluated in
(A, c)). Critical-set membership is decided from the sets that `CanonicalModel.critical_sets` *solved*
(their names, equations and derived conditions), not from a retyped list:

- an equation `e = 0` (or `b = ...` with an exact right side) is tested exactly where the inputs are exact;
- any other equation lhs = rhs (A = A*, z0 = c*, w = -1/sqrt 2, 1 + ae^2 = 0) is tested numerically:
  |lhs - rhs| <= `precision.tolerance(dps)` max(1, |rhs|); a `Ne` condition (e != 0) exactly;
- the set's condition (a sign of (p+q-1)(1+2w|w|)) is decided exactly with rationals; where the point
  is within tolerance of the saddle w = -1/sqrt(2) the saddle wins (the sign there is 0).

Untied (`h` given: the head scale of the model without weight tying, θ = (e, w, h)) the sets are those the
untied model solved (Θ*, Θ_0, Θ_sad^e, Θ_sad^h), tested the same way.

For p + q = 1 the theorems do not apply (G'(0) = 0 and A* = 0): values are still computed, `note`
says so, and `critical` is "degenerate" where ∇L = 0 (A = 0 within tolerance) else None.
"""
from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

import mpmath as mp
import sympy as sp

from local2global.numeric.chain import NumericChain, exact
from local2global.numeric.evaluate.lambdify import compile_mp, mpf_exact
from local2global.numeric.evaluate.landscape import Landscape
from local2global.numeric.precision import GUARD, confirmed_text, exact_text, tolerance, working
from local2global.symbolic import symbols as S
from local2global.symbolic.model import canonical_model

NOTE_DEGENERATE = ("p + q = 1: the chain is i.i.d.; the theorems assume p + q != 1, so the critical "
                   "sets are not classified (G'(0) = 0 and A* = 0)")
ARGS = (S.p, S.q, S.e, S.w, S.a, S.b)
#: the arguments of the untied model's compiled residuals (h in the place of a)
ARGS_UNTIED = (S.p, S.q, S.e, S.w, S.h, S.b)


def _model(attention: bool, untied: bool):
    return canonical_model(attention, untied=True) if untied else canonical_model(attention)


@lru_cache(maxsize=None)
def _compiled_sets(attention: bool, bias: bool, untied: bool = False):
    """For each solved critical set: name, exact-zero symbols, compiled residuals (lhs-rhs, rhs), nonzero
    symbols (Ne), condition."""
    out = []
    args = ARGS_UNTIED if untied else ARGS
    for cs in _model(attention, untied).critical_sets(bias):
        exact_zero, residuals, nonzero = [], [], []
        for eq in cs.equations:
            if isinstance(eq, sp.Ne):
                nonzero.append(eq.lhs)
            elif eq.rhs == 0 and eq.lhs in (S.e, S.w, S.b, S.h):
                exact_zero.append(eq.lhs)
            else:
                residuals.append((compile_mp(eq.lhs - eq.rhs, args), compile_mp(eq.rhs, args)))
        out.append((cs.name, tuple(exact_zero), tuple(residuals), tuple(nonzero), cs.condition))
    return tuple(out)


def _condition_holds(cond, values: dict) -> bool:
    """Decide a solved set's condition exactly at rational (p, q, w)."""
    if cond is sp.true or cond == True:   # noqa: E712 - SymPy's true is not Python's
        return True
    sub = {k: sp.Rational(v.numerator, v.denominator) for k, v in values.items() if v is not None}
    val = cond.subs(sub)
    if val not in (sp.true, sp.false):
        raise AssertionError(f"condition {cond} undecided at {sub}")
    return bool(val)


def membership(attention: bool, bias: bool, values: dict, dps: int, untied: bool = False) -> list[str]:
    """Names of the solved critical sets containing the point."""
    tol = tolerance(dps)
    found = []
    with working(dps):
        args = [mpf_exact(values[s]) if values.get(s) is not None else mp.mpf(0)
                for s in (ARGS_UNTIED if untied else ARGS)]
        for name, zeros, residuals, nonzero, cond in (_compiled_sets(attention, bias, True) if untied
                                                      else _compiled_sets(attention, bias)):
            if any(values[s] != 0 for s in zeros) or any(values[s] == 0 for s in nonzero):
                continue
            if not all(abs(r(*args)) <= tol * max(1, abs(rhs(*args))) for r, rhs in residuals):
                continue
            sad_like = name in ("Theta_sad", "Gamma_sad")
            if _condition_holds(cond, values) or (sad_like and _near_saddle(values, tol)):
                found.append(name)
    return found


def _near_saddle(values, tol) -> bool:
    """(1 + 2w|w|) within tolerance of 0: the sign condition degenerates to the saddle's."""
    w = mpf_exact(values[S.w])
    return abs(1 + 2 * w * abs(w)) <= tol


def _pick(found: list[str]) -> str | None:
    for sad in ("Theta_station", "Gamma_station", "Theta_sad", "Gamma_sad"):
        if sad in found:
            return sad
    if len(found) > 1:
        raise AssertionError(f"point on several critical sets: {found}")
    return found[0] if found else None


def evaluate_point(p, q, e, w, b=None, dps: int = 50, a=None, h=None) -> dict:
    r"""The landscape of chain (p, q) at θ = (e, w), with `a` at (e, w, a), with `h` (untied) at (e, w, h), as
    decimal strings with `dps` significant digits.

    Keys: "A", "b_star", "loss", "grad", "hessian" (order e, w[, a]), "critical" (reduced loss: the Theta_*
    set or None); with b also "loss_b", "grad_b", "hessian_b" (order e, w[, a], b; with attention None on
    1 + ae^2 = 0, e != 0, where they do not exist), "critical_b" (Gamma_* set or None); "note" when p + q = 1;
    "dps". Inputs are exact (Fraction, int, decimal string); p, q in (0, 1) (checked by the chain).
    """
    if not isinstance(dps, int) or dps < 15:
        raise ValueError(f"dps must be an integer >= 15, got {dps!r}")
    chain = NumericChain.of(p, q)
    attention, untied = a is not None, h is not None
    if attention and untied:
        raise ValueError("the untied model is derived without attention: give a or h, not both")
    e, w = exact(e), exact(w)
    a = None if a is None else exact(a)
    h = None if h is None else exact(h)
    b = None if b is None else exact(b)
    theta = (e, w, a) if attention else ((e, w, h) if untied else (e, w))
    land = Landscape(chain, attention=attention, untied=untied)
    pv = land.at(theta, b, dps=dps)
    fine = land.at(theta, b, dps=dps + GUARD)        # the digits printed are those the two evaluations share
    with working(dps):
        fmt = lambda x, y: confirmed_text(x, y, dps)
        vec = lambda u, v: None if u is None else [fmt(x, y) for x, y in zip(u, v)]
        rows = lambda m, n: None if m is None else [vec(r, s) for r, s in zip(m, n)]
        out = {"A": _A_exact(attention, untied, theta), "b_star": _b_star_text(chain, e, pv.b_star, fine.b_star, dps,
                                                                                 attention, untied),
               "loss": fmt(pv.loss, fine.loss), "grad": vec(pv.grad, fine.grad), "hessian": rows(pv.hessian, fine.hessian)}
        if w == 0:
            # w|w| is C^1 but not C^2: the Hessian does not exist on w = 0; give the one-sided limits instead
            out["hessian"] = None
            with working(dps, extra=10):
                one = {sgn: land.hessian_one_sided(theta, sgn) for sgn in (1, -1)}
            with working(dps + GUARD, extra=10):
                one_fine = {sgn: land.hessian_one_sided(theta, sgn) for sgn in (1, -1)}
            out["hessian_one_sided"] = {side: rows(one[sgn], one_fine[sgn]) for side, sgn in (("w->0+", 1), ("w->0-", -1))}
            out["hessian_note"] = "undefined at w = 0 (w|w| is not twice differentiable): the one-sided Hessians are given"
        if b is not None:
            out.update(loss_b=fmt(pv.loss_b, fine.loss_b), grad_b=vec(pv.grad_b, fine.grad_b),
                       hessian_b=rows(pv.hessian_b, fine.hessian_b))
        values = {S.p: chain.p, S.q: chain.q, S.e: e, S.w: w, S.a: a, S.b: b, S.h: h}
        if chain.regime == 0:
            flat = abs(pv.A) <= tolerance(dps)
            out["critical"] = "degenerate" if flat else None
            if b is not None:
                # ∇L(θ, b) = 0 needs A = 0 and F_c = 0, i.e. b = b*
                on_b = abs(mpf_exact(b) - pv.b_star) <= tolerance(dps) * max(1, abs(pv.b_star))
                out["critical_b"] = "degenerate" if (flat and on_b) else None
            out["note"] = NOTE_DEGENERATE
        else:
            out["critical"] = _pick(membership(attention, False, values, dps, untied))
            if b is not None:
                out["critical_b"] = (_pick(membership(attention, True, values, dps, untied))
                                     if pv.grad_b is not None else None)
    out["dps"] = dps
    out["digits"] = DIGITS
    return out


#: what the digits of `l2g eval` are (the convention of `precision`: the value with the digits its check supports)
DIGITS = ("A exact (a polynomial in the exact inputs); every other value to at most dps significant digits, only "
          "those a second evaluation at dps + 10 working digits agrees with: an estimate, not a bound")


def _A_exact(attention: bool, untied: bool, theta) -> str:
    """A(θ) exactly: the derived A is a polynomial in θ and |w|, evaluated in rationals."""
    m = _model(attention, untied)
    names = (S.e, S.w, S.h) if untied else ((S.e, S.w, S.a) if attention else (S.e, S.w))
    val = sp.sympify(m.A).subs({s: sp.Rational(x.numerator, x.denominator) for s, x in zip(names, theta)})
    if not val.is_Rational:
        raise AssertionError(f"A is not rational at a rational point: {val}")
    return exact_text(Fraction(int(val.p), int(val.q)))


def _b_star_text(chain, e, value, fine, dps, attention, untied=False) -> str:
    """b* as a decimal string (`confirmed_text` of the two evaluations); at e = 0 from the derived exact value
    b*(0, w) = log(p/q), printed "0" when it is 0 (the numeric root has a rounding residue of ~10^-(dps + GUARD)
    there)."""
    if e != 0:
        return confirmed_text(value, fine, dps)
    exact_expr = _model(attention, untied).optimal_bias["b_star_at_e0"]
    val = exact_expr.subs({S.p: sp.Rational(chain.p.numerator, chain.p.denominator),
                           S.q: sp.Rational(chain.q.numerator, chain.q.denominator)})
    if val.free_symbols:
        return confirmed_text(value, fine, dps)
    return "0" if sp.simplify(val) == 0 else mp.nstr(mp.mpf(sp.N(val, dps + GUARD)), dps)


def attention_point(p, q, e, w, a, b=None, dps: int = 50) -> dict:
    """`l2g eval --a`: `evaluate_point` with the attention scalar (vectors in the order e, w, a, b)."""
    return evaluate_point(p, q, e, w, b=b, dps=dps, a=a)
