"""The data of Sec. 2: a binary first-order Markov chain with switching probabilities p, q."""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache

import sympy as sp

from ._symbols import binary_entropy, p as p_sym, q as q_sym


def _as_expr(v) -> sp.Expr:
    if isinstance(v, float):
        raise TypeError("pass p and q as exact numbers (sympy.Rational or a decimal string), not floats")
    return sp.sympify(v, rational=True)


@dataclass(frozen=True, eq=True)
class MarkovChain:
    r"""Binary Markov chain with kernel $P = [[1-p, p], [q, 1-q]]$, $(p, q) \in (0,1)^2$.

    `p` and `q` may be the symbols of `_symbols` (the default: everything stays symbolic) or exact
    numbers; numbers outside the open unit interval are refused here, where the chain is built.
    """

    p: sp.Expr = p_sym
    q: sp.Expr = q_sym

    def __post_init__(self):
        for name in ("p", "q"):
            v = _as_expr(getattr(self, name))
            object.__setattr__(self, name, v)
            if v.is_number:
                if not (v.is_real and v.is_finite):
                    raise ValueError(f"{name} must be a finite real number, got {v}")
                if not (0 < v < 1):
                    raise ValueError(f"{name} must lie in the open interval (0, 1), got {v}")

    @cached_property
    def kernel(self) -> sp.Matrix:
        """Transition matrix P, rows indexed by the current state."""
        return sp.Matrix([[1 - self.p, self.p], [self.q, 1 - self.q]])

    def transition(self, x: int, y: int) -> sp.Expr:
        """P(x_{n+1} = y | x_n = x)."""
        return self.kernel[x, y]

    @cached_property
    def stationary(self) -> tuple[sp.Expr, sp.Expr]:
        r"""$(\pi_0, \pi_1)$, solved from $\pi P = \pi$, $\pi_0 + \pi_1 = 1$ (not typed in).

        A chain of rational (p, q) takes the symbolic chain's solution at its (p, q): the same rationals as
        solving its own equations (a rational has one form), without a `solve` per chain."""
        if self.p.is_Rational and self.q.is_Rational:
            return tuple(x.xreplace({p_sym: self.p, q_sym: self.q}) for x in _symbolic_stationary())
        pi0, pi1 = sp.symbols("pi0 pi1")
        sol = sp.solve(
            [sp.Eq(pi0 * self.kernel[0, 0] + pi1 * self.kernel[1, 0], pi0), sp.Eq(pi0 + pi1, 1)],
            [pi0, pi1], dict=True,
        )[0]
        return sp.factor(sol[pi0]), sp.factor(sol[pi1])

    @property
    def pi0(self) -> sp.Expr:
        return self.stationary[0]

    @property
    def pi1(self) -> sp.Expr:
        return self.stationary[1]

    def expect(self, f) -> sp.Expr:
        r"""$E_{(X,Y)\sim(\pi,P)}[f(X, Y)]$ for a callable f(x, y) of the two bits."""
        return sp.Add(*[self.stationary[x] * self.transition(x, y) * f(x, y) for x in (0, 1) for y in (0, 1)])

    def expect_X(self, g) -> sp.Expr:
        """E[g(X)] for X ~ Bern(pi1), the stationary law of the current bit."""
        return self.pi0 * g(0) + self.pi1 * g(1)

    @cached_property
    def entropy_rate(self) -> sp.Expr:
        r"""$H(x_{n+1} \mid x_n) = E[-\log P(Y \mid X)]$, the minimal loss $L^\star$."""
        return self.expect(lambda x, y: -sp.log(self.transition(x, y)))

    @cached_property
    def marginal_entropy(self) -> sp.Expr:
        r"""$H(x_n) = H(\pi)$, the loss of the unigram predictor."""
        return -self.pi0 * sp.log(self.pi0) - self.pi1 * sp.log(self.pi1)

    @cached_property
    def mutual_information(self) -> sp.Expr:
        r"""$I(x_n; x_{n+1}) = E[\log P(Y|X) / P(Y)]$, computed from the joint law, not as a difference."""
        return self.expect(lambda x, y: sp.log(self.transition(x, y) / self.stationary[y]))

    @cached_property
    def switching_factor(self) -> sp.Expr:
        return self.p + self.q

    def regime(self) -> int:
        """Sign of p+q-1 for numeric chains: +1, -1, or 0 (the theorems exclude 0)."""
        s = sp.sign(self.p + self.q - 1)
        if not s.is_number:
            raise ValueError("the regime of a symbolic chain is not determined")
        return int(s)


def printed_entropy_rate(chain: MarkovChain) -> sp.Expr:
    """The paper's printed entropy rate (q h(p) + p h(q)) / (p + q) (Sec. 2), for comparison."""
    return (chain.q * binary_entropy(chain.p) + chain.p * binary_entropy(chain.q)) / (chain.p + chain.q)


@lru_cache(maxsize=None)
def _symbolic_stationary() -> tuple[sp.Expr, sp.Expr]:
    """The stationary law of the symbolic chain, solved once per process (`MarkovChain.stationary`)."""
    return MarkovChain().stationary
