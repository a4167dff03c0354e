r"""`l2g eval`'s contract: the landscape at one point as a JSON-ready dict of decimal strings.

Values come from `Landscape(p, q).at(e, w, b, dps)` (the derived expressions, evaluated in (A, c)).
Critical-set membership is decided from the sets that `symbolic.landscape.critical_points` *solved*
(their names, equations and conditions), not from a retyped list:

- an equation `e = 0` is tested exactly (inputs are exact rationals);
- any other equation lhs = rhs (A = A*, c = c*, b = b*, w = -1/sqrt 2) is tested numerically:
  |lhs - rhs| <= 10^-(dps-10) max(1, |rhs|);
- the set's condition (a sign of (p+q-1)(1+2w|w|)) is decided exactly with rationals; where the
  point is within tolerance of the saddle w = -1/sqrt(2) the saddle wins (the sign there is 0).

For p + q = 1 the theorems do not apply (G'(0) = 0 and A* = 0): values are still computed,
`note` says so, and `critical` is "degenerate" where grad L = 0 (A = 0 within tolerance) else None.
"""
from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

import mpmath as mp
import sympy as sp

from local2global.symbolic import _symbols as S
from local2global.symbolic import landscape as sland

from local2global.numeric.evaluate.lambdify import compile_mp, mpf_exact
from local2global.numeric.evaluate.landscape import GUARD, Landscape

NOTE_DEGENERATE = ("p + q = 1: the chain is i.i.d.; the theorems assume p + q != 1, so the critical "
                   "sets are not classified (G'(0) = 0 and A* = 0)")
REDUCED_SETS = ("Theta_star", "Theta_min", "Theta_max", "Theta_sad")
BIAS_SETS = ("Gamma_star", "Gamma_min", "Gamma_sad")
ARGS = (S.p, S.q, S.e, S.w, S.b)


def _exact(x) -> Fraction:
    if isinstance(x, float):
        raise TypeError("pass exact numbers (Fraction, int, str), not float")
    if isinstance(x, sp.Rational):
        return Fraction(int(x.p), int(x.q))
    return Fraction(x) if not isinstance(x, Fraction) else x


def tolerance(dps: int) -> mp.mpf:
    """Relative tolerance for the numerically tested equations: 10^-(dps-10)."""
    return mp.mpf(10) ** (-(dps - 10))


@lru_cache(maxsize=None)
def _compiled_sets(space: str):
    """For each solved critical set: name, exact-zero symbols, compiled residuals (lhs-rhs, rhs), condition."""
    out = []
    for cs in sland.critical_points(space=space):
        exact_zero, residuals = [], []
        for eq in cs.equations:
            if eq.rhs == 0 and eq.lhs in (S.e, S.w, S.b):
                exact_zero.append(eq.lhs)
            else:
                residuals.append((compile_mp(eq.lhs - eq.rhs, ARGS), compile_mp(eq.rhs, ARGS)))
        out.append((cs.name, tuple(exact_zero), tuple(residuals), cs.condition))
    return tuple(out)


def _condition_holds(cond, values: dict) -> bool:
    """Decide a solved set's condition exactly at rational (p, q, w)."""
    if cond is sp.true or cond == True:   # noqa: E712 (sympy true)
        return True
    sub = {k: sp.Rational(v.numerator, v.denominator) for k, v in values.items() if v is not None}
    val = cond.subs(sub)
    if val not in (sp.true, sp.false):
        raise AssertionError(f"condition {cond} undecided at {sub}")
    return bool(val)


def membership(space: str, values: dict, dps: int) -> list[str]:
    """Names of the solved critical sets in R^2 ('R2') or R^3 ('R3') containing the point."""
    tol = tolerance(dps)
    found = []
    with mp.workdps(dps + GUARD):
        args = [mpf_exact(values[s]) if values.get(s) is not None else mp.mpf(0) for s in ARGS]
        for name, zeros, residuals, cond in _compiled_sets(space):
            if any(values[s] != 0 for s in zeros):
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
    for sad in ("Theta_sad", "Gamma_sad"):
        if sad in found:
            return sad
    if len(found) > 1:
        raise AssertionError(f"point on several critical sets: {found}")
    return found[0] if found else None


def evaluate_point(p, q, e, w, b=None, dps: int = 50) -> dict:
    r"""The landscape of chain (p, q) at (e, w[, b]) as decimal strings with `dps` significant digits.

    Keys: "A", "b_star", "loss", "grad" [dL/de, dL/dw], "hessian" (2x2, order e, w), "critical"
    (reduced loss: Theta_* name or None); with b also "loss_b", "grad_b" [de, dw, db], "hessian_b"
    (3x3, order e, w, b), "critical_b" (Gamma_* name or None); "note" when p + q = 1; "dps".
    Inputs are exact (Fraction, int, decimal string); p, q in (0, 1) (checked by MarkovChain).
    """
    if not isinstance(dps, int) or dps < 15:
        raise ValueError(f"dps must be an integer >= 15, got {dps!r}")
    p, q, e, w = (_exact(x) for x in (p, q, e, w))
    b = None if b is None else _exact(b)
    pv = Landscape(p, q).at(e, w, b, dps=dps)
    with mp.workdps(dps + GUARD):
        fmt = lambda x: mp.nstr(x, dps)
        out = {"A": fmt(pv.A), "b_star": fmt(pv.b_star), "loss": fmt(pv.loss),
               "grad": [fmt(x) for x in pv.grad], "hessian": [[fmt(x) for x in row] for row in pv.hessian]}
        if b is not None:
            out.update(loss_b=fmt(pv.loss_b), grad_b=[fmt(x) for x in pv.grad_b],
                       hessian_b=[[fmt(x) for x in row] for row in pv.hessian_b])
        values = {S.p: p, S.q: q, S.e: e, S.w: w, S.b: b}
        degenerate = p + q == 1
        if degenerate:
            flat = abs(pv.A) <= tolerance(dps)
            out["critical"] = "degenerate" if flat else None
            if b is not None:
                # grad_b = 0 needs A = 0 and F_c = 0, i.e. b = b*
                on_b = abs(mpf_exact(b) - pv.b_star) <= tolerance(dps) * max(1, abs(pv.b_star))
                out["critical_b"] = "degenerate" if (flat and on_b) else None
            out["note"] = NOTE_DEGENERATE
        else:
            out["critical"] = _pick(membership("R2", values, dps))
            if b is not None:
                out["critical_b"] = _pick(membership("R3", values, dps))
    out["dps"] = dps
    return out
