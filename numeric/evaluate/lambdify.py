"""Compile derived SymPy expressions to mpmath callables (cached), with exact-input helpers."""
from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

import mpmath as mp
import sympy as sp


def compile_mp(expr: sp.Basic, args: tuple[sp.Symbol, ...], cse: bool = False):
    """lambdify(args, expr) for mpmath (matrices give mpmath matrices); precision is the caller's
    (mp.workdps): the compiled code holds no float literals, only exact rationals of the expression."""
    if isinstance(expr, sp.MatrixBase):
        expr = sp.ImmutableMatrix(expr)
    return _compile(expr, tuple(args), cse)


@lru_cache(maxsize=None)
def _compile(expr, args, cse):
    # cse=True (common subexpressions computed once) makes the large derived Hessians several times
    # faster to sample, but it may regroup terms so that an exact 0 appears in a denominator where the
    # original expression has none (seen at |A| = 1e4): the evaluation paths keep it off.
    return sp.lambdify(args, expr, modules="mpmath", cse=cse)


def mpf_exact(x) -> mp.mpf:
    """An exact input (Fraction, int, sympy Rational, decimal string) as an mpf at the current precision.

    Floats are refused: a float literal would carry binary noise into a 50-digit computation.
    """
    if isinstance(x, mp.mpf):
        return x
    if isinstance(x, float):
        raise TypeError("pass exact numbers (Fraction, int, str, sympy.Rational), not float")
    if isinstance(x, str):
        x = Fraction(x)
    if isinstance(x, sp.Rational):
        x = Fraction(int(x.p), int(x.q))
    if isinstance(x, int):
        return mp.mpf(x)
    if isinstance(x, Fraction):
        return mp.mpf(x.numerator) / x.denominator
    raise TypeError(f"unsupported exact number {x!r}")
