r"""SymPy -> arb translation (python-flint ball arithmetic): rigorous enclosures of derived expressions.

Evaluators of the same SymPy trees, for three uses:

- `arb_function(expr, symbols)`: interval (endpoint) arithmetic on closed real intervals `Iv`, every
  operation rounded outward through arb. Used by the sign certifier (`proofs._certify`): on wide boxes
  endpoint arithmetic keeps monotone operations tight where midpoint-radius balls would straddle 0.
- `acb_function(expr, symbols)`: the holomorphic extension of a real expression, evaluated on complex
  balls (acb), with the `analytic` flag of `flint.acb.integral`: when it is True the result is a
  non-finite ball unless the extension is proven holomorphic on the input ball (log, sqrt and
  non-integer powers forward the flag to arb's branch-cut checks; Abs and sign are holomorphic only on
  balls strictly inside one half-plane). That is the contract under which `acb.integral` returns a
  rigorous enclosure.
- `ball_function(expr, symbols)`: the same compiler (`_ball_node`) for real balls (arb), with the Airy functions
  and Lambert W besides: the certified computations of the R^3 basins (`numeric.dynamics.basins_r3`).

Node types handled: Add, Mul, Pow, exp, log, sqrt, erf, erfc, Abs, sign (complex balls), Airy and Lambert W (real
balls), rationals, pi, E. Floats are refused (a float literal would carry binary noise into an exact expression). Precision is flint's
working precision, set only inside `precision(bits)` and restored afterwards.

Also the decimal rendering of enclosures (`correct_digits`, `decimal_bounds`): digits are printed
only where the enclosure guarantees them.
"""
from __future__ import annotations

import math
import operator
from contextlib import contextmanager
from fractions import Fraction

import flint
import sympy as sp


@contextmanager
def precision(bits: int):
    """flint's working precision set to `bits` inside the block, restored afterwards."""
    old = flint.ctx.prec
    flint.ctx.prec = bits
    try:
        yield
    finally:
        flint.ctx.prec = old


def _per_precision(make):
    """A closure (values, extra) -> make() (any arguments, unread), computed once per working precision (constants
    are balls; the interval program's constants are `Iv`s, which no operation mutates, so one value may be shared)."""
    cache: dict = {}

    def const(*unread):
        prec = flint.ctx.prec
        out = cache.get(prec)
        if out is None:
            out = cache[prec] = make()
        return out
    return const


def arb_rational(r) -> flint.arb:
    """An exact rational (flint fmpq, SymPy, Fraction, int) as an arb ball at the current precision."""
    if isinstance(r, flint.fmpq):                # the sign certifier's boxes: already flint's exact rational
        return flint.arb(r)
    if isinstance(r, (Fraction, int)):           # no detour through SymPy
        r = Fraction(r)
        return flint.arb(flint.fmpq(r.numerator, r.denominator))
    r = sp.Rational(r)
    return flint.arb(flint.fmpq(int(r.p), int(r.q)))


# ---------------------------------------------------------------------------------------------
# real intervals with arb endpoints (the sign certifier's arithmetic)
# ---------------------------------------------------------------------------------------------

def interval(lo, hi) -> "Iv":
    """The closed interval [lo, hi] (exact rationals), endpoints rounded outward."""
    return Iv(arb_rational(lo).lower(), arb_rational(hi).upper())


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
        """The interval [x.lower(), x.upper()] of one finite ball x (a constant); for an exact x (an integer, a
        dyadic rational, at most the working precision's bits) the point [x, x] with ONE endpoint object for both
        ends, by which `__mul__` recognises a point."""
        lo, hi = x.lower(), x.upper()
        return Iv(lo, lo) if lo == hi else Iv(lo, hi)

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
        # UNBOUNDED unless all four endpoints are finite, tested on the two bounds of the sums (this runs once per
        # step of the certifier's programs): a sum of finite balls is finite (arb's exponents are unbounded), and
        # the lower/upper bound of a sum with an infinite or nan ball is infinite or nan
        lo, hi = (self.lo + o.lo).lower(), (self.hi + o.hi).upper()
        return Iv(lo, hi) if lo.is_finite() and hi.is_finite() else UNBOUNDED

    def __neg__(self) -> "Iv":
        return Iv(-self.hi, -self.lo)

    def negated(self) -> "Iv":
        """(-1) * self: the product by the point -1 (UNBOUNDED unless finite, as in __mul__). Negation is exact,
        so this is -self, the same endpoints the four products give when they carry at most the working
        precision's bits (always so inside one certification: every endpoint is rounded to it)."""
        return -self if self.finite() else UNBOUNDED

    def __mul__(self, o: "Iv") -> "Iv":
        # finite() written out: a product of an infinite endpoint with 0 is nan, which min/max could pass over
        if not (self.lo.is_finite() and self.hi.is_finite() and o.lo.is_finite() and o.hi.is_finite()):
            return UNBOUNDED
        # the hull of the four endpoint products, written out (this is the certifier's hottest operation):
        # a product of finite arbs is finite (arb's exponents are unbounded), so `hull`'s finiteness test
        # never fires here, and min/max compare exactly as its loop does (first of equal values kept)
        if self.lo is self.hi:
            # a point c (a constant coefficient, `point`): the four products are c*o.lo, c*o.hi, c*o.lo, c*o.hi,
            # the last two the same operations on the same values as the first two (an arb product depends only
            # on the values and the precision), so the same balls: their hull is the hull of the first two
            a, b = self.lo * o.lo, self.lo * o.hi
            return Iv(min(a.lower(), b.lower()), max(a.upper(), b.upper()))
        a, b, c, d = self.lo * o.lo, self.lo * o.hi, self.hi * o.lo, self.hi * o.hi
        return Iv(min(a.lower(), b.lower(), c.lower(), d.lower()), max(a.upper(), b.upper(), c.upper(), d.upper()))

    def positive(self) -> bool:
        return self.lo > 0 and self.finite()          # the comparison first: it is cheaper and mostly decides

    def negative(self) -> bool:
        return self.hi < 0 and self.finite()

    def reciprocal(self) -> "Iv":
        if self.positive() or self.negative():
            return _hull2(1 / self.hi, 1 / self.lo)
        return UNBOUNDED

    def monotone(self, f) -> "Iv":
        """f increasing on the interval (exp, log, sqrt, odd powers)."""
        if not self.finite():
            return UNBOUNDED
        return _hull2(f(self.lo), f(self.hi))

    def exp(self) -> "Iv":
        """exp on the interval: `monotone(arb.exp)`, without the function argument."""
        if not self.finite():
            return UNBOUNDED
        return _hull2(self.lo.exp(), self.hi.exp())

    def ipow(self, n: int) -> "Iv":
        if n < 0:
            return self.ipow(-n).reciprocal()
        if n == 0:
            return Iv.point(flint.arb(1))
        if n == 1:
            # x^1 = x exactly: arb's x ** 1 returns an endpoint unchanged when it carries at most the working
            # precision's bits (always so inside one certification), as `monotone` would
            return self if self.finite() else UNBOUNDED
        if n % 2 == 1 or self.lo >= 0:
            return self.monotone(lambda x: x ** n)
        if self.hi <= 0:
            return (-self).ipow(n)
        m = Iv.hull([self.lo ** n, self.hi ** n])
        return Iv(flint.arb(0), m.hi)

    def __str__(self) -> str:
        return f"[{self.lo.str(6)}, {self.hi.str(6)}]"


UNBOUNDED = Iv(flint.arb("-inf"), flint.arb("inf"))


def _hull2(a: flint.arb, b: flint.arb) -> Iv:
    """`Iv.hull([a, b])` written out for two balls (the reciprocals and monotone steps of the certifier's programs):
    the same finiteness test, the same comparisons in the same order, no list."""
    if not (a.is_finite() and b.is_finite()):
        return UNBOUNDED
    lo, hi, bl, bu = a.lower(), a.upper(), b.lower(), b.upper()
    return Iv(bl if bl < lo else lo, bu if bu > hi else hi)


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


def _check_symbols(expr, symbols):
    unknown = expr.free_symbols - set(symbols)
    if unknown:
        raise ValueError(f"free symbols not given an interval: {sorted(map(str, unknown))}")


#: compiled interval programs by source. A source names no symbol and no constant's value (arguments x0, x1, ...,
#: constants c0, c1, ... bound per call), so expressions of one shape share one code object: the exact checks'
#: arb sign tests translate hundreds of small expressions of a few shapes, each evaluated a few times
_COMPILED: dict = {}


def arb_function(expr: sp.Expr, symbols):
    """A callable (Iv, ...) -> Iv enclosing `expr` on intervals for `symbols` (SymPy -> arb translator).

    The tree is translated once into a straight-line Python function (one assignment per distinct operation,
    children first, sums and products folded from the left; its source is compiled once), so an evaluation does
    no SymPy work and no dispatch: each line is one interval operation on the `Iv`s of its operands. Constants
    (rationals, pi, E) are evaluated once per working precision."""
    symbols = tuple(symbols)
    expr = sp.sympify(expr)
    _check_symbols(expr, symbols)
    index = {s: i for i, s in enumerate(symbols)}
    lines: dict[str, str] = {}  # right-hand side -> variable, in the order of emission
    makers: list = []           # the constants' intervals, built once per working precision
    name: dict = {}

    def constant(make) -> str:
        makers.append(make)
        return f"c{len(makers) - 1}"

    def line(rhs: str) -> str:
        """The variable assigned rhs, emitted once: a fold's partial results are shared by the sums and products
        that start with the same terms (the same operations on the same intervals, computed once)."""
        if rhs not in lines:
            lines[rhs] = f"v{len(lines)}"
        return lines[rhs]

    def emit(node) -> str:
        """The name of the local variable holding node's interval (its line emitted first)."""
        if node in name:
            return name[node]
        rhs = None
        if node in index:
            out = f"x{index[node]}"
        elif node.is_Rational:
            r = flint.fmpq(int(node.p), int(node.q))
            out = constant(lambda: Iv.point(flint.arb(r)))
        elif node is sp.pi:
            out = constant(lambda: Iv.point(flint.arb.pi()))
        elif node is sp.E:
            out = constant(lambda: Iv.point(flint.arb(1).exp()))
        elif node.is_Add or node.is_Mul:
            # a leading factor -1 (SymPy's -x) is an exact negation, not four products with the point -1
            negate = node.is_Mul and node.args[0] is sp.S.NegativeOne
            ks = [emit(t) for t in node.args[negate:]]
            out = line(f"{ks[0]}.negated()") if negate else ks[0]
            for k in ks[1:]:                    # folded from the left: ((a + b) + c) + ...
                out = line(f"{out} {'+' if node.is_Add else '*'} {k}")
        elif node.is_Pow:
            b, ex = emit(node.base), node.exp
            if ex == -1:
                # x^-1 = x.ipow(1).reciprocal() = x.reciprocal(): an interval that is not finite is neither
                # positive nor negative, so reciprocal() gives UNBOUNDED for it, as ipow(1) does
                rhs = f"{b}.reciprocal()"
            elif ex.is_Integer:
                rhs = f"{b}.ipow({int(ex)})"
            elif ex == sp.S.Half:
                rhs = f"_sqrt({b})"
            elif ex == -sp.S.Half:
                rhs = f"_sqrt({b}).reciprocal()"
            else:
                rhs = f"({emit(ex)} * _log({b})).exp()"
        elif isinstance(node, sp.exp):
            rhs = f"{emit(node.args[0])}.exp()"
        elif isinstance(node, (sp.Abs, sp.sign)) or (isinstance(node, sp.log) and len(node.args) == 1):
            unary = {sp.log: "_log", sp.Abs: "_abs", sp.sign: "_sign"}[type(node)]
            rhs = f"{unary}({emit(node.args[0])})"
        else:
            raise NotImplementedError(f"no arb translation for {type(node).__name__}: {node}")
        if rhs is not None:
            out = line(rhs)
        name[node] = out
        return out

    result = emit(expr)
    args = ", ".join(f"x{i}" for i in range(len(symbols)))
    consts = f"    {', '.join(f'c{j}' for j in range(len(makers)))}, = _constants()\n" if makers else ""
    body = "".join(f"    {v} = {rhs}\n" for rhs, v in lines.items())
    source = f"def interval_program({args}):\n{consts}{body}    return {result}\n"
    namespace = {"_constants": _per_precision(lambda: tuple(make() for make in makers)),
                 "_sqrt": _sqrt, "_log": _log, "_abs": _abs, "_sign": _sign}
    code = _COMPILED.get(source)
    if code is None:
        code = _COMPILED[source] = compile(source, "<arb_function>", "exec")
    exec(code, namespace)
    return namespace["interval_program"]


# ---------------------------------------------------------------------------------------------
# complex balls: holomorphic extensions for flint.acb.integral
# ---------------------------------------------------------------------------------------------

_NAN = None


def ring_node(node, kids):
    """The compiled node of a sum, a product or an integer power (the same in every ball compiler), or None
    for any other node."""
    if node.is_Add:
        return fold(kids, operator.add)
    if node.is_Mul:
        return fold(kids, operator.mul)
    if node.is_Pow and node.exp.is_Integer:
        base, n = kids[0], int(node.exp)
        return lambda v, extra: base(v, extra) ** n
    return None


def fold(kids, op):
    """The node of a compiled sum or product: `op` folded over the compiled children, each called as
    `kid(values, extra)` (the extra argument is the compiler's: analytic flag, memo of shared calls)."""
    def node(v, extra):
        out = kids[0](v, extra)
        for k in kids[1:]:
            out = op(out, k(v, extra))
        return out
    return node


def _nan() -> flint.acb:
    global _NAN
    if _NAN is None:
        _NAN = flint.acb(flint.arb("nan"), flint.arb("nan"))
    return _NAN


def _half_plane(x: flint.acb) -> int:
    """+1 / -1 if the ball lies strictly in Re > 0 / Re < 0, else 0."""
    re = x.real
    if re > 0:
        return 1
    if re < 0:
        return -1
    return 0


def _acb_abs(x: flint.acb, an: bool) -> flint.acb:
    # |x| is not holomorphic; its extension from the real half-line is +-x on a strict half-plane.
    side = _half_plane(x)
    if side:
        return x if side > 0 else -x
    if not an and x.imag == 0:
        return flint.acb(abs(x.real))
    return _nan()


def _acb_sign(x: flint.acb, an: bool) -> flint.acb:
    side = _half_plane(x)
    if side:
        return flint.acb(side)
    if not an and x.imag == 0:
        return flint.acb(x.real.sgn())
    return _nan()


class _Target:
    """What the ball compiler emits for one kind of ball: the ball of an exact rational, of pi and e, of a power
    that is not an integer power (`power`), and of the functions it knows (`function`). Every compiled node is a
    closure (values, extra) -> ball; `extra` is the target's per-evaluation argument (`new_extra`)."""

    name = ""

    def rational(self, q: flint.fmpq):
        raise NotImplementedError

    def pi(self):
        raise NotImplementedError

    def e(self):
        raise NotImplementedError

    def power(self, node, kids):
        raise NotImplementedError

    def function(self, node, one):
        """The closure of a function node of one argument (compiled as `one`), or None."""
        raise NotImplementedError


class _Complex(_Target):
    """Complex balls (acb): `extra` is the `analytic` flag of `flint.acb.integral`, forwarded to arb's branch-cut
    checks (log, sqrt, non-integer powers); |.| and sign are holomorphic only strictly inside one half-plane."""

    name = "acb"

    def rational(self, q):
        return flint.acb(flint.arb(q))

    def pi(self):
        return flint.acb(flint.arb.pi())

    def e(self):
        return flint.acb(flint.arb(1).exp())

    def power(self, node, kids):
        base, ex = kids[0], node.exp
        if ex == sp.S.Half:
            return lambda v, an: base(v, an).sqrt(analytic=an)
        if ex == -sp.S.Half:
            return lambda v, an: base(v, an).rsqrt(analytic=an)
        exk = kids[1]
        return lambda v, an: base(v, an).pow(exk(v, an), analytic=an)

    def function(self, node, one):
        if isinstance(node, sp.exp):
            return lambda v, an: one(v, an).exp()
        if isinstance(node, sp.log) and len(node.args) == 1:
            return lambda v, an: one(v, an).log(analytic=an)
        if isinstance(node, sp.erf):
            return lambda v, an: one(v, an).erf()
        if isinstance(node, sp.erfc):
            return lambda v, an: one(v, an).erfc()
        if isinstance(node, sp.Abs):
            return lambda v, an: _acb_abs(one(v, an), an)
        if isinstance(node, sp.sign):
            return lambda v, an: _acb_sign(one(v, an), an)
        return None


_AIRY = {sp.airyai: 0, sp.airyaiprime: 1, sp.airybi: 2, sp.airybiprime: 3}


class _Real(_Target):
    """Real balls (arb): `extra` is a memo of the Airy calls of one evaluation (one `arb.airy()` per argument gives
    Ai, Ai', Bi, Bi' together); a rational power of a positive base is a root to an integer power, any other power
    exp(ex log base); Lambert W on its real branches 0 and -1."""

    name = "arb"

    def rational(self, q):
        return flint.arb(q)

    def pi(self):
        return flint.arb.pi()

    def e(self):
        return flint.arb(1).exp()

    def power(self, node, kids):
        base, ex = kids[0], node.exp
        if ex.is_Rational:
            p_, q_ = int(ex.p), int(ex.q)
            return lambda v, memo: base(v, memo).root(q_) ** p_
        exk = kids[1]
        return lambda v, memo: (exk(v, memo) * base(v, memo).log()).exp()

    def function(self, node, one):
        if type(node) in _AIRY:
            pos, key = _AIRY[type(node)], node.args[0]

            def airy(v, memo):
                if key not in memo:
                    memo[key] = one(v, memo).airy()
                return memo[key][pos]
            return airy
        if isinstance(node, sp.exp):
            return lambda v, memo: one(v, memo).exp()
        if isinstance(node, sp.log):
            return lambda v, memo: one(v, memo).log()
        if isinstance(node, sp.Abs):
            return lambda v, memo: abs(one(v, memo))
        if isinstance(node, sp.erf):
            return lambda v, memo: one(v, memo).erf()
        if isinstance(node, sp.erfc):
            return lambda v, memo: one(v, memo).erfc()
        if isinstance(node, sp.LambertW):
            branch = int(node.args[1]) if len(node.args) > 1 else 0
            return lambda v, memo: one(v, memo).lambertw(branch=branch)
        return None


_ACB, _ARB = _Complex(), _Real()


def _ball_node(node, index: dict, target: _Target, constant_extra, inside_constant: bool = False):
    """The SymPy -> flint ball compiler: a closure (values, extra) -> ball for one SymPy node, `index` mapping the
    argument symbols to positions, `target` the kind of ball. Constant subtrees (log 2, sqrt 2, ...) are evaluated
    once per working precision, with `constant_extra` as their extra argument."""
    if node in index:
        k = index[node]
        return lambda v, extra: v[k]
    if node.is_Float:
        raise TypeError(f"float literal {node} in an exact expression")
    if node.is_Rational:
        q = flint.fmpq(int(node.p), int(node.q))
        return _per_precision(lambda: target.rational(q))
    if node is sp.pi:
        return _per_precision(target.pi)
    if node is sp.E:
        return _per_precision(target.e)
    if node.is_Atom:
        raise ValueError(f"symbol {node} not given a ball")
    if not inside_constant and not (node.free_symbols & set(index)):
        # a constant subtree: real, evaluated once per precision; it does not depend on the arguments, so the
        # per-evaluation argument (analytic flag, memo) does not concern it
        inner = _ball_node(node, index, target, constant_extra, inside_constant=True)
        return _per_precision(lambda: inner((), constant_extra()))
    kids = [_ball_node(a, index, target, constant_extra, inside_constant) for a in node.args]
    ring = ring_node(node, kids)
    if ring is not None:
        return ring
    if node.is_Pow:
        return target.power(node, kids)
    out = target.function(node, kids[0])
    if out is None:
        raise NotImplementedError(f"no {target.name} translation for {type(node).__name__}: {node}")
    return out


def acb_function(expr: sp.Expr, symbols):
    """A callable f(*acb, analytic=False) -> acb: the holomorphic extension of the real expression `expr`.

    With analytic=True the result is non-finite unless the extension is holomorphic on the input balls
    (the `flint.acb.integral` contract). Constant subtrees (log 2, pi, ...) are evaluated once per
    working precision.
    """
    symbols = tuple(symbols)
    expr = sp.sympify(expr)
    _check_symbols(expr, symbols)
    node = _ball_node(expr, {s: i for i, s in enumerate(symbols)}, _ACB, lambda: False)

    def f(*vals, analytic: bool = False):
        return node(vals, analytic)

    return f


def ball_function(expr, symbols):
    """A callable (flint.arb, ...) -> flint.arb enclosing the real expression `expr` (real ball arithmetic). The
    same compiler as `acb_function`, for real balls: also the Airy functions (one `arb.airy()` call per argument
    and evaluation) and Lambert W (branches 0, -1); a non-real intermediate (a root or log of a ball reaching below
    0) gives a non-finite ball. Floats are refused."""
    symbols = tuple(symbols)
    expr = sp.sympify(expr)
    _check_symbols(expr, symbols)
    node = _ball_node(expr, {s: i for i, s in enumerate(symbols)}, _ARB, dict)
    return lambda *vals: node(vals, {})


# ---------------------------------------------------------------------------------------------
# decimal rendering of enclosures: only guaranteed digits
# ---------------------------------------------------------------------------------------------

def exact_fraction(x: flint.arb) -> Fraction:
    """The exact value of an exact arb (radius 0, e.g. an endpoint from lower()/upper()) as a Fraction."""
    if not x.is_exact() or not x.is_finite():
        raise ValueError(f"not an exact finite arb: {x}")
    m, e = x.mid().man_exp()
    m, e = int(m), int(e)
    return Fraction(m * 2**e) if e >= 0 else Fraction(m, 2**-e)


def endpoints(x: flint.arb) -> tuple[Fraction, Fraction]:
    """[lo, hi] of a finite ball as exact Fractions (arb's outward-rounded bounds)."""
    if not x.is_finite():
        raise ValueError(f"not a finite ball: {x}")
    return exact_fraction(x.lower()), exact_fraction(x.upper())


def _exponent10(x: Fraction) -> int:
    """floor(log10(x)) for x > 0, exactly."""
    # a first guess from the bit lengths (no decimal string of a 10000-digit integer), then exact steps
    k = math.floor((x.numerator.bit_length() - x.denominator.bit_length()) * math.log10(2))
    while Fraction(10) ** k > x:
        k -= 1
    while Fraction(10) ** (k + 1) <= x:
        k += 1
    return k


def _round_sig(x: Fraction, n: int, mode: str = "nearest") -> tuple[int, int]:
    """x > 0 rounded to n significant digits: (m, k) with x ~ m * 10^(k-n+1), 10^(n-1) <= m < 10^n.

    mode "nearest" (ties to even), "down" or "up"."""
    k = _exponent10(x)
    q = x / Fraction(10) ** (k - n + 1)
    m = round(q) if mode == "nearest" else (q.numerator // q.denominator if mode == "down"
                                             else -((-q.numerator) // q.denominator))
    if m >= 10**n:
        m, k = m // 10, k + 1
    return m, k


def _format(m: int, k: int, n: int, sign: str = "") -> str:
    """The decimal m * 10^(k-n+1) with its n significant digits shown (fixed notation for -5 <= k < n)."""
    digits = str(m)
    if -5 <= k < n:
        if k >= 0:
            body = digits[:k + 1] + ("." + digits[k + 1:] if n > k + 1 else "")
        else:
            body = "0." + "0" * (-k - 1) + digits
    else:
        body = digits[0] + ("." + digits[1:] if n > 1 else "") + f"e{k:+d}"
    return sign + body


def format_fraction(x: Fraction, n: int, mode: str = "nearest") -> str:
    """x rounded to n significant digits (nearest, down or up) as a decimal string that denotes exactly
    the rounded value."""
    if x == 0:
        return "0"
    if x < 0:
        flip = {"down": "up", "up": "down"}.get(mode, mode)
        return _format(*_round_sig(-x, n, flip), n, "-")
    return _format(*_round_sig(x, n, mode), n)


def correct_digits(x: flint.arb, max_digits: int) -> dict | None:
    """The correctly rounded decimal value of every number in the ball x, with as many significant
    digits (<= max_digits) as the ball guarantees, and a bound on its distance to them.

    Returns {"value": str, "digits": n, "error": str} where `value` is the n-digit rounding shared by
    both endpoints of x (so it is the correctly rounded value of the true number, which lies in x) and
    `error` (2 digits, rounded up) bounds |true - value|. None if not even one digit is guaranteed.
    """
    lo, hi = endpoints(x)
    if lo == hi == 0:
        return {"value": "0", "digits": 0, "error": "0"}
    if lo <= 0 <= hi or (lo < 0) != (hi < 0):
        return None
    sign, a, b = ("-", -hi, -lo) if hi < 0 else ("", lo, hi)
    for n in range(max_digits, 0, -1):
        ra, rb = _round_sig(a, n), _round_sig(b, n)
        if ra == rb:
            m, k = ra
            val = Fraction(m) * Fraction(10) ** (k - n + 1)
            err = max(abs(a - val), abs(b - val))
            return {"value": _format(m, k, n, sign), "digits": n,
                    "error": format_fraction(err, 2, "up") if err else "0"}
    return None


def decimal_bounds(x: flint.arb, digits: int) -> tuple[str, str]:
    """Decimal strings [lo, hi] with `digits` significant digits, rounded outward: the interval they
    denote exactly contains the ball x."""
    lo, hi = endpoints(x)
    return format_fraction(lo, digits, "down"), format_fraction(hi, digits, "up")
