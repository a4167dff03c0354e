r"""The structure behind every landscape result: F(A, c) is jointly strictly convex and G(A) = min_c F.

Every canonical model's loss with bias is F(A(θ), c(θ, b)) and its reduced loss is G(A(θ))
(`model.CanonicalModel`), so gradients, Hessians, critical points and their classes all factor
through two functions of one or two variables. This module derives their facts once:

* ∇F = E[(σ(AX + c) - Y)(X, 1)] (the expected residual), Hess F = E[σ'(z_X)(X, 1)(X, 1)^T];
* ∇F = 0 has the unique solution (A*, c*) (a linear system in σ(c), σ(A + c)): A* is *solved*;
* G'(A) = F_A(A, c*(A)) (envelope), G''(A) = F_AA - F_Ac^2/F_cc > 0, G'(0) = π0π1(p+q-1), G'(A*) = 0.
"""
from __future__ import annotations


import sympy as sp

from . import bias as _bias
from ._cache import derivation
from ._result import Result
from ._simplify import simplify_unit
from ._symbols import A, c, sigma
from ._symbols import hessian as _hess
from .markov import MarkovChain

CHAIN = MarkovChain()
s0, s1 = sp.symbols("s0 s1", positive=True)   # sigma(c), sigma(A + c)
_t0, _t1 = sp.symbols("t0 t1", positive=True)  # sigma = 1/(1 + t): every sigmoid in (0, 1)


def grad_F_residual_form(chain: MarkovChain = CHAIN) -> sp.Matrix:
    r"""(F_A, F_c) = E[(\sigma(AX+c) - Y)(X, 1)] written in s0 = sigma(c), s1 = sigma(A+c).

    `structure()` checks that this equals the derivative of F (d l_log((2y-1)z)/dz = sigma(z) - y).
    """
    r0, r1 = s0 - chain.transition(0, 1), s1 - chain.transition(1, 1)
    return sp.Matrix([chain.pi1 * r1, chain.pi0 * r0 + chain.pi1 * r1])


def in_sigmoids(expr: sp.Expr) -> sp.Expr:
    """An expression in (A, c) rewritten in s0 = σ(c), s1 = σ(A + c) (exp(-c) = (1-s0)/s0, ...)."""
    expr = sp.sympify(expr)
    # exp(αA + βc + r) = exp(r) exp(A+c)^α exp(c)^(β-α), exp(c) = s0/(1-s0), exp(A+c) = s1/(1-s1), for integer
    # α, β: the exponentials of F's derivatives become powers at once (substituting c = log(s0/(1-s0)) and
    # expanding the logarithms gives the same rational function, several times slower)
    rules = {}
    for ex in expr.atoms(sp.exp):
        arg = sp.expand(ex.args[0])
        al, be = arg.coeff(A), arg.coeff(c)
        rest = sp.expand(arg - al * A - be * c)
        if al.is_Integer and be.is_Integer and not rest.has(A, c):
            rules[ex] = sp.exp(rest) * (s1 / (1 - s1)) ** al * (s0 / (1 - s0)) ** (be - al)
    out = expr.xreplace(rules)
    if out.has(A, c):               # A or c outside such an exponential: substitute and expand the logs
        inv = {c: sp.log(s0 / (1 - s0)), A: sp.log(s1 / (1 - s1)) - sp.log(s0 / (1 - s0))}
        out = sp.expand(sp.expand_log(out.subs(inv), force=True), power_exp=True)
    return sp.cancel(out)


def positive_in_sigmoids(expr_s: sp.Expr) -> bool:
    """Whether SymPy proves expr(s0, s1) > 0 for all s0, s1 in (0, 1) (written s = 1/(1+t), t > 0)."""
    as_t = sp.factor(sp.cancel(sp.sympify(expr_s).subs({s0: 1 / (1 + _t0), s1: 1 / (1 + _t1)})))
    return bool(as_t.is_positive)


@derivation
def structure(chain: MarkovChain = CHAIN) -> Result:
    r"""The structural fact: L(θ) = G(A), G strictly convex, G'(A*) = 0, G'(0) = π0π1(p+q-1).

    A* and c* are solved from ∇F = 0; G'(A) = F_A(A, c*(A)) by the envelope argument; G''(A) =
    F_AA - F_Ac^2 / F_cc is the Schur complement of F's Hessian E[σ'(z_X)(X, 1)(X, 1)^T], equal to
    π0π1σ'(c)σ'(A+c)/(π0σ'(c) + π1σ'(A+c)); its positivity, F's joint strict convexity and
    G'(A*) = 0 are decided here (recorded as booleans; everything downstream relies on them).
    """
    Fexpr = _bias.F(chain)
    dF = sp.Matrix([sp.diff(Fexpr, A), sp.diff(Fexpr, c)])
    hF = _hess(Fexpr, (A, c))
    gF = grad_F_residual_form(chain)
    residual_ok = all(sp.cancel(in_sigmoids(dF[i]) - gF[i]) == 0 for i in range(2))
    dsig0, dsig1 = s0 * (1 - s0), s1 * (1 - s1)                       # sigma' in terms of sigma
    hF_form = sp.Matrix([[chain.pi1 * dsig1, chain.pi1 * dsig1], [chain.pi1 * dsig1, chain.pi0 * dsig0 + chain.pi1 * dsig1]])
    hessian_ok = all(sp.cancel(in_sigmoids(hF[i]) - hF_form[i]) == 0 for i in range(4))
    det = sp.factor(hF_form.det())
    G2 = sp.factor(sp.cancel(hF_form[0, 0] - hF_form[0, 1] ** 2 / hF_form[1, 1]))
    # ∇F = 0: linear in (s0, s1), one solution; its logits are (c*, A* + c*)
    sol = sp.solve([gF[0], gF[1]], [s0, s1], dict=True)
    if len(sol) != 1:
        raise AssertionError(f"unexpected solutions of grad F = 0: {sol}")
    c_crit = sp.log(sol[0][s0] / (1 - sol[0][s0]))
    A_star = sp.logcombine(sp.expand_log(sp.log(sol[0][s1] / (1 - sol[0][s1])) - c_crit, force=True), force=True)
    c_star = _bias.derive_optimal_bias(chain)["c_star"]
    Gp = dF[0].subs(c, c_star)
    # G'(0): at A = 0 both sigmoids equal σ(c*(0))
    Gp0 = gF[0].subs({s0: sigma(c_star.subs(A, 0)), s1: sigma(c_star.subs(A, 0))})
    Gp_star = simplify_unit(Gp.subs(A, A_star))
    return Result(
        ref="Sec. 3 / App. E (structure)",
        title="The reduced loss is a convex function of A",
        assumptions=("(p, q) in (0,1)^2", "any e, w"),
        expressions={
            "G": _bias.G(chain),
            "dF": dF,
            "dF_residual": gF,
            "residual_form_matches": sp.true if residual_ok else sp.false,
            "hessian_F": hF,
            "hessian_F_in_s": hF_form,
            "hessian_form_matches": sp.true if hessian_ok else sp.false,
            "det_hessian_F": det,
            "F_jointly_strictly_convex": sp.true if (positive_in_sigmoids(det) and positive_in_sigmoids(hF_form[1, 1])) else sp.false,
            "G_second": G2,
            "G_second_positive": sp.true if positive_in_sigmoids(G2) else sp.false,
            "G_prime": Gp,
            "G_prime_at_0": simplify_unit(Gp0),
            "A_star": A_star,
            "c_at_critical_F": c_crit,
            "G_prime_at_A_star": Gp_star,
        },
        derivation="F = E[l_log((2Y-1)(AX+c))]; its gradient is the expected residual times (X, 1); "
                   "its Hessian is E[sigma'(z_X)(X,1)(X,1)^T]; grad F = 0 solved in (sigma(c), sigma(A+c)); "
                   "G is F minimised over c (Lemma 5).",
    )


def A_star(chain: MarkovChain = CHAIN) -> sp.Expr:
    r"""$A^\star = \log\frac{(1-p)(1-q)}{pq}$, solved from ∇F = 0 (the only zero of G')."""
    return structure(chain)["A_star"]


def G_prime_at_0(chain: MarkovChain = CHAIN) -> sp.Expr:
    r"""$G'(0) = \pi_0\pi_1(p+q-1)$ (derived): its sign decides every class on the e = 0 line."""
    return structure(chain)["G_prime_at_0"]


def G_second_in_A_c(chain: MarkovChain = CHAIN) -> sp.Expr:
    """G''(A) as an expression in (A, c), to be evaluated at c = c*(A)."""
    return structure(chain)["G_second"].subs({s0: sigma(c), s1: sigma(A + c)})
