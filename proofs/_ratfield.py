"""The field QQ(g0, ..., gn) of rational functions for the exact zero test of `_checks.NormalForm`.

Elements are reduced fractions num/den of integer polynomials (python-flint's `fmpz_mpoly`, whose gcd is
compiled FLINT code: the pure-Python sparse polynomials of `sympy.polys.fields` spent most of the time of
the exact checks in their heuristic gcd). The arithmetic is exact; an element is zero iff its numerator
is the zero polynomial, and the gcd reduction only keeps the sizes down (it cannot change a zero test).
"""
from __future__ import annotations

from fractions import Fraction

import flint


class RationalFunctionField:
    """QQ(gens): `field(n)` returns the field and its n generators, like `sympy.polys.fields.field`."""

    def __init__(self, n: int):
        self.ctx = flint.fmpz_mpoly_ctx.get(tuple(f"g{i}" for i in range(max(n, 1))), "degrevlex")
        self._one = self.ctx.constant(1)

    def gens(self) -> list["RationalFunction"]:
        return [RationalFunction(self, g, self._one) for g in self.ctx.gens()]

    def __call__(self, value) -> "RationalFunction":
        """A constant: int, Fraction or anything with numerator/denominator (sympy.Rational: .p, .q)."""
        if isinstance(value, RationalFunction):
            return value
        if hasattr(value, "p") and hasattr(value, "q"):
            num, den = int(value.p), int(value.q)
        else:
            fr = Fraction(value)
            num, den = fr.numerator, fr.denominator
        return RationalFunction(self, self.ctx.constant(num), self.ctx.constant(den))


class RationalFunction:
    __slots__ = ("K", "num", "den")

    def __init__(self, K: RationalFunctionField, num, den, reduce: bool = True):
        if den == 0:
            raise ZeroDivisionError("rational function with zero denominator")
        if reduce and num != 0:
            g = num.gcd(den)
            if g != 1:
                num, den = num / g, den / g
        elif num == 0:
            den = K._one
        self.K, self.num, self.den = K, num, den

    def _lift(self, other) -> "RationalFunction":
        return other if isinstance(other, RationalFunction) else self.K(other)

    def __add__(self, other):
        o = self._lift(other)
        if self.den == o.den:
            return RationalFunction(self.K, self.num + o.num, self.den)
        # Henrici: with g = gcd(d1, d2), d1 = g d1', d2 = g d2', the numerator n1 d2' + n2 d1' is prime to d1' d2'
        # (a prime factor of d1' divides neither n1 nor d2'), so only its gcd with g can cancel: two small gcds
        # instead of one of the full numerator with d1 d2
        g = self.den.gcd(o.den)
        if g == 1:
            return RationalFunction(self.K, self.num * o.den + o.num * self.den, self.den * o.den, reduce=False)
        d1, d2 = self.den / g, o.den / g
        num = self.num * d2 + o.num * d1
        if num == 0:
            return RationalFunction(self.K, num, self.K._one, reduce=False)
        h = num.gcd(g)
        if h != 1:
            num, g = num / h, g / h
        return RationalFunction(self.K, num, d1 * d2 * g, reduce=False)

    __radd__ = __add__

    def __neg__(self):
        return RationalFunction(self.K, -self.num, self.den, reduce=False)

    def __sub__(self, other):
        return self + (-self._lift(other))

    def __rsub__(self, other):
        return self._lift(other) - self

    def __mul__(self, other):
        o = self._lift(other)
        # cross-cancel first: the factors are reduced, so gcd(num1, den2) and gcd(num2, den1) are all there is
        # (a gcd with a denominator is never 0: denominators are nonzero)
        g1, g2 = self.num.gcd(o.den), o.num.gcd(self.den)
        n1, d2 = (self.num / g1, o.den / g1) if g1 != 1 else (self.num, o.den)
        n2, d1 = (o.num / g2, self.den / g2) if g2 != 1 else (o.num, self.den)
        return RationalFunction(self.K, n1 * n2, d1 * d2, reduce=False)

    __rmul__ = __mul__

    def inverse(self):
        if self.num == 0:
            raise ZeroDivisionError("inverse of the zero rational function")
        return RationalFunction(self.K, self.den, self.num, reduce=False)

    def __truediv__(self, other):
        return self * self._lift(other).inverse()

    def __rtruediv__(self, other):
        return self._lift(other) * self.inverse()

    def __pow__(self, n: int):
        if n < 0:
            return self.inverse() ** (-n)
        return RationalFunction(self.K, self.num ** n, self.den ** n, reduce=False)

    def __eq__(self, other):
        other = self._lift(other)
        return self.num * other.den == other.num * self.den

    def __ne__(self, other):
        return not self == other

    def __bool__(self):
        return self.num != 0

    def __hash__(self):
        raise TypeError("RationalFunction is not hashable")

    def __repr__(self):
        return f"({self.num})/({self.den})"


def field(n: int):
    """(K, g0, ..., g_{n-1}): the field QQ(g0..g_{n-1}) and its generators."""
    K = RationalFunctionField(n)
    return (K, *K.gens())
