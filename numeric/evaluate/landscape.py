r"""High-precision evaluation (mpmath) of a canonical model's landscape, from the derived expressions.

`Landscape(chain, attention=False, untied=False)` evaluates the model of
`symbolic.canonical_model(attention, untied=untied)` (untied: θ = (e, w, h), the head scale h):
the reduced loss L(θ) = G(A(θ)) with ∇L = G'(A)∇A and ∇²L = G''∇A∇A^T + G'∇²A, and the loss with bias
L(θ, b) = F(A, z0) with ∇ = J^T∇F and ∇² = J^T∇²F J + F_A∇²A + F_c∇²z0, J = ∂(A, z0)/∂(θ, b).

Stable rewrite (checked against the derived closed forms in the test suite and the claims):
everything is evaluated in the coordinates (A, c), with c*(A) taken from the derived root of Lemma 5
in whichever of its two equal forms does not cancel (the printed form for p >= q, the conjugate form
for p < q), so |A| up to 1e4 stays accurate at any precision. Methods work at the caller's precision
(`numeric.precision.working`); `at` is the contract of `l2g eval` and sets it itself.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache

import mpmath as mp
import sympy as sp

from local2global.numeric.chain import NumericChain
from local2global.numeric.evaluate.lambdify import compile_mp, mpf_exact
from local2global.numeric.precision import GUARD, magnitude_digits, working
from local2global.symbolic import symbols as S
from local2global.symbolic import bias as sbias
from local2global.symbolic import energy as senergy
from local2global.symbolic import landscape as sland
from local2global.symbolic.model import canonical_model

#: symbol standing for sign(1 + a e^2) in the one-sided derivatives of z0 (kink at 1 + ae^2 = 0)
_sg = sp.Symbol("sg", real=True)
#: symbol standing for sign(w) in the one-sided second derivatives at w = 0 (w|w| is C^1, not C^2)
_sw = sp.Symbol("sw", real=True)


class _Lazy(dict):
    """name -> compiled callable, each built on first use (the R^4 pieces cost more to derive)."""

    def __init__(self, makers):
        super().__init__()
        self.makers = makers

    def __missing__(self, key):
        val = self[key] = self.makers[key]()
        return val


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


@lru_cache(maxsize=None)
def _chain_level():
    """Compiled functions of (p, q, A, c) shared by every model: F, ∇F, ∇²F, G'', the roots, A*."""
    pq = (S.p, S.q)
    opt = sbias.derive_optimal_bias()
    st = sland.structure()
    return _Lazy({
        "u_star": lambda: compile_mp(opt["u_star"], pq + (S.K,)),
        "u_star_stable": lambda: compile_mp(opt["u_star_stable"], pq + (S.K,)),
        "F": lambda: compile_mp(sbias.F(), pq + (S.A, S.c)),
        "dF": lambda: compile_mp(st["dF"].T, pq + (S.A, S.c)),
        "hF": lambda: compile_mp(st["hessian_F"], pq + (S.A, S.c)),
        "G2": lambda: compile_mp(sland.G_second_in_A_c(), pq + (S.A, S.c)),
        "G_prime_K": lambda: compile_mp(G_prime_expr(), pq + (S.K,), cse=True),
        "A_star": lambda: compile_mp(st["A_star"], pq),
    })


@lru_cache(maxsize=None)
def compiled_model(attention: bool, untied: bool = False):
    """The derived expressions of one model, compiled for mpmath on first use (arguments: θ, then b). The
    entries "t" and "regime_sign" (the line e = 0 of Thms 1, 10) exist for the tied models only."""
    m = canonical_model(attention, untied=True) if untied else canonical_model(attention)
    v, vb = m.params, m.params_with_bias
    s_expr = sp.sign(1 + S.a * S.e**2)

    def e_axis():
        return {cs.name: cs for cs in m.critical_sets()}["Theta_min"].condition.lhs
    return _Lazy({
        "A": lambda: compile_mp(m.A, v),
        "offset": lambda: compile_mp(m.offset, v),
        "grad_A": lambda: compile_mp(m.grad_A.T, v),
        "grad_A_list": lambda: tuple(compile_mp(g, v) for g in m.grad_A),
        "hess_A": lambda: compile_mp(m.hess_A, v),
        # d^2(w|w|)/dw^2 = 2 sign(w) jumps at w = 0: the one-sided Hessians there, sign(w) -> sw = +1 or -1
        "hess_A_sided": lambda: compile_mp(m.hess_A.subs(sp.sign(S.w), _sw), v + (_sw,)),
        "grad_z0": lambda: compile_mp(m.grad_z0.T.subs(s_expr, _sg), vb + (_sg,)),
        "hess_z0": lambda: compile_mp(S.hessian(m.z0, vb).subs(s_expr, _sg), vb + (_sg,)),
        "gain": lambda: compile_mp(1 + S.a * S.e**2 if attention else sp.Integer(1), v),
        "t": lambda: compile_mp(m._e_axis_factor(), v),
        "regime_sign": lambda: compile_mp(e_axis(), (S.p, S.q) + v),
        "E": lambda: compile_mp(m.energy, v),
        # untied only: the conserved pair E_e = 2e^2 + f(w), E_h = 2h^2 + f(w) (`symbolic.basins_untied`)
        "E_e": lambda: compile_mp(_untied_facts()["E_e"], v),
        "E_h": lambda: compile_mp(_untied_facts()["E_h"], v),
        "grad_E": lambda: tuple(compile_mp(g, v) for g in m.grad_energy),
        # the flows' inner loop: ∇L = G'(A)∇A as one function of (p, q, θ), common subexpressions shared
        "grad_L": lambda: compile_mp(tuple(G_prime_expr().subs(S.K, sp.exp(m.A)) * g for g in m.grad_A),
                                     (S.p, S.q) + v, cse=True),
        # the w-axis objects of Lemma 12 (one function of w, the same for both models)
        "f_w>0": lambda: compile_mp(senergy.f_w_axis("w>0").subs(S.w_pos, S.w), (S.w,)),
        "f_w<0": lambda: compile_mp(senergy.f_w_axis("w<0").subs(S.w_neg, S.w), (S.w,)),
        "E_sad": lambda: compile_mp(senergy.energy_on_w_axis()["E_sad"], ()),
        "w_sad": lambda: compile_mp(senergy.energy_on_w_axis()["w_sad"], ()),
        "g": lambda: _real_part(compile_mp(senergy.g_of_w().subs(S.w_neg, S.w), (S.w,))),
    })


def _untied_facts():
    from local2global.symbolic.basins_untied import untied_flow_facts
    return untied_flow_facts()


def _real_part(fn):
    """g^2 = E_sad - f(w) >= 0 (Lemma 12 (iii)); at w = w_sad rounding can make it -0.0...01: the real part."""
    return lambda x: mp.re(fn(x))


def _rows(m) -> list[list]:
    return [[m[i, j] for j in range(m.cols)] for i in range(m.rows)]


def _num(x):
    return x if isinstance(x, mp.mpf) else mpf_exact(x)


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
    r"""The loss landscape of one chain for the canonical model with or without attention, tied or untied.

    `chain` is a `NumericChain` (or (p, q) exact); points θ are sequences of exact numbers or mpf in the
    order of the model's parameters ((e, w), (e, w, a) or, untied, (e, w, h)); b separately.
    """

    def __init__(self, chain, q=None, attention: bool = False, untied: bool = False):
        self.chain = NumericChain.of(chain, q)
        self.attention = bool(attention)
        self.untied = bool(untied)
        self.model = canonical_model(self.attention, untied=True) if self.untied else canonical_model(self.attention)

    @cached_property
    def fns(self):
        return compiled_model(self.attention, True) if self.untied else compiled_model(self.attention)

    @cached_property
    def _chain_fns(self):
        return _chain_level()

    def pq(self):
        return self.chain.mp()

    # -- functions of A alone ---------------------------------------------------------------------
    def c_star(self, Aval) -> mp.mpf:
        """c*(A) = log u*, from the non-cancelling form of Lemma 5's root."""
        p, q = self.pq()
        K = mp.exp(Aval)
        root = self._chain_fns["u_star"] if p >= q else self._chain_fns["u_star_stable"]
        return mp.log(root(p, q, K))

    def G_prime(self, Aval) -> mp.mpf:
        """G'(A) = F_A(A, c*(A)) through e^{A+c*} (see `G_prime_expr`)."""
        p, q = self.pq()
        return self._chain_fns["G_prime_K"](p, q, mp.exp(Aval))

    def G_parts(self, Aval):
        """(G, G', G'', c*) at A: G = F(A, c*), G' = F_A(A, c*), G'' = Schur complement of Hess F."""
        p, q = self.pq()
        cs = self.c_star(Aval)
        dF = self._chain_fns["dF"](p, q, Aval, cs)
        return self._chain_fns["F"](p, q, Aval, cs), dF[0], self._chain_fns["G2"](p, q, Aval, cs), cs

    def A_star(self) -> mp.mpf:
        return self._chain_fns["A_star"](*self.pq())

    # -- the reduced loss L(θ) = G(A(θ)) ------------------------------------------------------------
    def A(self, theta) -> mp.mpf:
        return self.fns["A"](*map(_num, theta))

    def loss(self, theta) -> mp.mpf:
        return self.G_parts(self.A(theta))[0]

    def grad(self, theta) -> list:
        """∇L(θ) = G'(A)∇A, in the order of the parameters."""
        th = list(map(_num, theta))
        G1 = self.G_parts(self.fns["A"](*th))[1]
        gA = self.fns["grad_A"](*th)
        return [G1 * gA[j] for j in range(len(th))]

    def hessian(self, theta) -> list:
        """∇²L(θ) = G''∇A∇A^T + G'∇²A (w != 0: d²(w|w|)/dw² = 2 sign w; at w = 0 the formula gives sign(0) = 0)."""
        th = list(map(_num, theta))
        _, G1, G2, _ = self.G_parts(self.fns["A"](*th))
        gA = self.fns["grad_A"](*th)
        hA = self.fns["hess_A"](*th)
        n = len(th)
        return [[G2 * gA[i] * gA[j] + G1 * hA[i, j] for j in range(n)] for i in range(n)]

    def hessian_one_sided(self, theta, side: int) -> list:
        """∇²L(θ) as w -> 0 from the side `side` (+1 or -1): the two one-sided Hessians at w = 0, where ∇²L
        does not exist (only ∂²/∂w² jumps: by 8e²(...)G'(A), the jump of 2 sign(w))."""
        th = list(map(_num, theta))
        _, G1, G2, _ = self.G_parts(self.fns["A"](*th))
        gA = self.fns["grad_A"](*th)
        hA = self.fns["hess_A_sided"](*th, mp.mpf(side))
        n = len(th)
        return [[G2 * gA[i] * gA[j] + G1 * hA[i, j] for j in range(n)] for i in range(n)]

    def b_star(self, theta) -> mp.mpf:
        """Lemmas 5, 13: b* = c*(A) - (z0 - b)."""
        th = list(map(_num, theta))
        return self.c_star(self.fns["A"](*th)) - self.fns["offset"](*th)

    def energy(self, theta) -> mp.mpf | None:
        """E(θ) (Eq. 11 / Eq. 49, derived); None on w = 0, where it is undefined."""
        th = list(map(_num, theta))
        return None if th[1] == 0 else self.fns["E"](*th)

    def energy_grad(self, theta) -> list:
        th = list(map(_num, theta))
        return [g(*th) for g in self.fns["grad_E"]]

    # -- the loss with bias L(θ, b) = F(A, z0) -------------------------------------------------------
    def _Ac(self, th, bv):
        return self.fns["A"](*th), bv + self.fns["offset"](*th)

    def loss_b(self, theta, b) -> mp.mpf:
        th, bv = list(map(_num, theta)), _num(b)
        p, q = self.pq()
        return self._chain_fns["F"](p, q, *self._Ac(th, bv))

    def _jacobian(self, th, bv, sg):
        n = len(th)
        gA = self.fns["grad_A"](*th)
        gz = self.fns["grad_z0"](*th, bv, sg)
        J = mp.matrix(2, n + 1)
        for j in range(n + 1):
            J[0, j] = gA[j] if j < n else 0
            J[1, j] = gz[j]
        return J

    def grad_b(self, theta, b, side: int | None = None):
        """∇L(θ, b), order (θ, b). With attention, on 1 + ae^2 = 0 pass side=+1/-1 for a one-sided
        gradient; with side=None there the two sides are compared and None is returned if they differ."""
        th, bv = list(map(_num, theta)), _num(b)
        p, q = self.pq()
        dF = self._chain_fns["dF"](p, q, *self._Ac(th, bv))
        gain = self.fns["gain"](*th)

        def one(sg):
            J = self._jacobian(th, bv, sg)
            return [dF[0] * J[0, j] + dF[1] * J[1, j] for j in range(J.cols)]

        if gain != 0:
            return one(mp.sign(gain))
        if side is not None:
            return one(mp.mpf(side))
        g_plus, g_minus = one(mp.mpf(1)), one(mp.mpf(-1))
        tol = mp.mpf(10) ** (-(mp.mp.dps - GUARD // 2))
        if max(abs(x - y) for x, y in zip(g_plus, g_minus)) <= tol * (1 + max(abs(x) for x in g_plus)):
            return g_plus
        return None

    def hessian_b(self, theta, b):
        """∇²L(θ, b) = J^T∇²F J + F_A∇²A + F_c∇²z0; None on 1 + ae^2 = 0 (e != 0), where z0 has a kink."""
        th, bv = list(map(_num, theta)), _num(b)
        gain = self.fns["gain"](*th)
        if gain == 0 and th[0] != 0:
            return None
        p, q = self.pq()
        Av, cv = self._Ac(th, bv)
        dF, hF = self._chain_fns["dF"](p, q, Av, cv), self._chain_fns["hF"](p, q, Av, cv)
        sg = mp.sign(gain) if gain != 0 else mp.mpf(1)
        J = self._jacobian(th, bv, sg)
        hA = self.fns["hess_A"](*th)
        hz = self.fns["hess_z0"](*th, bv, sg)
        H = J.T * hF * J
        n = len(th)
        for i in range(n + 1):
            for j in range(n + 1):
                H[i, j] += dF[1] * hz[i, j] + (dF[0] * hA[i, j] if i < n and j < n else 0)
        return _rows(H)

    # -- the contract of `l2g eval` ---------------------------------------------------------------
    @staticmethod
    def working_precision(theta, b=None, dps: int = 50):
        """The mpmath precision context `at(theta, b, dps)` evaluates in: dps plus guard digits plus the digits
        the magnitudes of theta and b cost. The methods (`loss`, `grad`, `b_star`, ...) evaluated under it return
        the values `at` bundles, bit for bit, without the Hessians `at` also computes."""
        return working(dps, extra=magnitude_digits(*theta, b))

    def at(self, theta, b=None, dps: int = 50) -> PointValues:
        """A, b*, L(θ), its gradient and Hessian; with b also L(θ, b), its gradient and Hessian."""
        with self.working_precision(theta, b, dps):
            th = list(map(_num, theta))
            Aval = self.fns["A"](*th)
            G, G1, G2, cs = self.G_parts(Aval)
            gA = self.fns["grad_A"](*th)
            hA = self.fns["hess_A"](*th)
            n = len(th)
            out = dict(A=Aval, b_star=cs - self.fns["offset"](*th), loss=G, grad=[G1 * gA[j] for j in range(n)],
                       hessian=[[G2 * gA[i] * gA[j] + G1 * hA[i, j] for j in range(n)] for i in range(n)])
            if b is not None:
                out.update(loss_b=self.loss_b(th, b), grad_b=self.grad_b(th, b), hessian_b=self.hessian_b(th, b))
            return PointValues(**out)
