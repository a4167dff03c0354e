r"""High-precision evaluation of the canonical loss landscape (mpmath), from the derived expressions.

Stable rewrite (checked against the derived closed forms in the test suite and the claims):
everything is evaluated in the coordinates (A, c) of `symbolic.landscape`, with c*(A) taken from
the derived root of Lemma 5 in whichever of its two equal forms does not cancel (the printed
form for p >= q, the conjugate form for p < q), so |A| up to 1e4 stays accurate at any dps.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache

import mpmath as mp
import sympy as sp

from local2global.symbolic import _symbols as S
from local2global.symbolic import bias as sbias
from local2global.symbolic import canonical, landscape as sland
from local2global.symbolic.markov import MarkovChain

from local2global.numeric.evaluate.lambdify import compile_mp, mpf_exact

GUARD = 20      # extra working digits; results are rounded to the requested dps


@lru_cache(maxsize=None)
def _compiled():
    """The derived expressions this module evaluates, compiled once."""
    pq = (S.p, S.q)
    opt = sbias.derive_optimal_bias()
    st = sland.structure()
    Aexpr, cexpr = canonical.slope_A(), canonical.offset_c()
    ew, ewb = (S.e, S.w), (S.e, S.w, S.b)
    s_sub = {sland.s0: S.sigma(S.c), sland.s1: S.sigma(S.A + S.c)}
    F = sbias.F()
    return {
        "A": compile_mp(Aexpr, ew),
        "u_star": compile_mp(opt["u_star"], pq + (S.K,)),
        "u_star_stable": compile_mp(opt["u_star_stable"], pq + (S.K,)),
        "F": compile_mp(F, pq + (S.A, S.c)),
        "dF": compile_mp(st["dF"].T, pq + (S.A, S.c)),
        "hF": compile_mp(st["hessian_F"], pq + (S.A, S.c)),
        "G2": compile_mp(st["G_second"].subs(s_sub), pq + (S.A, S.c)),
        "grad_A": compile_mp(sp.Matrix([[sp.diff(Aexpr, v) for v in ew]]), ew),
        "hess_A": compile_mp(S.hessian(Aexpr, ew), ew),
        "jac_Ac": compile_mp(sp.Matrix([[sp.diff(x, v) for v in ewb] for x in (Aexpr, cexpr)]), ewb),
        "hess_c": compile_mp(S.hessian(cexpr, ewb), ewb),
        "hess_A3": compile_mp(S.hessian(Aexpr, ewb), ewb),
        "G_prime_K": compile_mp(G_prime_expr(), pq + (S.K,), cse=True),
    }


@lru_cache(maxsize=None)
def G_prime_expr() -> sp.Expr:
    r"""G'(A) = F_A(A, c*(A)) as a function of K = e^A alone: F_A depends on c only through
    e^{A+c} = K u*(K), so the log of `c_star` and the exp inside the sigmoids cancel exactly
    (one exp and one sqrt per evaluation: the flows' inner loop). Composed from the derived F_A and
    root u*, nothing retyped; tests/test_flow.py holds it to the (A, c*) path. After the cancellation
    the root enters only as p + q + sqrt(D) (a sum of positive terms), so unlike c* itself this needs no
    cancellation-free variant for p < q; the one subtraction left, (p + q + sqrt(D)) - 2, is the zero
    of G' at A* (an absolute error of one unit in the last place there, harmless for a flow)."""
    t = sp.Symbol("t", positive=True)
    F_A, u = sland.structure()["dF"][0], sbias.derive_optimal_bias()["u_star"]
    return sp.together(F_A.subs(S.c, sp.log(t) - S.A).subs(t, S.K * u))


def _rows(m) -> list[list]:
    return [[m[i, j] for j in range(m.cols)] for i in range(m.rows)]


@dataclass(frozen=True)
class PointValues:
    """Values at one point (mpf at the working precision): the contract of `l2g eval`."""

    A: mp.mpf
    b_star: mp.mpf
    loss: mp.mpf
    grad: list
    hessian: list
    loss_b: mp.mpf | None = None
    grad_b: list | None = None
    hessian_b: list | None = None


class Landscape:
    """The canonical loss of chain (p, q) evaluated at high precision.

    p, q are exact numbers in (0, 1) (Fraction, str, int ratio); points (e, w[, b]) likewise or mpf.
    """

    def __init__(self, p, q):
        MarkovChain(sp.Rational(str(p)) if not isinstance(p, sp.Rational) else p,
                    sp.Rational(str(q)) if not isinstance(q, sp.Rational) else q)   # validates (0,1)
        self.p_exact, self.q_exact = p, q

    @cached_property
    def _fns(self):
        return _compiled()

    def _pq(self):
        # cached per binary precision: converting the exact p, q is a visible cost in the flows' inner loop
        cache = self.__dict__.setdefault("_pq_cache", {})
        if mp.mp.prec not in cache:
            cache[mp.mp.prec] = (mpf_exact(self.p_exact), mpf_exact(self.q_exact))
        return cache[mp.mp.prec]

    def c_star(self, Aval) -> mp.mpf:
        """c*(A) = b* - e^2/2 = log u*, from the non-cancelling form of Lemma 5's root."""
        p, q = self._pq()
        K = mp.exp(Aval)
        root = self._fns["u_star"] if p >= q else self._fns["u_star_stable"]
        return mp.log(root(p, q, K))

    def G_prime(self, Aval) -> mp.mpf:
        """G'(A) = F_A(A, c*(A)) through e^{A+c*} (see `G_prime_expr`); p + q != 1 not needed."""
        p, q = self._pq()
        return self._fns["G_prime_K"](p, q, mp.exp(Aval))

    def A(self, e, w) -> mp.mpf:
        return self._fns["A"](mpf_exact(e), mpf_exact(w))

    def G_parts(self, Aval):
        """(G, G', G'') at A: G = F(A, c*), G' = F_A(A, c*), G'' = Schur complement of Hess F."""
        p, q = self._pq()
        cs = self.c_star(Aval)
        dF = self._fns["dF"](p, q, Aval, cs)
        return self._fns["F"](p, q, Aval, cs), dF[0], self._fns["G2"](p, q, Aval, cs), cs

    def at(self, e, w, b=None, dps: int = 50) -> PointValues:
        """A, b*, L(e, w), its gradient and Hessian (order e, w); with b also L, grad, Hessian in R^3."""
        with mp.workdps(dps + GUARD + _magnitude_digits(e, w, b)):
            e_, w_ = mpf_exact(e), mpf_exact(w)
            Aval = self._fns["A"](e_, w_)
            G, G1, G2, cs = self.G_parts(Aval)
            gA = self._fns["grad_A"](e_, w_)
            hA = self._fns["hess_A"](e_, w_)
            grad = [G1 * gA[0, j] for j in range(2)]
            hess = [[G2 * gA[0, i] * gA[0, j] + G1 * hA[i, j] for j in range(2)] for i in range(2)]
            out = dict(A=Aval, b_star=cs + e_**2 / 2, loss=G, grad=grad, hessian=hess)
            if b is not None:
                p, q = self._pq()
                b_ = mpf_exact(b)
                cval = b_ - e_**2 / 2
                J = self._fns["jac_Ac"](e_, w_, b_)
                dF = self._fns["dF"](p, q, Aval, cval)
                hF = self._fns["hF"](p, q, Aval, cval)
                hA3, hc3 = self._fns["hess_A3"](e_, w_, b_), self._fns["hess_c"](e_, w_, b_)
                grad_b = [dF[0] * J[0, j] + dF[1] * J[1, j] for j in range(3)]
                H = J.T * hF * J + dF[0] * hA3 + dF[1] * hc3
                out.update(loss_b=self._fns["F"](p, q, Aval, cval), grad_b=grad_b, hessian_b=_rows(H))
            return PointValues(**out)


def _magnitude_digits(*xs) -> int:
    """Extra digits lost to cancellation when e^2/2 or b are large (b - e^2/2 is formed)."""
    big = max((abs(float(x)) for x in xs if x is not None), default=1.0)
    return int(2 * mp.log10(big + 1)) + 2
