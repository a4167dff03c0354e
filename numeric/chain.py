r"""The chain as numeric code sees it: exact (p, q), validated once, with its regime and cached mpf values.

Every numeric constructor (landscapes, flows, basin predictors, probabilities) takes a `NumericChain`
(or anything `NumericChain.of` accepts); a function of `(p, q, ...)` takes `(chain, None, ...)`, so that a command
builds its chain once and passes it down (`l2g flow`: one chain, one `ReducedFlow` for the prediction and the
integration). The check that (p, q) is a chain is the symbolic `MarkovChain`'s, run once here; the regime is
`MarkovChain.regime()`.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property

import mpmath as mp
import sympy as sp

from local2global.symbolic.markov import MarkovChain


def exact(x) -> Fraction:
    """An exact number (Fraction, int, decimal or fraction string, sympy Rational) as a Fraction; floats refused."""
    if isinstance(x, Fraction):
        return x
    if isinstance(x, bool) or isinstance(x, float):
        raise TypeError("pass exact numbers (Fraction, int, str, sympy.Rational), not float")
    if isinstance(x, int):
        return Fraction(x)
    if isinstance(x, sp.Rational):
        return Fraction(int(x.p), int(x.q))
    if isinstance(x, str):
        return Fraction(x.strip())
    raise TypeError(f"unsupported exact number {x!r}")


@dataclass(frozen=True)
class NumericChain:
    r"""Binary Markov chain with exact switching probabilities $(p, q) \in (0, 1)^2$ (Sec. 2)."""

    p: Fraction
    q: Fraction

    def __post_init__(self):
        object.__setattr__(self, "p", exact(self.p))
        object.__setattr__(self, "q", exact(self.q))
        # validation is the symbolic chain's (refuses p, q outside (0, 1))
        object.__setattr__(self, "_symbolic", MarkovChain(sp.Rational(self.p.numerator, self.p.denominator),
                                                          sp.Rational(self.q.numerator, self.q.denominator)))

    @classmethod
    def of(cls, p, q=None) -> "NumericChain":
        """`NumericChain.of(chain)` returns it; `NumericChain.of(p, q)` builds one from exact numbers."""
        if isinstance(p, NumericChain) and q is None:
            return p
        return cls(p, q)

    @property
    def symbolic(self) -> MarkovChain:
        return self._symbolic

    @cached_property
    def regime(self) -> int:
        """sign(p + q - 1): +1, -1, or 0 (the theorems exclude 0)."""
        return self._symbolic.regime()

    @property
    def regime_label(self) -> str:
        return {1: "p+q>1", -1: "p+q<1", 0: "p+q=1"}[self.regime]

    def mp(self) -> tuple[mp.mpf, mp.mpf]:
        """(p, q) as mpf at the current precision (cached per binary precision: the flows' inner loop)."""
        cache = self.__dict__.setdefault("_mp_cache", {})
        prec = mp.mp.prec
        if prec not in cache:
            cache[prec] = (mp.mpf(self.p.numerator) / self.p.denominator, mp.mpf(self.q.numerator) / self.q.denominator)
        return cache[prec]

    def __str__(self) -> str:
        return f"(p, q) = ({self.p}, {self.q})"
