r"""Interval (ball) certification of sign claims with python-flint's arb, by recursive bisection.

`certify_sign(expr, box, sign)` proves that a SymPy expression has the given strict sign at every
point of a box (a product of closed rational intervals), optionally restricted to the part of the
box where some constraint expressions are >= 0. Each box is evaluated once in arb ball arithmetic
with endpoint interval arithmetic whose endpoints are computed by arb and rounded outward (so the
interval contains the exact range, rounding included); a box is settled when the interval of `expr`
lies strictly on the claimed side of 0, or when the interval of a constraint lies strictly below 0 (the box is outside the domain). Otherwise it is bisected along its
widest side, up to `max_depth`. A box that reaches `max_depth` unsettled makes the certification fail
(never pass): the result reports it.

`arb_function(expr, symbols)` is the SymPy -> arb translator (`numeric.evaluate.arb`, re-exported here):
it walks the expression tree (Add, Mul, Pow, exp, log, sqrt, Abs, sign, rationals, pi, E) and evaluates
on intervals. Precision is flint's working precision, set only inside `_precision` and restored afterwards.

Why arb and not mpmath.iv: arb has the elementary functions with rigorous enclosures, and its
comparisons are three-valued by design (a ball straddling 0 is simply "not settled").
"""
from __future__ import annotations

from dataclasses import dataclass

import flint
import sympy as sp

# The SymPy -> arb translator and the interval type live with the other evaluators (numeric code may
# not import proofs/); the certifier drives them and re-exports them for its callers.
from local2global.numeric.evaluate.arb import Iv, UNBOUNDED, arb_function, interval
from local2global.numeric.evaluate.arb import precision as _precision

__all__ = ["Certificate", "Iv", "UNBOUNDED", "arb_function", "certify_sign", "interval"]


def _fmpq(r) -> flint.fmpq:
    """An exact rational (SymPy, Fraction, int, str) as flint's fmpq."""
    r = sp.Rational(r)
    return flint.fmpq(int(r.p), int(r.q))


def _side(lo: flint.fmpq, hi: flint.fmpq) -> Iv:
    """`interval(lo, hi)` for corners that are already fmpq: the same endpoints, no type dispatch."""
    return Iv(flint.arb(lo).lower(), flint.arb(hi).upper())


@dataclass
class Certificate:
    """Outcome of a covering-box certification: settled boxes, depth reached, first unsettled box."""

    ok: bool
    boxes: int = 0                 # settled leaf boxes (sign proven or outside the domain)
    outside: int = 0               # of which outside the constrained domain
    depth: int = 0                 # deepest bisection level used
    evaluations: int = 0
    failure: dict | None = None    # the first box that could not be settled, with its ball
    region: str = ""

    def summary(self) -> str:
        if self.ok:
            return (f"covered {self.region} by {self.boxes} boxes ({self.outside} outside the domain), "
                    f"bisection depth <= {self.depth}, {self.evaluations} arb evaluations")
        return f"NOT certified on {self.region}: unsettled box {self.failure} after {self.evaluations} arb evaluations"


def certify_sign(expr: sp.Expr, box: dict, sign: int, where=(), max_depth: int = 24, max_boxes: int = 200_000,
                 prec: int = 128) -> Certificate:
    r"""Prove sign(expr) = `sign` (strictly) on every point of `box` where all `where` expressions are >= 0.

    `box` maps each free symbol to a closed rational interval (lo, hi). Returns a Certificate; ok is
    True only if every leaf box was settled by ball arithmetic.
    """
    if sign not in (1, -1):
        raise ValueError("sign must be +1 or -1")
    syms = tuple(box)
    region = " x ".join(f"{s} in [{sp.Rational(lo)}, {sp.Rational(hi)}]" for s, (lo, hi) in box.items())
    if where:
        region += " where " + ", ".join(f"{sp.sstr(g)} >= 0" for g in where)
    with _precision(prec):
        f = arb_function(expr, syms)
        gs = [arb_function(g, syms) for g in where]
        cert = Certificate(ok=False, region=region)
        # box corners as flint's exact rationals (fmpq: the same exact values as Fractions, cheaper arithmetic)
        start = tuple((_fmpq(lo), _fmpq(hi)) for lo, hi in box.values())
        # the initial widths' reciprocals: (hi - lo) * (1 / W) is the exact rational (hi - lo) / W
        inverse_widths = [1 / ((b_hi - b_lo) or flint.fmpq(1)) for b_lo, b_hi in start]
        # each box carries the intervals of its sides: a half shares all but the bisected one with its parent (the
        # same corners give the same intervals)
        stack = [(start, [_side(lo, hi) for lo, hi in start], 0)]
        while stack:
            bx, balls, depth = stack.pop()
            cert.evaluations += 1
            cert.depth = max(cert.depth, depth)
            if any(g(*balls).negative() for g in gs):
                cert.boxes += 1
                cert.outside += 1
                continue
            val = f(*balls)
            if val.positive() if sign > 0 else val.negative():
                cert.boxes += 1
                continue
            if depth >= max_depth or cert.evaluations >= max_boxes:
                cert.failure = {"box": {str(s): (str(lo), str(hi)) for s, (lo, hi) in zip(syms, bx)},
                                "interval": str(val), "depth": depth}
                return cert
            # bisect the widest side (relative to the initial width, so scales do not matter; the first of equal ones)
            k, widest = 0, (bx[0][1] - bx[0][0]) * inverse_widths[0]
            for i in range(1, len(bx)):
                width = (bx[i][1] - bx[i][0]) * inverse_widths[i]
                if width > widest:
                    k, widest = i, width
            lo, hi = bx[k]
            mid = (lo + hi) / 2
            for half in ((lo, mid), (mid, hi)):
                nb, nballs = list(bx), list(balls)
                nb[k], nballs[k] = half, _side(*half)
                stack.append((tuple(nb), nballs, depth + 1))
        cert.ok = True
        return cert
