r"""Gradients, Hessians and critical points of the canonical loss (Lemmas 3, 4, 7, 8; Thms 1, 6, 7).

The whole landscape factors through (A, c): L(e, w, b) = F(A(e, w), c(e, b)) with F jointly
strictly convex, and the reduced loss is L(e, w) = G(A(e, w)) with G(A) = min_c F(A, c)
strictly convex. Critical points are found by *solving* grad L = 0 through this chain rule,
case by case, and classified with the convexity of F and G (the Hessian is degenerate on
every critical set, so the second-order test alone cannot classify them).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import sympy as sp

from . import bias as _bias
from . import canonical
from ._result import Result
from ._simplify import simplify_unit
from ._symbols import A, b, c, e, sigma, w, w_neg, w_pos
from ._symbols import hessian as _hess
from .markov import MarkovChain

CHAIN = MarkovChain()


def residual(chain: MarkovChain, x, bias=b) -> sp.Expr:
    """sigma(z_x) - P(Y=1 | X=x): the per-state residual whose expectation drives every gradient."""
    z = canonical.logit(x).subs(b, bias)
    return sigma(z) - chain.transition(x, 1)


def f1_f2(chain: MarkovChain = CHAIN, bias=b) -> tuple[sp.Expr, sp.Expr]:
    """(f1, f2) with residual(X) = f1 X + f2, read off the derived residual (X is a bit: affine in X)."""
    r0, r1 = residual(chain, 0, bias), residual(chain, 1, bias)
    return r1 - r0, r0


def expect_X(chain: MarkovChain, g) -> sp.Expr:
    """E[g(X)] for X ~ Bern(pi1)."""
    return chain.pi0 * g(0) + chain.pi1 * g(1)


def gradient_with_bias(chain: MarkovChain = CHAIN) -> sp.Matrix:
    """grad L(e, w, b) in the order (e, w, b), by direct differentiation of Lemma 2's loss."""
    L = _bias.loss_with_bias(chain)
    return sp.Matrix([sp.diff(L, v) for v in (e, w, b)])


def hessian_with_bias(chain: MarkovChain = CHAIN, order=(e, w, b)) -> sp.Matrix:
    """Hessian of L(e, w, b) in the given variable order (Lemma 4 uses (b, e, w)).

    d^2(w|w|)/dw^2 = 2 sign(w) is undefined at w = 0: evaluate on a sign branch or off the e-axis.
    """
    L = _bias.loss_with_bias(chain)
    return _hess(L, order)


def reduced_gradient_direct(chain: MarkovChain = CHAIN) -> sp.Matrix:
    """grad of L(e, w) = L(e, w, b*(e, w)) by the total derivative (b* depends on e, w)."""
    Lr = _bias.reduced_loss(chain)
    return sp.Matrix([sp.diff(Lr, v) for v in (e, w)])


def reduced_gradient_envelope(chain: MarkovChain = CHAIN) -> sp.Matrix:
    """Lemma 7 by the envelope argument: partial derivatives in (e, w) at b = b*, since dL/db(b*) = 0."""
    g = gradient_with_bias(chain)
    bs = _bias.b_star(chain)
    return sp.Matrix([g[0].subs(b, bs), g[1].subs(b, bs)])


def schur_hessian(chain: MarkovChain = CHAIN) -> sp.Matrix:
    r"""Lemma 8: $H(\theta) = H_{\theta\theta} - H_{\theta b} H_{bb}^{-1} H_{b\theta}$ at b = b*(theta)."""
    H = hessian_with_bias(chain)
    Htt, Htb, Hbb = H[:2, :2], H[:2, 2], H[2, 2]
    return (Htt - Htb * Htb.T / Hbb).subs(b, _bias.b_star(chain))


def reduced_hessian_direct(chain: MarkovChain = CHAIN) -> sp.Matrix:
    """Hessian of the reduced loss L(e, w) by differentiating it twice."""
    return _hess(_bias.reduced_loss(chain), (e, w))


# ---------------------------------------------------------------------------------------------
# Structure: F(A, c) and G(A)
# ---------------------------------------------------------------------------------------------

s0, s1 = sp.symbols("s0 s1", positive=True)   # sigma(c), sigma(A + c)


def grad_F_residual_form(chain: MarkovChain = CHAIN) -> sp.Matrix:
    r"""(F_A, F_c) = E[(\sigma(AX+c) - Y)(X, 1)] written in s0 = sigma(c), s1 = sigma(A+c).

    `structure()` checks that this equals the derivative of F (d l_log((2y-1)z)/dz = sigma(z) - y).
    """
    r0, r1 = s0 - chain.transition(0, 1), s1 - chain.transition(1, 1)
    return sp.Matrix([chain.pi1 * r1, chain.pi0 * r0 + chain.pi1 * r1])


@lru_cache(maxsize=None)
def structure(chain: MarkovChain = CHAIN) -> Result:
    r"""The structural fact: L(e, w) = G(A), G convex, G'(A*) = 0, G'(0) = pi0 pi1 (p+q-1).

    G'(A) = F_A(A, c*(A)) by the envelope argument; G''(A) = F_AA - F_Ac^2 / F_cc is the Schur
    complement of F's Hessian E[sigma'(z_X) (X, 1)(X, 1)^T], equal to
    pi0 pi1 sigma'(c) sigma'(A+c) / (pi0 sigma'(c) + pi1 sigma'(A+c)) > 0.
    """
    Fexpr = _bias.F(chain)
    sig = {sp.exp(-c): (1 - s0) / s0, sp.exp(-A - c): (1 - s1) / s1}
    dF = sp.Matrix([sp.diff(Fexpr, A), sp.diff(Fexpr, c)])
    hF = _hess(Fexpr, (A, c))
    dsig0, dsig1 = s0 * (1 - s0), s1 * (1 - s1)                       # sigma' in terms of sigma
    hF_form = sp.Matrix([[chain.pi1 * dsig1, chain.pi1 * dsig1], [chain.pi1 * dsig1, chain.pi0 * dsig0 + chain.pi1 * dsig1]])
    G2 = sp.factor(sp.cancel(hF_form[0, 0] - hF_form[0, 1] ** 2 / hF_form[1, 1]))
    c_star = _bias.derive_optimal_bias(chain)["c_star"]
    Gp = dF[0].subs(c, c_star)
    # G'(0): at A = 0 the optimal offset is log(p/q) (Lemma 5's special case)
    Gp0 = grad_F_residual_form(chain)[0].subs({s0: sigma(c_star.subs(A, 0)), s1: sigma(c_star.subs(A, 0))})
    A_star = sp.log((1 - chain.p) * (1 - chain.q) / (chain.p * chain.q))
    return Result(
        ref="Sec. 3 / App. E (structure)",
        title="The reduced loss is a convex function of A",
        assumptions=("(p, q) in (0,1)^2", "any e, w"),
        expressions={
            "G": _bias.G(chain),
            "dF": dF,
            "dF_residual": grad_F_residual_form(chain),
            "sigmoid_substitution": sig,
            "hessian_F": hF,
            "hessian_F_in_s": hF_form,
            "det_hessian_F": sp.factor(hF_form.det()),
            "G_second": G2,
            "G_prime": Gp,
            "G_prime_at_0": simplify_unit(Gp0),
            "A_star": A_star,
            "G_prime_at_A_star": simplify_unit(Gp.subs(A, A_star)),
        },
        derivation="F = E[l_log((2Y-1)(AX+c))]; its gradient is the expected residual times (X, 1); "
                   "its Hessian is E[sigma'(z_X)(X,1)(X,1)^T]; G is F minimised over c (Lemma 5).",
    )


# ---------------------------------------------------------------------------------------------
# Critical points by solving grad L = 0
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class CriticalSet:
    """A family of critical points found by the case analysis, with its class and the argument."""

    name: str              # "Gamma_star", "Gamma_min", ... as in the paper
    equations: tuple       # SymPy Eq's defining the set
    condition: sp.Basic    # inequality in (p, q, w) selecting the family, or True
    classification: str    # global_min, local_min, local_max, saddle
    argument: str


def jacobian_Ac(space: str) -> sp.Matrix:
    """d(A, c)/d(theta): rows (A, c), columns (e, w, b) in R^3 or (e, w) in R^2 (where c is optimal)."""
    Aexpr, cexpr = canonical.slope_A(), canonical.offset_c()
    vars_ = (e, w, b) if space == "R3" else (e, w)
    return sp.Matrix([[sp.diff(Aexpr, v) for v in vars_], [sp.diff(cexpr, v) for v in vars_]])


def _solve_dA_zero() -> list[dict]:
    """Solve dA/de = dA/dw = 0 branch by branch (w > 0, w < 0, w = 0)."""
    Aexpr = canonical.slope_A()
    out = []
    for sub in ({w: w_pos}, {w: w_neg}, {w: sp.Integer(0)}):
        eqs = [sp.diff(Aexpr, e).subs(sub), sp.diff(Aexpr, w).subs(sub) if sub[w] != 0 else sp.Integer(0)]
        if sub[w] == 0:
            # at w = 0, d(w|w|)/dw = 2|w| = 0 is continuous: dA/dw = 0 there for every e
            eqs[1] = (4 * e**2 * sp.Abs(w)).subs(w, 0)
        sols = sp.solve([x for x in eqs if x != 0], [e], dict=True) if any(x != 0 for x in eqs) else [{}]
        for s in sols:
            out.append({**{k: v for k, v in s.items()}, "branch": str(sub[w])})
    return out


@lru_cache(maxsize=None)
def critical_points(chain: MarkovChain = CHAIN, space: str = "R3") -> tuple[CriticalSet, ...]:
    r"""All critical points of L in R^3 (Thm 6/7) or of the reduced L in R^2 (Thm 1), by solving.

    Chain rule: grad L = J^T grad F (R^3) or G'(A) grad A (R^2). Case (a): grad F = 0, i.e.
    F_A = F_c = 0, a linear system in sigma(c), sigma(A+c); case (b): grad A = 0 and F_c = 0,
    which forces e = 0 (solved on each sign branch of w), then F_c(0, b) = 0 fixes b.
    """
    p_, q_ = chain.p, chain.q
    gF = grad_F_residual_form(chain)
    # case (a): the linear system in (s0, s1)
    sol = sp.solve([gF[0], gF[1]], [s0, s1], dict=True)
    if len(sol) != 1:
        raise AssertionError(f"unexpected solutions of grad F = 0: {sol}")
    c_a = sp.log(sol[0][s0] / (1 - sol[0][s0]))
    A_a = sp.log(sol[0][s1] / (1 - sol[0][s1])) - c_a
    A_a = sp.expand_log(A_a, force=True)
    A_a = sp.logcombine(A_a, force=True)
    # case (b): e = 0 from grad A = 0, then F_c(A=0, c=b) = 0 with sigma(b) = s
    e_roots = {tuple(sorted((str(k), v) for k, v in d.items() if k != "branch")) for d in _solve_dA_zero()}
    if e_roots != {(("e", 0),)}:
        raise AssertionError(f"grad A = 0 does not force e = 0: {e_roots}")
    sb = sp.solve(gF[1].subs({s0: s1}), s1)[0]          # at A = 0 both sigmoids equal sigma(b)
    b_b = sp.simplify(sp.log(sb / (1 - sb)))
    Aexpr = canonical.slope_A()
    regime = (p_ + q_ - 1) * (1 + 2 * w * sp.Abs(w))
    if space == "R3":
        return (
            CriticalSet("Gamma_star", (sp.Eq(Aexpr, A_a), sp.Eq(canonical.offset_c(), c_a)), sp.true, "global_min",
                        "grad F = 0 has the unique solution (A*, c*); F is jointly strictly convex "
                        "(det Hess F > 0), so its preimage under the surjective (A, c) is the set of global minima."),
            CriticalSet("Gamma_min", (sp.Eq(e, 0), sp.Eq(b, b_b)), regime > 0, "local_min",
                        "L(e, w, b) >= G(A) >= G(0) + G'(0) A >= G(0) near the point, since A has the sign "
                        "of 1+2w|w| and G'(0) = pi0 pi1 (p+q-1) (G convex)."),
            CriticalSet("Gamma_sad", (sp.Eq(e, 0), sp.Eq(b, b_b)), regime <= 0, "saddle",
                        "L increases along b (d2L/db2 = pi0 pi1 > 0) and decreases along (e, w, b*(e, w)) "
                        "towards A with sign opposite to G'(0)."),
        )
    return (
        CriticalSet("Theta_star", (sp.Eq(Aexpr, A_a),), sp.true, "global_min",
                    "G'(A) = 0 only at A* (G strictly convex), and G(A*) = min G."),
        CriticalSet("Theta_min", (sp.Eq(e, 0),), regime > 0, "local_min",
                    "G(A) >= G(0) + G'(0) A >= G(0) where A has the sign of G'(0): non-strict local minimum "
                    "(the Hessian diag(2G'(0)(1+2w|w|), 0) is degenerate)."),
        CriticalSet("Theta_max", (sp.Eq(e, 0),), regime < 0, "local_max",
                    "G'(0) A <= 0 nearby and G decreases from 0 in that direction: local maximum."),
        CriticalSet("Theta_sad", (sp.Eq(e, 0), sp.Eq(w, -1 / sp.sqrt(2))), sp.true, "saddle",
                    "1+2w|w| changes sign across w = -1/sqrt(2): A takes both signs in every neighbourhood."),
    )
