r"""The canonical reduced model: one object for the paper's scalars with or without the attention scalar.

`canonical_model(attention=False)` is the model of Sec. 3-4 (θ = (e, w), with bias (e, w, b));
`canonical_model(attention=True)` is the model of Sec. 4.1 / App. G (θ = (e, w, a), with bias
(e, w, a, b)); `canonical_model(untied=True)` drops the paper's premise of weight tying (Sec. 2, from its
ref. [23]): the output head is h·alpha instead of the token embedding, θ = (e, w, h) (with bias
(e, w, h, b)), and the tied model is its case h = e. All are the same class: the logit is derived from the transformer (`canonical`), and
everything else is composed from it through the structure of `landscape`:

* slope A(θ) = z_1 - z_0 and offset c(θ, b) = z_0, the loss with bias L(θ, b) = F(A, c) (Lemma 2);
* the optimal bias b* = c*(A) - (z_0 - b) (Lemmas 5, 13), the reduced loss L(θ) = G(A(θ)) (Lemma 6, Eq. 42);
* ∇L = G'(A)∇A and ∇²L = G''(A)∇A∇A^T + G'(A)∇²A (chain rule; Lemmas 7, 8, 13);
* the energy of the gradient flow (`energy.derive_energy`, Eq. 11 / Eq. 49);
* every critical point, by solving ∇L = 0 through this chain rule, and its *derived* class
  (`critical_sets`; Thms 1, 6, 7, 9, 10, Remark 5).

With attention off, the attention model at a = 0 is this model, and the untied model at h = e is it too
(both checked in `canonical`). The untied model is derived without attention only.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache

import sympy as sp

from . import bias as _bias
from . import canonical as _canonical
from . import landscape as _land
from ._cache import derivation
from ._result import Result
from ._simplify import simplify_log, simplify_unit
from ._symbols import A as A_sym, W_BRANCHES, a, b, c as c_sym, e, h, sigma, w, w_neg, w_pos
from ._symbols import hessian as _hess
from .markov import MarkovChain

CHAIN = MarkovChain()

#: sign branches of (w, 1 + a e^2) for expressions with |1 + a e^2| (a = (s - 1)/e^2 makes 1 + ae^2 = s)
ATT_BRANCHES = {
    f"w{ws}0, 1+ae^2{ss}0": {w: wv, a: (sv - 1) / e**2}
    for (ws, wv) in ((">", w_pos), ("<", w_neg)) for (ss, sv) in ((">", _canonical.s_pos), ("<", _canonical.s_neg))
}
CLASSES = ("global_min", "local_min", "local_max", "saddle")


@dataclass(frozen=True)
class CriticalSet:
    """A family of critical points found by solving ∇L = 0, with its derived class and the argument.

    `name` is the paper's ("Theta_min", "Gamma_station", ...), `equations` the SymPy Eq/Ne defining the
    family, `condition` the derived inequality selecting it (or True), `classification` the class
    derived from the structure (never typed), `argument` the derivation of the class in words.
    """

    name: str
    equations: tuple
    condition: sp.Basic
    classification: str
    argument: str


def _positive_part(expr: sp.Expr) -> tuple[sp.Expr, sp.Expr]:
    """Split a product into (factors SymPy proves positive, the rest): the sign of expr is that of the rest."""
    pos, rest = [], []
    for f in sp.Mul.make_args(sp.factor(expr)):
        (pos if f.is_positive else rest).append(f)
    return sp.Mul(*pos), sp.Mul(*rest)


class CanonicalModel:
    r"""The reduced model of the canonical rank-one transformer; `attention` switches the scalar a on, `untied`
    replaces the tied head (the token embedding) by h·alpha (the scalar h; attention off).

    Symbolic in (p, q) by default; `chain` may be a numeric `MarkovChain`. Every property is derived on
    first use and cached. Obtain instances through `canonical_model(attention, chain, untied)` (one per key).

    >>> m = canonical_model()
    >>> m.A
    e**2*(2*w*Abs(w) + 1)
    """

    def __init__(self, attention: bool = False, chain: MarkovChain = CHAIN, untied: bool = False):
        if attention and untied:
            raise ValueError("the untied model is derived without attention only")
        self.attention = bool(attention)
        self.chain = chain
        self.untied = bool(untied)

    def __repr__(self) -> str:
        # the derivation cache keys a model by its repr: the tied models keep theirs
        chain = "" if self.chain == CHAIN else f", chain={self.chain!r}"
        untied = ", untied=True" if self.untied else ""
        return f"canonical_model(attention={self.attention}{chain}{untied})"

    # -- variables -----------------------------------------------------------------------------
    @property
    def params(self) -> tuple[sp.Symbol, ...]:
        """θ: (e, w) without attention, (e, w, a) with it, (e, w, h) untied."""
        if self.untied:
            return (e, w, h)
        return (e, w, a) if self.attention else (e, w)

    @property
    def params_with_bias(self) -> tuple[sp.Symbol, ...]:
        return self.params + (b,)

    def space(self, bias: bool = False) -> str:
        """'R2', 'R3' or 'R4': the parameter space of the reduced loss or of the loss with bias."""
        return f"R{len(self.params) + int(bias)}"

    @property
    def branches(self) -> dict:
        """Sign branches on which the reduced quantities are polynomial/analytic (|w| resolved)."""
        return W_BRANCHES

    @property
    def bias_branches(self) -> dict:
        """Sign branches on which the loss with bias is analytic (|w| and, with attention, |1 + ae^2|)."""
        return ATT_BRANCHES if self.attention else W_BRANCHES

    # -- the logit (Eq. 3 / Eq. 41) ----------------------------------------------------------------
    @cached_property
    def logit_result(self) -> Result:
        return _canonical.derive_logit(self.attention, self.untied) if self.untied else _canonical.derive_logit(self.attention)

    @property
    def A(self) -> sp.Expr:
        r"""The slope $A(\theta) = z_1 - z_0$: $e^2(1+2w|w|)$, times $(1 + ae^2)$ with attention; $eh(1+2w|w|)$
        untied."""
        return self.logit_result["A"]

    @property
    def offset(self) -> sp.Expr:
        """z_0 - b as a function of θ: -e^2/2 without attention (-eh/2 untied); with attention it contains
        |1 + ae^2|."""
        return self.logit_result["offset"]

    @property
    def z0(self) -> sp.Expr:
        """The logit at X = 0, the offset c of F(A, c)."""
        return self.offset + b

    def logit(self, x) -> sp.Expr:
        """z_x(θ, b) for the bit x (0, 1 or a symbol)."""
        return self.A * x + self.z0

    @cached_property
    def grad_A(self) -> sp.Matrix:
        return sp.Matrix([sp.diff(self.A, v) for v in self.params])

    @cached_property
    def hess_A(self) -> sp.Matrix:
        """∇²A; d²(w|w|)/dw² = 2 sign(w) is undefined at w = 0 (evaluate on a branch or off w = 0)."""
        return _hess(self.A, self.params)

    @cached_property
    def jacobian_Ac(self) -> sp.Matrix:
        """∂(A, z0)/∂(θ, b): the chain rule of the loss with bias, ∇L(θ, b) = J^T ∇F."""
        return sp.Matrix([[sp.diff(x, v) for v in self.params_with_bias] for x in (self.A, self.z0)])

    @cached_property
    def grad_z0(self) -> sp.Matrix:
        return sp.Matrix([sp.diff(self.z0, v) for v in self.params_with_bias])

    # -- losses ----------------------------------------------------------------------------------
    @cached_property
    def loss_with_bias(self) -> sp.Expr:
        r"""Lemma 2: $L(\theta, b) = E[\ell_{\log}((2Y-1)\,z_X)]$ with the derived logit (= F(A, z_0))."""
        return _bias.logistic_loss(self.chain, self.logit)

    @cached_property
    def optimal_bias(self) -> Result:
        r"""Lemmas 5 and 13: $b^\star(\theta) = c^\star(A(\theta)) - (z_0 - b)$ (`_optimal_bias`)."""
        return _optimal_bias(self)

    @property
    def b_star(self) -> sp.Expr:
        return self.optimal_bias["b_star"]

    @cached_property
    def reduced_loss(self) -> sp.Expr:
        r"""Eq. 5 / Eq. 42: $L(\theta) = \min_b L(\theta, b) = G(A(\theta))$."""
        return _bias.G(self.chain).subs(A_sym, self.A)

    @cached_property
    def reduced_loss_direct(self) -> sp.Expr:
        """L(θ, b*(θ)): the loss with bias at the derived optimal bias (Lemma 6 compares it with G(A))."""
        return self.loss_with_bias.subs(b, self.b_star)

    # -- derivatives of the reduced loss (chain rule through G) -------------------------------------
    @property
    def G_prime(self) -> sp.Expr:
        """G'(A) as an expression in A (`landscape.structure`)."""
        return _land.structure(self.chain)["G_prime"]

    @cached_property
    def gradient(self) -> sp.Matrix:
        r"""$\nabla L(\theta) = G'(A)\,\nabla A$ (order of `params`)."""
        return self.G_prime.subs(A_sym, self.A) * self.grad_A

    @cached_property
    def hessian(self) -> sp.Matrix:
        r"""$\nabla^2 L(\theta) = G''(A)\nabla A\nabla A^T + G'(A)\nabla^2 A$ (off w = 0; `_hessian`)."""
        return _hessian(self).copy()

    def gradient_direct(self) -> sp.Matrix:
        """∇ of L(θ, b*(θ)) by the total derivative (b* depends on θ; `_gradient_direct`)."""
        return _gradient_direct(self).copy()

    def hessian_direct(self) -> sp.Matrix:
        """Hessian of the reduced loss by differentiating L(θ, b*(θ)) twice (`_hessian_direct`)."""
        return _hessian_direct(self).copy()

    # -- derivatives of the loss with bias ----------------------------------------------------------
    @cached_property
    def gradient_with_bias(self) -> sp.Matrix:
        """∇L(θ, b) by direct differentiation (order params, b); with attention defined off 1 + ae^2 = 0
        (`_gradient_with_bias`)."""
        return _gradient_with_bias(self).copy()

    def hessian_with_bias(self, order=None) -> sp.Matrix:
        """Hessian of L(θ, b) in the given variable order (Lemma 4 uses (b, e, w); `_hessian_with_bias`)."""
        order = tuple(order or self.params_with_bias)
        if set(order) != set(self.params_with_bias):
            # the derivation is keyed by the variables' names: other symbols (a branch's w > 0) are derived here
            return _hess(self.loss_with_bias, order)
        return _hessian_with_bias(self, order).copy()

    def residual(self, x, bias=b) -> sp.Expr:
        """σ(z_x) - P(Y=1 | X=x): the per-state residual whose expectation drives every gradient."""
        return sigma(self.logit(x).subs(b, bias)) - self.chain.transition(x, 1)

    def residual_parts(self, bias=b) -> tuple[sp.Expr, sp.Expr]:
        """(f1, f2) with residual(X) = f1 X + f2 (X is a bit: affine in X)."""
        r0, r1 = self.residual(0, bias), self.residual(1, bias)
        return r1 - r0, r0

    def gradient_residual_form(self, bias=b) -> sp.Matrix:
        r"""Lemmas 3, 13: $\nabla L = E_X[(f_1 X + f_2)\,\nabla z_X]$ (order params, b)."""
        f1, f2 = self.residual_parts(bias)
        grads = {x: [sp.diff(self.logit(x), v).subs(b, bias) for v in self.params_with_bias] for x in (0, 1)}
        return sp.Matrix([self.chain.pi0 * f2 * grads[0][i] + self.chain.pi1 * (f1 + f2) * grads[1][i]
                          for i in range(len(self.params_with_bias))])

    def gradient_envelope(self) -> sp.Matrix:
        """Lemmas 7, 13 by the envelope argument: partial derivatives in θ at b = b*(θ)."""
        g = self.gradient_with_bias
        return sp.Matrix([g[i].subs(b, self.b_star) for i in range(len(self.params))])

    def schur_hessian(self) -> sp.Matrix:
        r"""Lemma 8: $H_{\theta\theta} - H_{\theta b} H_{bb}^{-1} H_{b\theta}$ at b = b*(θ)."""
        H = self.hessian_with_bias()
        n = len(self.params)
        Htt, Htb, Hbb = H[:n, :n], H[:n, n], H[n, n]
        return (Htt - Htb * Htb.T / Hbb).subs(b, self.b_star)

    @cached_property
    def e_axis(self) -> Result:
        r"""(Tied models only.) Lemmas 4 and 8 on the line e = 0 (every point of it is critical): the Hessian of L(θ, b) in the
        order (b, θ) at b = b*(0, w) = log(p/q), the reduced Hessian (Schur complement) at e = 0, and the
        loss there, G(0). Entries are rational in p, q once exp(log(p/q)) has evaluated."""
        if self.untied:
            raise AttributeError("the line e = 0 is not critical in the untied model (see critical_sets)")

        def simp(x):
            return simplify_unit(sp.together(x))
        b0 = self.optimal_bias["b_star_at_e0"]
        H = self.hessian_with_bias(order=(b,) + self.params).subs(e, 0).subs(b, b0).applyfunc(simp)
        Hs = self.schur_hessian().subs(e, 0).applyfunc(simp)
        G0 = simplify_unit(sp.expand_log(_bias.G(self.chain).subs(A_sym, 0), force=True))
        return Result(
            ref="Lemma 4 / Lemma 8 (e = 0)", title="Hessians and loss on the line e = 0",
            assumptions=("e = 0", "b = b*(0, w) for the Hessian with bias", "w != 0 (w|w| is not C^2 at 0)"),
            expressions={"b_star": b0, "hessian_with_bias": H, "schur_hessian": Hs, "G_at_0": G0},
            derivation="The derived Hessians evaluated at e = 0 (and b = b*(0, w)); G(A) at A = 0.",
        )

    # -- energy -------------------------------------------------------------------------------------
    @cached_property
    def energy_result(self) -> Result:
        from . import energy as _energy
        return _energy.derive_energy(self)

    @property
    def energy(self) -> sp.Expr:
        r"""The conserved energy of the gradient flow (Eq. 11, or Eq. 49 with attention), w ≠ 0."""
        return self.energy_result["E"]

    @cached_property
    def grad_energy(self) -> sp.Matrix:
        """∇E off w = 0 (the distributional term of d sign(w)/dw, supported on w = 0, is dropped)."""
        return sp.Matrix([sp.diff(self.energy, v) for v in self.params]).replace(sp.DiracDelta, lambda *x: sp.S.Zero)

    # -- critical points and their classes ----------------------------------------------------------
    @cached_property
    def grad_A_zeros(self) -> tuple[dict, ...]:
        """All solutions of ∇A = 0, solved on w > 0, w < 0 and w = 0 (one dict per family; `_grad_A_zeros`)."""
        return tuple(dict(family) for family in _grad_A_zeros(self))

    def _e_axis_factor(self) -> sp.Expr:
        """Q with A = e^2 Q(θ) and Q(θ)|_{e=0}: the sign of A next to the line e = 0 (all of which is critical)."""
        Q = sp.cancel(self.A / e**2)
        if e in sp.denom(sp.together(Q)).free_symbols:
            raise AssertionError("A is not divisible by e^2")
        return sp.expand(Q.subs(e, 0))

    @cached_property
    def station_hessian(self) -> Result:
        r"""Remark 5 settled: the Hessian of the *reduced* loss on Θ_station and its eigenvalues
        (`_station_hessian`)."""
        if not self.attention:
            raise AttributeError("Θ_station exists only with attention")
        return _station_hessian(self)

    def station_directions(self) -> dict:
        r"""Eigen-directions of ∇²A on Θ_station as functions of e > 0: `up` (positive eigenvalue), `down`,
        `along` (the kernel, tangent to the curve); vectors in the order of `params` (`_station_directions`)."""
        return {k: (val, vec.copy()) for k, (val, vec) in _station_directions(self).items()}

    @cached_property
    def _classes(self) -> dict:
        """The derived ingredients of every class: G convex, G'(A*) = 0, the sign rule on e = 0, the station."""
        st = _land.structure(self.chain)
        if not (st["G_second_positive"] == sp.true and st["G_prime_at_A_star"] == 0
                and st["F_jointly_strictly_convex"] == sp.true):
            raise AssertionError("the convexity facts behind the classification do not hold")
        Q = self._e_axis_factor()
        positive, sign_factor = _positive_part(st["G_prime_at_0"] * Q)
        # zeros of Q on the e = 0 line (w branches): where A changes sign in every neighbourhood
        sad = []
        for wb in (w_pos, w_neg):
            for root in sp.solve(Q.subs(w, wb), wb):
                slope = sp.diff(Q.subs(w, wb), wb).subs(wb, root)
                if not (slope.is_nonzero and slope.is_real):
                    raise AssertionError(f"Q vanishes without changing sign at w = {root}")
                sad.append(root)
        if Q.free_symbols - {w}:
            raise AssertionError(f"the e = 0 classes depend on more than w: {Q}")
        return {"Q": Q, "sign": sign_factor, "positive_factor": positive, "saddle_w": tuple(sad)}

    def critical_sets(self, bias: bool = False) -> tuple[CriticalSet, ...]:
        """Every critical point of the reduced loss (bias=False: Thm 1, Thm 10) or of the loss with bias
        (bias=True: Thm 6, Thm 9), with classes derived from the structure (never typed); for the untied model
        the sets and classes of `_critical_sets_untied`."""
        if self.untied:
            return _critical_sets_untied(self, bool(bias))
        return _critical_sets(self, bool(bias))

    def slope_factors(self) -> dict:
        r"""(Untied model.) The factorization of A used by its classes: on each branch of w the factors of A into
        functions of one parameter each, with multiplicities (`_slope_factors`)."""
        return {k: tuple(v) for k, v in _slope_factors(self).items()}

    @cached_property
    def untied_hessians(self) -> Result:
        r"""(Untied model.) The Hessian of the reduced loss on the saddle sets of `critical_sets` and its
        eigenvalues (`_untied_hessians`): where it is indefinite the saddle is strict."""
        if not self.untied:
            raise AttributeError("the untied saddle sets exist only in the untied model")
        return _untied_hessians(self)


# -- the model's derivations, kept on disk by `_cache.derivation` (keyed by the model's repr) ------------------
# What the model returns of them is its own copy (matrices, dicts): a caller may change it, never the derivation.

@derivation
def _optimal_bias(model: CanonicalModel) -> Result:
    r"""Lemmas 5 and 13: $b^\star(\theta) = c^\star(A(\theta)) - (z_0 - b)$.

    L(θ, b) = F(A, z_0) with dz_0/db = 1, so dL/db = F_c(A, z_0) and Lemma 5's quadratic in
    u = exp(z_0), K = exp(A) gives the unique positive root c* = log u*; the offset is then subtracted.
    """
    opt = _bias.derive_optimal_bias(model.chain)
    c_star = opt["c_star"]
    b_star = c_star.subs(A_sym, model.A) - model.offset
    return Result(
        ref="Lemma 13" if model.attention else ("Lemma 5 (untied)" if model.untied else "Lemma 5"),
        title="Optimal bias" + (" with attention" if model.attention else (" without weight tying" if model.untied else "")),
        assumptions=("any θ", "(p, q) in (0,1)^2"),
        expressions={"c_star": c_star, "offset": model.offset, "b_star": b_star,
                     "b_star_at_e0": simplify_log(b_star.subs(e, 0)),
                     "c_star_at_A_star": simplify_log(c_star.subs(A_sym, _land.A_star(model.chain))),
                     "quadratic": opt["quadratic"]},
        derivation="dL/db = F_c(A, z0) because z0 is b plus a function of θ: Lemma 5's quadratic in "
                   "u = exp(z0), K = exp(A); b* = log u* - (z0 - b).",
    )


@derivation
def _hessian(model: CanonicalModel) -> sp.Matrix:
    r"""$\nabla^2 L(\theta) = G''(A)\nabla A\nabla A^T + G'(A)\nabla^2 A$ (off w = 0)."""
    G2 = _land.G_second_in_A_c(model.chain).subs(c_sym, model.optimal_bias["c_star"])
    gA = model.grad_A
    return (G2 * gA * gA.T + model.G_prime * model.hess_A).subs(A_sym, model.A)


@derivation
def _gradient_direct(model: CanonicalModel) -> sp.Matrix:
    """∇ of L(θ, b*(θ)) by the total derivative (b* depends on θ)."""
    return sp.Matrix([sp.diff(model.reduced_loss_direct, v) for v in model.params])


@derivation
def _hessian_direct(model: CanonicalModel) -> sp.Matrix:
    """Hessian of the reduced loss by differentiating L(θ, b*(θ)) twice."""
    return _hess(model.reduced_loss_direct, model.params)


@derivation
def _gradient_with_bias(model: CanonicalModel) -> sp.Matrix:
    """∇L(θ, b) by direct differentiation (order params, b)."""
    return sp.Matrix([sp.diff(model.loss_with_bias, v) for v in model.params_with_bias])


@derivation
def _hessian_with_bias(model: CanonicalModel, order: tuple) -> sp.Matrix:
    """Hessian of L(θ, b) in the variable order `order` (a permutation of the model's (θ, b))."""
    return _hess(model.loss_with_bias, order)


@derivation
def _grad_A_zeros(model: CanonicalModel) -> tuple[dict, ...]:
    """All solutions of ∇A = 0, solved on w > 0, w < 0 and w = 0 (one dict per family)."""
    out = []
    for sub in ({w: w_pos}, {w: w_neg}):
        eqs = [g.subs(sub) for g in model.grad_A]
        unknowns = [sub.get(v, v) for v in model.params]
        for sol in sp.solve(eqs, unknowns, dict=True):
            out.append({"w_branch": str(sp.sign(sub[w])),
                        **{str(k): v.subs({w_pos: w, w_neg: w}) for k, v in sol.items()}})
    # w = 0: ∂A/∂w = 4|w|(...) vanishes there; the other components decide
    at0 = [g.subs(w, 0) for g in model.grad_A]
    others = [v for v in model.params if v != w]
    for sol in sp.solve([x for x in at0 if x != 0], others, dict=True):
        out.append({"w_branch": "0", "w": sp.Integer(0), **{str(k): v for k, v in sol.items()}})
    return tuple(out)


@derivation
def _station_hessian(model: CanonicalModel) -> Result:
    r"""Remark 5 settled: the Hessian of the *reduced* loss on Θ_station and its eigenvalues.

    Near Θ_station (w = -1/√2 ≠ 0) A is a polynomial in θ on the branch w < 0 and G is analytic, so
    L(θ) = G(A) is analytic there; ∇A = 0 at the point makes ∇²L = G'(0)∇²A, whose eigenvalues are
    computed exactly on the station curve parametrised by e > 0 (|e| covers both signs).
    """
    es = sp.Symbol("e", positive=True)
    station = [f for f in model.grad_A_zeros if f.get("e") != 0][0]
    point = {w: station["w"], a: station["a"].subs(e, es), e: es}
    HA = _hess(model.A.subs(w, w_neg), (e, w_neg, a)).subs({w_neg: w}).subs(point).applyfunc(sp.simplify)
    gA0 = model.grad_A.subs(w, w_neg).subs(w_neg, w).subs(point).applyfunc(sp.simplify)
    if gA0 != sp.zeros(3, 1):
        raise AssertionError("∇A does not vanish on Θ_station")
    Gp0 = _land.G_prime_at_0(model.chain)
    lam_A = [sp.simplify(x) for x in HA.eigenvals(multiple=True)]
    lam = [sp.factor(Gp0 * x) for x in lam_A]
    return Result(
        ref="Remark 5 / Thm 10 (Θ_station)",
        title="Θ_station: strict saddles of the reduced loss",
        assumptions=("e != 0 (|e| written e > 0)", f"a = {station['a']}, w = {station['w']}", "p + q != 1 for strictness"),
        expressions={"grad_A": gA0, "hess_A": HA, "hessian": (Gp0 * HA).applyfunc(sp.factor),
                     "eigenvalues_A": lam_A, "eigenvalues": lam, "G_prime_at_0": Gp0,
                     "trace_hess_A": sp.simplify(HA.trace())},
        derivation="∇²L = G''(0)∇A∇A^T + G'(0)∇²A at a point where ∇A = 0; eigenvalues of ∇²A computed "
                   "exactly on the parametrised station curve.",
    )


@derivation
def _station_directions(model: CanonicalModel) -> dict:
    r"""Eigen-directions of ∇²A on Θ_station as functions of e > 0: `up` (positive eigenvalue), `down`,
    `along` (the kernel, tangent to the curve); vectors in the order of `params`."""
    es = sp.Symbol("e", positive=True)
    out = {}
    for val, _, vecs in model.station_hessian["hess_A"].eigenvects():
        sgn = sp.sign(sp.simplify(val.subs(es, 1)))
        out[{1: "up", -1: "down", 0: "along"}[int(sgn)]] = (sp.simplify(val), vecs[0].applyfunc(sp.simplify))
    return out


@derivation
def _critical_sets(model: CanonicalModel, bias: bool) -> tuple[CriticalSet, ...]:
    r"""∇L = G'(A)∇A (reduced) or J^T∇F (with bias): either A = A* (the unique zero of G' / of ∇F) or
    ∇A = 0, solved branch by branch: e = 0, or (attention) e ≠ 0 with 1 + 2w|w| = 0 = 1 + ae^2 (Θ_station).

    Classes, derived: A = A* is the global minimum (G strictly convex with G'(A*) = 0, and F jointly
    strictly convex with ∇F = 0 there). On e = 0, A = e^2 Q with Q = Q(w) at e = 0, and by convexity
    G(A) ≥ G(0) + G'(0)A, so a point with G'(0)Q > 0 is a (non-strict) local minimum, G'(0)Q < 0 a local
    maximum, Q = 0 with Q changing sign a saddle. With bias, L(θ, b) ≥ G(A(θ)) with equality at b*:
    minima stay minima, maxima become saddles (F_cc > 0: moving b alone raises L). Θ_station: ∇²L =
    G'(0)∇²A has eigenvalues of both signs (`station_hessian`): a strict saddle for p + q ≠ 1.
    """
    st = _land.structure(model.chain)
    A_star = st["A_star"]
    cls = model._classes
    fams = model.grad_A_zeros
    e0 = [f for f in fams if f.get("e") == 0]
    rest = [f for f in fams if f.get("e") != 0]
    if not e0:
        raise AssertionError("∇A = 0 did not give the line e = 0")
    cond = cls["sign"]
    b0 = simplify_log(model.optimal_bias["b_star_at_e0"])
    w_sad = cls["saddle_w"]
    if len(w_sad) != 1:
        raise AssertionError(f"expected one sign change of Q on e = 0, got {w_sad}")
    station = None
    if rest:
        if len(rest) != 1:
            raise AssertionError(f"unexpected e != 0 solutions of ∇A = 0: {rest}")
        f = rest[0]
        lam = model.station_hessian["eigenvalues_A"]
        signs = {sp.sign(sp.simplify(x.subs(sp.Symbol("e", positive=True), 1))) for x in lam}
        if not {1, -1} <= signs:
            raise AssertionError(f"∇²A on Θ_station is not indefinite: {lam}")
        # the e != 0 family written as the vanishing of the two factors of ∇A (checked against the solution)
        s_fac, t_fac = sp.expand(model.A / (e**2 * model._e_axis_factor())), model._e_axis_factor()
        if sp.simplify(s_fac.subs(a, f["a"])) != 0 or sp.simplify(t_fac.subs(w, f["w"])) != 0:
            raise AssertionError("the station family is not {1 + ae^2 = 0, 1 + 2w|w| = 0}")
        station = (sp.Eq(s_fac, 0), sp.Eq(t_fac, 0), sp.Ne(e, 0))
    convex = "G strictly convex (G'' > 0) with G'(A*) = 0"
    if not bias:
        sets = [
            CriticalSet("Theta_star", (sp.Eq(model.A, A_star),), sp.true, "global_min",
                        f"{convex}: G(A) ≥ G(A*) for every A, and A = A* on this set."),
            CriticalSet("Theta_min", (sp.Eq(e, 0),), cond > 0, "local_min",
                        "A = e^2 Q with Q → Q(w) at e = 0; G(A) ≥ G(0) + G'(0)A ≥ G(0) where G'(0)A ≥ 0: "
                        "a non-strict local minimum where G'(0)Q > 0."),
            CriticalSet("Theta_max", (sp.Eq(e, 0),), cond < 0, "local_max",
                        "as for Θmin with the opposite sign: G'(0)A < 0 for small A ≠ 0 nearby, and G decreases "
                        "from 0 in that direction (G convex, G'(0) ≠ 0): a local maximum where G'(0)Q < 0."),
            CriticalSet("Theta_sad", (sp.Eq(e, 0), sp.Eq(w, w_sad[0])), sp.true, "saddle",
                        "Q changes sign across its zero: A takes both signs in every neighbourhood, so L = G(A) "
                        "takes values above and below G(0)."),
        ]
        if station:
            sets.append(CriticalSet("Theta_station", station, sp.true, "saddle",
                                    "∇A = 0 there, so ∇²L = G'(0)∇²A, whose eigenvalues have both signs "
                                    "(a strict saddle when G'(0) ≠ 0, i.e. p + q ≠ 1)."))
        return tuple(sets)
    c_star_at = simplify_log(model.optimal_bias["c_star"].subs(A_sym, A_star))
    zb = sp.Eq(b, b0)
    sets = [
        CriticalSet("Gamma_star", (sp.Eq(model.A, A_star), sp.Eq(model.z0, c_star_at)), sp.true, "global_min",
                    "∇F = 0 has the unique solution (A*, c*); F is jointly strictly convex (det ∇²F > 0, F_cc > 0), "
                    "so its preimage under (A, z0) is the set of global minima."),
        CriticalSet("Gamma_min", (sp.Eq(e, 0), zb), cond > 0, "local_min",
                    "L(θ, b) ≥ G(A(θ)) ≥ G(0) + G'(0)A ≥ G(0) = L at the point, where G'(0)Q > 0."),
        CriticalSet("Gamma_sad", (sp.Eq(e, 0), zb), sp.Le(cond, 0), "saddle",
                    "L increases along b alone (F_cc > 0) and decreases along (θ(t), b*(θ(t))) towards A with "
                    "G'(0)A < 0 (or across the sign change of Q): the reduced maxima and saddle become saddles."),
    ]
    if station:
        sets.append(CriticalSet("Gamma_station", station + (zb,), sp.true, "saddle",
                                "Not C^2 (z0 has |1+ae^2|), but L(θ, b) ≥ G(A(θ)) with equality at b*: moving b "
                                "alone raises L (F strictly convex in c); moving along (θ(t), b*(θ(t))) in the "
                                "negative eigendirection of ∇²G(A) lowers it."))
    return tuple(sets)


@derivation
def _slope_factors(model: CanonicalModel) -> dict:
    r"""A on each branch of w (w > 0, w < 0; w = 0 joins w > 0's formula, w|w| being 0 there) as
    c · prod φ_i^{m_i}: {branch: ((φ_i, m_i, variable of φ_i), ...)}, with the constant c folded into the
    factor it multiplies last. Raises unless every factor depends on exactly one parameter (the premise of the
    sign rule of `_critical_sets_untied`)."""
    out = {}
    for lab, sub in W_BRANCHES.items():
        coeff, facs = sp.factor_list(sp.expand(model.A.subs(sub)))
        wb = sub[w]
        items = []
        for f, m in facs:
            free = f.free_symbols
            if len(free) != 1:
                raise AssertionError(f"the factor {f} of A depends on {free}, not on one parameter")
            items.append((f.subs(wb, w), m, next(iter(free)).subs(wb, w) if wb in free else next(iter(free))))
        if coeff != 1:
            f, m, v = items[-1]
            if m != 1:
                raise AssertionError("a constant in front of a repeated factor")
            items[-1] = (sp.expand(coeff * f), m, v)
        out[lab] = tuple(items)
    return out


@derivation
def _critical_sets_untied(model: CanonicalModel, bias: bool) -> tuple[CriticalSet, ...]:
    r"""Every critical point of the untied model, with its class derived.

    ∇L = G'(A)∇A (reduced) or J^T∇F (with bias), as for the tied model: A = A* (G' = 0 only there) or
    ∇A = 0, solved (`grad_A_zeros`) on w > 0, w < 0 and w = 0. Classes: A = A* is the global minimum (G strictly
    convex with G'(A*) = 0; with bias F jointly strictly convex). On ∇A = 0 the slope is A = 0 (checked on each
    family) and, because G is convex with G'(0) ≠ 0 (p + q ≠ 1), L - G(0) has the sign of G'(0)A for small A.
    The sign of A near a point is read off its factorization A = c·φ_1^{m_1}···φ_k^{m_k} into factors of one
    parameter each (`_slope_factors`; here e, h and 1 + 2w|w|, each with a simple zero): with the vanishing
    factors as independent local coordinates (each has a nonzero derivative at its zero, and they depend on
    different parameters), A takes both signs in every neighbourhood iff some vanishing factor has odd
    multiplicity: then the point is a saddle (L takes values above and below G(0) = L there). Otherwise A keeps
    the sign of the non-vanishing part and the point is a local minimum or maximum by the sign of G'(0) times it:
    this is the tied model's rule (A = e^2 Q: e^2 is even), stated for one factor at a time. With bias,
    L(θ, b) ≥ G(A(θ)) with equality at b* (b* = log(p/q) where A = 0): a saddle of the reduced loss is a
    saddle with bias (moving b alone raises L: F_cc > 0; moving along (θ(t), b*(θ(t))) lowers it).
    """
    st = _land.structure(model.chain)
    if not (st["G_second_positive"] == sp.true and st["G_prime_at_A_star"] == 0
            and st["F_jointly_strictly_convex"] == sp.true):
        raise AssertionError("the convexity facts behind the classification do not hold")
    A_star = st["A_star"]
    factors = _slope_factors(model)
    fams = model.grad_A_zeros
    named = {}
    for f in fams:
        point = {k: v for k, v in f.items() if k != "w_branch"}
        fixed = {sp.Symbol(k, real=True): v for k, v in point.items()}
        if sp.simplify(model.A.subs(fixed)) != 0:
            raise AssertionError(f"A does not vanish on the family {point}")
        fixed_names = frozenset(str(k) for k in fixed)
        # the branch whose factor list is read: a family on w = 0 or w > 0 reads w > 0's (w|w| = w^2 there)
        lab = "w<0" if f["w_branch"] == "-1" else "w>0"
        vanishing = [(fac, m) for fac, m, _ in factors[lab] if sp.simplify(fac.subs(fixed)) == 0]
        if not vanishing:
            raise AssertionError(f"no factor of A vanishes on {point}")
        for fac, m in vanishing:
            var = next(iter(fac.free_symbols))
            slope = sp.diff(fac.subs(W_BRANCHES[lab]), W_BRANCHES[lab].get(var, var)).subs(
                {W_BRANCHES[lab][w]: w}).subs(fixed)
            if not (sp.simplify(slope) != 0 and len(fac.free_symbols) == 1):
                raise AssertionError(f"the factor {fac} has no simple zero on {point}")
        odd = [fac for fac, m in vanishing if m % 2 == 1]
        if not odd:
            raise AssertionError(f"A keeps its sign near {point}: the untied model has no such family")
        if fixed_names == {"e", "h"} or (fixed_names == {"e", "h", "w"} and f["w_branch"] == "0"):
            key = "0"                                   # the line e = h = 0 (its point on w = 0 solved apart)
            point = {"e": point["e"], "h": point["h"]}
        elif fixed_names == {"e", "w"}:
            key = "sad_e"
        elif fixed_names == {"h", "w"}:
            key = "sad_h"
        else:
            raise AssertionError(f"unexpected family of ∇A = 0: {point}")
        if key in named and named[key] != point:
            raise AssertionError(f"two different families {named[key]} and {point} of one shape")
        named[key] = point
    if set(named) != {"0", "sad_e", "sad_h"}:
        raise AssertionError(f"unexpected families of ∇A = 0: {sorted(named)}")
    w_sad = named["sad_e"]["w"]
    if named["sad_h"]["w"] != w_sad:
        raise AssertionError("the two saddle families lie on different w")
    b0 = simplify_log(model.optimal_bias["b_star_at_e0"])
    why = ("A = 0 here and A factors into e, h and 1 + 2w|w|, each with a simple zero, in separate parameters; "
           "a factor of odd multiplicity vanishes ({}), so A takes both signs in every neighbourhood and "
           "L = G(A) takes values above and below G(0) (G convex, G'(0) != 0 for p + q != 1): a saddle.")
    fam = {"0": ((sp.Eq(e, 0), sp.Eq(h, 0)), why.format("e and h")),
           "sad_e": ((sp.Eq(e, 0), sp.Eq(w, w_sad), sp.Ne(h, 0)), why.format("e and 1 + 2w|w|")),
           "sad_h": ((sp.Eq(h, 0), sp.Eq(w, w_sad), sp.Ne(e, 0)), why.format("h and 1 + 2w|w|"))}
    convex = "G strictly convex (G'' > 0) with G'(A*) = 0"
    if not bias:
        sets = [CriticalSet("Theta_star", (sp.Eq(model.A, A_star),), sp.true, "global_min",
                            f"{convex}: G(A) ≥ G(A*) for every A, and A = A* on this set.")]
        sets += [CriticalSet(f"Theta_{k}", eqs, sp.true, "saddle", arg) for k, (eqs, arg) in fam.items()]
        return tuple(sets)
    c_star_at = simplify_log(model.optimal_bias["c_star"].subs(A_sym, A_star))
    zb = sp.Eq(b, b0)
    sets = [CriticalSet("Gamma_star", (sp.Eq(model.A, A_star), sp.Eq(model.z0, c_star_at)), sp.true, "global_min",
                        "∇F = 0 has the unique solution (A*, c*); F is jointly strictly convex (det ∇²F > 0, F_cc > 0), "
                        "so its preimage under (A, z0) is the set of global minima.")]
    sets += [CriticalSet(f"Gamma_{k}", eqs + (zb,), sp.true, "saddle",
                         arg + " With bias: L(θ, b) ≥ G(A(θ)) with equality at b* = log(p/q); moving b alone raises L "
                               "(F_cc > 0), moving along (θ(t), b*(θ(t))) towards G'(0)A < 0 lowers it.")
             for k, (eqs, arg) in fam.items()]
    return tuple(sets)


@derivation
def _untied_hessians(model: CanonicalModel) -> Result:
    r"""The Hessian of the untied reduced loss on its saddle sets: ∇A = 0 there, so ∇²L = G'(0)∇²A (A = 0),
    computed on each family with its free parameter (w on Θ_0; h, resp. e, on the two others; w ≠ 0 where
    w|w| is not C^2) and its eigenvalues, exactly."""
    Gp0 = _land.G_prime_at_0(model.chain)
    out = {}
    for cs in _critical_sets_untied(model, False):
        if cs.name == "Theta_star":
            continue
        fixed = {eq.lhs: eq.rhs for eq in cs.equations if isinstance(eq, sp.Eq)}
        # w fixed (the saddle families, w < 0): its branch; w free (the line e = h = 0): both branches
        lab = None if w not in fixed else ("w<0" if fixed[w].is_negative else "w>0")
        branches = [lab] if lab else list(W_BRANCHES)
        for br in branches:
            wb = W_BRANCHES[br][w]
            HA = _hess(model.A.subs(w, wb), (e, wb, h)).subs({k.subs(w, wb) if k == w else k: v for k, v in fixed.items()})
            HA = HA.applyfunc(lambda x, wb=wb: sp.simplify(x.subs(wb, w)))
            key = cs.name if lab else f"{cs.name} ({br})"
            out[key] = {"hess_A": HA, "eigenvalues_A": [sp.simplify(x) for x in HA.eigenvals(multiple=True)],
                        "hessian": (Gp0 * HA).applyfunc(sp.factor)}
    return Result(
        ref="Sec. 2 ([23]), untied", title="Hessians on the saddle sets of the untied model",
        assumptions=("(p, q) in (0,1)^2", "w != 0 on the line e = h = 0 (w|w| is not C^2 at 0)"),
        expressions={"G_prime_at_0": Gp0, "families": out},
        derivation="∇²L = G''(0)∇A∇A^T + G'(0)∇²A at points where ∇A = 0 and A = 0; ∇²A evaluated on each family "
                   "(w on its sign branch) and its eigenvalues computed exactly.",
    )


@lru_cache(maxsize=None)
def canonical_model(attention: bool = False, chain: MarkovChain = CHAIN, untied: bool = False) -> CanonicalModel:
    """The canonical model (one instance per (attention, chain, untied)); see `CanonicalModel`."""
    return CanonicalModel(attention, chain, untied)
