r"""MPFR arithmetic (gmpy2) for the flows' inner loop, and the same interface over mpmath.

The gradient flows spend most of their time evaluating a short compiled expression (∇L, E, the distances)
and combining vectors; gmpy2's correctly rounded MPFR numbers do that about five times faster than mpmath's
pure-Python mpf. Nothing is compiled twice: `rebind(fn)` takes a function made by `compile_mp` (the code
lambdify wrote for mpmath) and binds the same code to gmpy2's functions. A function whose code names anything
without an MPFR counterpart is refused (`ValueError`), so mpf and mpfr are never mixed silently.

`MPMATH` and `MPFR` are the two arithmetics the integrator can run in (`numeric.dynamics.flow.integrate`):
`context()` is the precision context (MPFR's precision is set to mpmath's current `mp.prec` bits, with the
widest exponent range MPFR allows, so no overflow mpmath would not have), `num` makes a number from an int or
an mpf, `to_mpf` converts back. Both conversions are exact at equal precision.
"""
from __future__ import annotations

import contextlib
import types

import gmpy2
import mpmath as mp


def _sign(x):
    """sign(x) as the int -1, 0 or 1, the value gmpy2.sign returns (0 at ±0 and NaN too), by two comparisons:
    gmpy2.sign costs about 2 µs a call, a sixth of a whole evaluation of the flows' gradient."""
    return (x > 0) - (x < 0)


#: the names lambdify's mpmath code may use, bound to their MPFR counterparts
_NAMES = {"exp": gmpy2.exp, "log": gmpy2.log, "sqrt": gmpy2.sqrt, "sign": _sign, "mpf": gmpy2.mpfr,
          "abs": abs, "sin": gmpy2.sin, "cos": gmpy2.cos, "tanh": gmpy2.tanh, "atan": gmpy2.atan}
#: names in the code that are not looked up in the namespace (attributes of generated tuples, builtins we allow)
_HARMLESS = {"range", "len", "tuple", "list"}


def rebind(fn):
    """The code of the compiled mpmath function `fn`, evaluated in MPFR (arguments and results gmpy2.mpfr)."""
    code = fn.__code__
    unknown = sorted(n for n in code.co_names if n not in _NAMES and n not in _HARMLESS)
    if unknown:
        raise ValueError(f"no MPFR counterpart for {', '.join(unknown)} in {fn.__name__}")
    env = dict(fn.__globals__)
    env.update(_NAMES)
    return types.FunctionType(code, env, fn.__name__, fn.__defaults__, fn.__closure__)


def to_mpfr(x) -> gmpy2.mpfr:
    """An mpf (or int) as an mpfr at the current MPFR precision (exact when that is at least mpf's)."""
    if isinstance(x, int):
        return gmpy2.mpfr(x)
    sign, man, exp, bc = x._mpf_
    if not man:
        if x == 0:
            return gmpy2.mpfr(0)
        return gmpy2.mpfr(str(x))                     # inf, -inf, nan
    v = gmpy2.mul_2exp(gmpy2.mpfr(man), exp)
    return -v if sign else v


def from_mpfr(x) -> mp.mpf:
    """An mpfr as an mpf at the current mpmath precision (exact when that is at least the mpfr's)."""
    if not gmpy2.is_finite(x):
        return mp.mpf(str(x))
    if x == 0:
        return mp.mpf(0)
    man, exp = x.as_mantissa_exp()
    return mp.mpf((int(man), int(exp)))


class _Mpmath:
    """mpmath's mpf: the integrator's default (callbacks take and return mpf)."""

    name = "mpmath"
    inf = mp.inf
    sqrt = staticmethod(mp.sqrt)
    fsum = staticmethod(mp.fsum)
    isfinite = staticmethod(mp.isfinite)

    @staticmethod
    def context():
        return contextlib.nullcontext()

    @staticmethod
    def num(x):
        return x if isinstance(x, mp.mpf) else mp.mpf(x)

    @staticmethod
    def to_mpf(x):
        return x


class _Mpfr:
    """gmpy2's mpfr at mpmath's current binary precision (callbacks take and return mpfr)."""

    name = "mpfr"
    inf = gmpy2.inf()
    sqrt = staticmethod(gmpy2.sqrt)
    isfinite = staticmethod(gmpy2.is_finite)

    @staticmethod
    def fsum(xs):
        return gmpy2.fsum(list(xs))

    @staticmethod
    def context():
        return gmpy2.context(gmpy2.get_context(), precision=mp.mp.prec, emax=gmpy2.get_emax_max(),
                             emin=gmpy2.get_emin_min())

    num = staticmethod(to_mpfr)
    to_mpf = staticmethod(from_mpfr)


MPMATH = _Mpmath()
MPFR = _Mpfr()
