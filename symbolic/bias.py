r"""The loss in the coordinates it depends on (Lemma 2), the optimal offset (Lemma 5) and G (Lemma 6, Eq. 5).

Every canonical model (with or without attention) has a logit affine in the bit, z_X = A X + c with
slope A and offset c = z_0 (derived in `canonical`), so its loss with bias is
F(A, c) = E[l_log((2Y-1)(A X + c))]; minimising over the bias is minimising over c, which gives the
optimal offset c*(A) (Lemma 5's quadratic) and G(A) = F(A, c*(A)). `model.CanonicalModel` composes
these with its derived A and c.
"""
from __future__ import annotations


import sympy as sp

from ._cache import derivation
from ._result import Result
from ._symbols import A, K, c, ell_log, sigma, u
from .markov import MarkovChain


def cross_entropy_loss(chain: MarkovChain, logit_of_x) -> sp.Expr:
    """Eq. 23 per position: -E[Y log sigma(z_X) + (1-Y) log(1 - sigma(z_X))] with (X, Y) ~ (pi, P)."""
    return chain.expect(lambda x, y: -(y * sp.log(sigma(logit_of_x(x))) + (1 - y) * sp.log(1 - sigma(logit_of_x(x)))))


def logistic_loss(chain: MarkovChain, logit_of_x) -> sp.Expr:
    """Lemma 2's form: E[l_log((2Y-1) z_X)]."""
    return chain.expect(lambda x, y: ell_log((2 * y - 1) * logit_of_x(x)))


def F(chain: MarkovChain | None = None) -> sp.Expr:
    r"""$F(A, c) = E[\ell_{\log}((2Y-1)(AX + c))]$: the loss as a function of slope and offset."""
    chain = chain or MarkovChain()
    return logistic_loss(chain, lambda x: A * x + c)


@derivation
def derive_optimal_bias(chain: MarkovChain = MarkovChain()) -> Result:
    r"""Lemma 5: solve $\partial L/\partial b = 0$ for $u = e^{b - e^2/2}$.

    dL/db = dF/dc; with u = e^c and K = e^A it is a rational function of u whose numerator is
    a quadratic. Its roots have product -p/(qK) < 0, so exactly one is positive: that one is b*.
    F is strictly convex in c (d^2F/dc^2 = E[sigma'(z_X)] > 0), so the root is the minimiser.
    """
    dF_dc = sp.diff(F(chain), c)
    in_u = sp.together(sp.expand(dF_dc.subs(c, sp.log(u)).subs(A, sp.log(K)), power_exp=True))
    numer, denom = sp.fraction(sp.cancel(in_u))
    poly = sp.Poly(numer, u)
    if poly.degree() != 2:
        raise AssertionError(f"dL/db numerator is not quadratic in u: {poly}")
    lead = poly.LC()
    quadratic = sp.expand(sp.cancel(numer / lead * (chain.q * K)))   # normalise the u^2 coefficient to qK
    a2, a1, a0 = sp.Poly(quadratic, u).all_coeffs()
    D = sp.expand(a1**2 - 4 * a2 * a0)
    u_plus, u_minus = (-a1 + sp.sqrt(D)) / (2 * a2), (-a1 - sp.sqrt(D)) / (2 * a2)
    for r in (u_plus, u_minus):
        if sp.expand(quadratic.subs(u, r)) != 0:
            raise AssertionError("quadratic formula root does not solve the quadratic")
    # Root choice: a2 = qK > 0 and a0 = -p < 0, so D - a1^2 = -4 a2 a0 > 0, sqrt(D) > |a1|, and the
    # + root is the unique positive one (the product of the roots a0/a2 is negative).
    if not (a2.is_positive and (-a0).is_positive and sp.expand(D - a1**2).is_positive):
        raise AssertionError("root-choice argument does not apply")
    product = sp.cancel(a0 / a2)
    u_star = u_plus
    c_star = sp.log(u_star).subs(K, sp.exp(A))
    return Result(
        ref="Lemma 5",
        title="Optimal bias",
        assumptions=("any e, w in R", "(p, q) in (0,1)^2"),
        expressions={
            "dL_db": dF_dc,
            "quadratic": quadratic,
            "root_product": product,
            "u_star": u_star,
            "u_minus": u_minus,
            "discriminant": D,
            "c_star": c_star,
            "u_star_stable": _stable_root(u_star, chain),
            "d2L_db2": sp.diff(F(chain), c, 2),
        },
        derivation="dL/db = 0 rewritten in u = exp(b - e^2/2), K = exp(A): numerator quadratic "
                   "qK u^2 + (q-p) u - p; the roots' product -p/(qK) is negative, the + root is the positive one.",
    )


def _stable_root(u_star: sp.Expr, chain: MarkovChain) -> sp.Expr:
    r"""The conjugate form $u^\star = 2p / (q - p + \sqrt{D})$: free of cancellation when p < q.

    Obtained by multiplying numerator and denominator by the conjugate; its equality with the
    derived root is a registered check (the numeric path uses whichever form does not cancel).
    """
    num, den = sp.fraction(sp.together(u_star))
    rest = sp.expand(num)
    root_part = [t for t in sp.Add.make_args(rest) if any(isinstance(f, sp.Pow) and f.exp == sp.S.Half for f in sp.Mul.make_args(t))][0]
    linear = rest - root_part
    conj = root_part - linear
    return sp.cancel(sp.expand(num * conj) / sp.expand(den * conj))


def G(chain: MarkovChain = MarkovChain()) -> sp.Expr:
    r"""$G(A) = \min_c F(A, c) = F(A, c^\star(A))$: the reduced loss as a function of A alone."""
    return F(chain).subs(c, derive_optimal_bias(chain)["c_star"])


@derivation
def G_derivative(n: int, chain: MarkovChain = MarkovChain()) -> sp.Expr:
    r"""$d^nG/dA^n$ of $G(A) = F(A, c^\star(A))$ itself, differentiated n times through $c^\star$ (not the
    envelope formula of `landscape.structure`, which the checks compare it with)."""
    return sp.diff(G(chain), A, n)
