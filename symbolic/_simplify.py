"""Targeted simplification under the standing assumption 0 < p, q < 1 (no blanket `simplify`)."""
import sympy as sp

from ._symbols import p, q

UNIT = sp.Q.lt(p, 1) & sp.Q.lt(q, 1) & sp.Q.positive(p) & sp.Q.positive(q)


def factor_radicands(expr: sp.Expr) -> sp.Expr:
    """sqrt(x) -> sqrt(factor(x)), so that perfect squares such as (p+q)^2 come out of the root."""
    return expr.replace(lambda t: isinstance(t, sp.Pow) and t.exp == sp.S.Half,
                        lambda t: sp.sqrt(sp.factor(t.base)))


def simplify_unit(expr: sp.Expr) -> sp.Expr:
    """Factor radicands, then use 0 < p, q < 1 to drop absolute values, then cancel."""
    return sp.factor(sp.cancel(sp.refine(factor_radicands(expr), UNIT)))


def simplify_log(expr: sp.Expr) -> sp.Expr:
    """A logarithm log(x) with x simplified under 0 < p, q < 1 (log(-2q/(pq-p-q+1) + ...) -> log(p/(1-p)))."""
    arg = simplify_unit(sp.exp(expr))
    num, den = sp.fraction(arg)
    # present 1 - p rather than -(p - 1): negate numerator and denominator together when both lead negative
    if sp.expand(num).could_extract_minus_sign():
        num, den = sp.expand(-num), sp.expand(-den)
    return sp.log(num / den)
