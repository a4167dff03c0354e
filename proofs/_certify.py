r"""Interval (ball) certification of sign claims with python-flint's arb, by recursive bisection.

`certify_sign(expr, box, sign)` proves that a SymPy expression has the given strict sign at every
point of a box (a product of closed rational intervals), optionally restricted to the part of the
box where some constraint expressions are >= 0. Each box is evaluated once in arb ball arithmetic
with endpoint interval arithmetic whose endpoints are computed by arb and rounded outward (so the
interval contains the exact range, rounding included); a box is settled when the interval of `expr`
lies strictly on the claimed side of 0, or when the interval of a constraint lies strictly below 0 (the box is outside the domain). Otherwise it is bisected along its
widest side, up to `max_depth`. A box that reaches `max_depth` unsettled makes the certification fail
(never pass): the result reports it.

`arb_function(expr, symbols)` is the SymPy -> arb translator: it walks the expression tree
(Add, Mul, Pow, exp, log, sqrt, Abs, sign, rationals, pi, E) and evaluates on intervals.
Precision is flint's working precision, set only inside `_precision` and restored afterwards.

Why arb and not mpmath.iv: arb has the elementary functions with rigorous enclosures, and its
comparisons are three-valued by design (a ball straddling 0 is simply "not settled").
"""
from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from fractions import Fraction

import flint
import sympy as sp


@contextmanager
def _precision(bits: int):
    old = flint.ctx.prec
    flint.ctx.prec = bits
    try:
        yield
    finally:
        flint.ctx.prec = old


def _arb_rational(r) -> flint.arb:
    r = sp.Rational(r)
    return flint.arb(flint.fmpq(int(r.p), int(r.q)))


def interval(lo, hi) -> "Iv":
    """The closed interval [lo, hi] (exact rationals), endpoints rounded outward."""
    return Iv(_arb_rational(lo).lower(), _arb_rational(hi).upper())


class Iv:
    """A closed interval [lo, hi] with exact arb endpoints; every operation rounds outward through arb.

    Endpoint (not midpoint-radius) arithmetic: arb balls lose positivity on wide boxes
    ((10 +- 6)^2 = 100 +- 156 straddles 0), intervals of monotone operations do not.
    """

    __slots__ = ("lo", "hi")

    def __init__(self, lo: flint.arb, hi: flint.arb):
        self.lo, self.hi = lo, hi

    @staticmethod
    def point(x: flint.arb) -> "Iv":
        return Iv(x.lower(), x.upper())

    @staticmethod
    def hull(balls) -> "Iv":
        if not all(b.is_finite() for b in balls):
            return UNBOUNDED
        lo, hi = balls[0].lower(), balls[0].upper()
        for b in balls[1:]:
            bl, bu = b.lower(), b.upper()
            if bl < lo:
                lo = bl
            if bu > hi:
                hi = bu
        return Iv(lo, hi)

    def finite(self) -> bool:
        return self.lo.is_finite() and self.hi.is_finite()

    def __add__(self, o: "Iv") -> "Iv":
        if not (self.finite() and o.finite()):
            return UNBOUNDED
        return Iv((self.lo + o.lo).lower(), (self.hi + o.hi).upper())

    def __neg__(self) -> "Iv":
        return Iv(-self.hi, -self.lo)

    def __mul__(self, o: "Iv") -> "Iv":
        if not (self.finite() and o.finite()):
            return UNBOUNDED
        return Iv.hull([self.lo * o.lo, self.lo * o.hi, self.hi * o.lo, self.hi * o.hi])

    def positive(self) -> bool:
        return self.finite() and self.lo > 0

    def negative(self) -> bool:
        return self.finite() and self.hi < 0

    def reciprocal(self) -> "Iv":
        if self.positive() or self.negative():
            return Iv.hull([1 / self.hi, 1 / self.lo])
        return UNBOUNDED

    def monotone(self, f) -> "Iv":
        """f increasing on the interval (exp, log, sqrt, odd powers)."""
        if not self.finite():
            return UNBOUNDED
        return Iv.hull([f(self.lo), f(self.hi)])

    def ipow(self, n: int) -> "Iv":
        if n < 0:
            return self.ipow(-n).reciprocal()
        if n == 0:
            return Iv.point(flint.arb(1))
        if n % 2 == 1 or self.lo >= 0:
            return self.monotone(lambda x: x ** n)
        if self.hi <= 0:
            return (-self).ipow(n)
        m = Iv.hull([self.lo ** n, self.hi ** n])
        return Iv(flint.arb(0), m.hi)

    def __str__(self) -> str:
        return f"[{self.lo.str(6)}, {self.hi.str(6)}]"


UNBOUNDED = Iv(flint.arb("-inf"), flint.arb("inf"))


def _sqrt(x: Iv) -> Iv:
    return x.monotone(lambda t: t.sqrt()) if x.finite() and x.lo >= 0 else UNBOUNDED


def _log(x: Iv) -> Iv:
    return x.monotone(lambda t: t.log()) if x.positive() else UNBOUNDED


def _abs(x: Iv) -> Iv:
    if x.lo >= 0:
        return x
    if x.hi <= 0:
        return -x
    return Iv(flint.arb(0), Iv.hull([-x.lo, x.hi]).hi)


def _sign(x: Iv) -> Iv:
    if x.positive():
        return Iv.point(flint.arb(1))
    if x.negative():
        return Iv.point(flint.arb(-1))
    return Iv(flint.arb(-1), flint.arb(1))


def _pow(base: Iv, ex: sp.Expr, ev) -> Iv:
    if ex.is_Integer:
        return base.ipow(int(ex))
    if ex == sp.S.Half:
        return _sqrt(base)
    if ex == -sp.S.Half:
        return _sqrt(base).reciprocal()
    return (ev(ex) * _log(base)).monotone(lambda t: t.exp())


def arb_function(expr: sp.Expr, symbols):
    """A callable (Iv, ...) -> Iv enclosing `expr` on intervals for `symbols` (SymPy -> arb translator)."""
    symbols = tuple(symbols)
    expr = sp.sympify(expr)
    unknown = expr.free_symbols - set(symbols)
    if unknown:
        raise ValueError(f"free symbols not given an interval: {sorted(map(str, unknown))}")

    def f(*ivs):
        env = dict(zip(symbols, ivs))
        memo: dict = {}

        def ev(node):
            if node in memo:
                return memo[node]
            if node in env:
                out = env[node]
            elif node.is_Rational:
                out = Iv.point(_arb_rational(node)) if node.q == 1 else Iv.hull([_arb_rational(node)])
            elif node is sp.pi:
                out = Iv.hull([flint.arb.pi()])
            elif node is sp.E:
                out = Iv.hull([flint.arb(1).exp()])
            elif node.is_Add:
                out = ev(node.args[0])
                for t in node.args[1:]:
                    out = out + ev(t)
            elif node.is_Mul:
                out = ev(node.args[0])
                for t in node.args[1:]:
                    out = out * ev(t)
            elif node.is_Pow:
                out = _pow(ev(node.base), node.exp, ev)
            elif isinstance(node, sp.exp):
                out = ev(node.args[0]).monotone(lambda t: t.exp())
            elif isinstance(node, sp.log) and len(node.args) == 1:
                out = _log(ev(node.args[0]))
            elif isinstance(node, sp.Abs):
                out = _abs(ev(node.args[0]))
            elif isinstance(node, sp.sign):
                out = _sign(ev(node.args[0]))
            else:
                raise NotImplementedError(f"no arb translation for {type(node).__name__}: {node}")
            memo[node] = out
            return out

        return ev(expr)

    return f


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
        stack = [(tuple((Fraction(str(sp.Rational(lo))), Fraction(str(sp.Rational(hi)))) for lo, hi in box.values()), 0)]
        while stack:
            bx, depth = stack.pop()
            cert.evaluations += 1
            cert.depth = max(cert.depth, depth)
            balls = [interval(lo, hi) for lo, hi in bx]
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
            # bisect the widest side (relative to the initial width, so scales do not matter)
            widths = [(hi - lo) / (Fraction(str(sp.Rational(b[1]))) - Fraction(str(sp.Rational(b[0]))) or 1)
                      for (lo, hi), b in zip(bx, box.values())]
            k = max(range(len(bx)), key=lambda i: widths[i])
            lo, hi = bx[k]
            mid = (lo + hi) / 2
            for half in ((lo, mid), (mid, hi)):
                nb = list(bx)
                nb[k] = half
                stack.append((tuple(nb), depth + 1))
        cert.ok = True
        return cert
