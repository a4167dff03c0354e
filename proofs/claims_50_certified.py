r"""Claims once certified on cut boxes, now settled over their whole domain.

History (the rule: a certified claim weaker than a proof already present is dropped; the others are
settled over the whole domain):

* `cert.lemma8.axis_sign` (sign of the w-axis Hessian, certified for p, q in [0.001, 0.999], w in [-2, 2],
  |(p+q-1)(1+2w|w|)| >= 1/5): dropped, it is immediate from the proved `lemma8.axis` (2 pi0 pi1 > 0);
* `cert.lemma12.monotone`: dropped, Lemma 12's monotonicity is proved in `claims_20` (lemma12.i/ii/iv);
* `cert.structure.G_convex` (G'' > 0 for A in [-20, 20]): dropped, `structure.G_convex` proves G'' > 0
  for every A exactly;
* `cert.thm2.f2_negative` (f2 < 0 for |A| <= 1/50, p + q >= 6/5): now proved for every (p, q) and A,
  sign f2(b*) = sign(A* - A); the interval certificate on the old box is kept as corroboration.

The ball-arithmetic machinery (`proofs._certify`) stays: it certifies the corroboration here and is
tested on its own (tests/test_certify.py).
"""
from __future__ import annotations

import sympy as sp

from local2global.symbolic import symbols as S
from local2global.symbolic import bias
from local2global.symbolic import landscape as sland
from local2global.symbolic.markov import MarkovChain

from local2global.proofs._certify import certify_sign
from local2global.proofs._checks import W_BRANCHES_0, exact_zero, identity, sign_exact
from local2global.proofs import _steps as steps
from local2global.proofs._registry import Outcome, claim
from local2global.symbolic.model import canonical_model

_M = canonical_model()

p, q, e, w, A, b = S.p, S.q, S.e, S.w, S.A, S.b
CH = MarkovChain()
R = sp.Rational
PQ_BOX_F2 = {p: (R(1, 100), R(99, 100)), q: (R(1, 100), R(99, 100))}


def _root_forms():
    """Lemma 5's root u* = e^{c*} in the form that does not cancel on each half of the (p, q) box:
    the derived `u_star` where p >= q, its conjugate `u_star_stable` where p <= q (K = e^A)."""
    opt = bias.derive_optimal_bias(CH)
    # the discriminant as (p-q)^2 + 4pqK (checked equal exactly): expanded, p^2 - 2pq + q^2 would make
    # the ball of D straddle 0 on boxes around p = q (interval dependency), and sqrt of it undefined
    D = opt["discriminant"]
    D_sq = (p - q) ** 2 + 4 * p * q * S.K
    if sp.expand(D - D_sq) != 0:
        raise AssertionError("discriminant is not (p-q)^2 + 4pqK")
    forms = []
    for name, half in (("u_star", p - q), ("u_star_stable", q - p)):
        root = opt[name].subs(sp.sqrt(D), sp.sqrt(D_sq))
        if sp.sqrt(D_sq) not in root.atoms(sp.Pow):
            raise AssertionError(f"{name} does not contain sqrt(D)")
        forms.append((root.subs(S.K, sp.exp(A)), half))
    return tuple(forms)


def _in_u(expr_s: sp.Expr) -> sp.Expr:
    """expr(s0, s1) at s0 = sigma(c) = u/(1+u), s1 = sigma(A+c) = Ku/(1+Ku), as one rational function
    (positive terms stay positive, which keeps the balls tight)."""
    return sp.factor(sp.cancel(sp.together(expr_s.subs({sland.s0: S.u / (1 + S.u), sland.s1: S.K * S.u / (1 + S.K * S.u)}))))


d_sym = sp.Symbol("d", real=True)      # d = p - q: the boxes are taken in (d, q, A)


def _at_optimal_offset(expr_s: sp.Expr, box: dict, sign: int, where=(), **kw):
    """Certify sign(expr(s0, s1)) at c = c*(A) on the (p, q, A) `box`, once per root form.

    Boxes are taken in (d, q, A) with p = q + d for d >= 0 and in (d, p, A) with q = p - d for d <= 0, so that d >= 0 (derived root `u_star`) and d <= 0 (its
    conjugate `u_star_stable`) are unions of boxes: each form is then evaluated only where it adds
    non-negative terms (on a box straddling p = q both forms cancel and interval bounds never settle).
    The (p, q) box becomes two linear constraints per half; p, q > 0 on every box by construction.
    """
    in_u = _in_u(expr_s)
    (plo, phi), (qlo, qhi) = box[p], box[q]
    rest = {k: v for k, v in box.items() if k not in (p, q)}
    (root_ge, _), (root_le, _) = _root_forms()
    # d >= 0: variables (d, q), p = q + d > 0;  d <= 0: variables (d, p), q = p - d > 0
    halves = ((root_ge, {p: q + d_sym}, {d_sym: (0, phi - qlo), q: (qlo, qhi)}, (q + d_sym - plo, phi - q - d_sym)),
              (root_le, {q: p - d_sym}, {d_sym: (plo - qhi, 0), p: (plo, phi)}, (p - d_sym - qlo, qhi - p + d_sym)))
    out = []
    for root, sub, bx, cons in halves:
        expr = in_u.subs(S.K, sp.exp(A)).subs(S.u, root).subs(sub)
        wh = tuple(sp.sympify(g).subs(sub) for g in where) + cons
        out.append(certify_sign(expr, {**bx, **rest}, sign, where=wh, **kw))
    return out


# ---------------------------------------------------------------------------------------------
# Proof of Thm 2: f2 < 0 near the saddle when p + q > 1
# ---------------------------------------------------------------------------------------------

ETA_F2 = R(1, 5)
A_NEAR_SADDLE = (-R(1, 50), R(1, 50))
D_F2 = ("(p, q) in (0,1)^2 with p + q > 1; every theta with A(theta) > A* = log((1-p)(1-q)/(pq)) (< 0 there), "
        "in particular every theta with |A(theta)| < |A*| (a neighbourhood of the saddle)")


def _f2_interval_corroboration(form) -> tuple[bool, list]:
    """The form at b* certified negative with arb on the old box |A| <= 1/50, p, q in [1/100, 99/100],
    p + q >= 6/5 (c* in the root form that does not cancel on each half of the box)."""
    in_s = sp.sympify(form).subs(b, sp.log(sland.s0 / (1 - sland.s0)) + e**2 / 2)
    certs = _at_optimal_offset(in_s, {**PQ_BOX_F2, A: A_NEAR_SADDLE}, -1, where=(p + q - 1 - ETA_F2,), max_depth=30)
    return all(c.ok for c in certs), certs


@claim("cert.thm2.f2_negative", ref="Thm 2 (proof)", title="f2 < 0 near the saddle for p+q > 1",
       statement=r"$f_2 = \sigma(b^\star - e^2/2) - p$ has the sign of $A^\star - A$; for $p+q>1$, $A^\star<0$ and "
                 r"$f_2 < 0$ wherever $A > A^\star$, in particular for $|A| < |A^\star|$ (near the saddle).",
       printed=lambda: S.sigma(b - e**2 / 2) - p, mutant=lambda: S.sigma(b - e**2 / 2) - q,
       uses=("lemma3.f1f2", "lemma5.b_star", "lemma5.quadratic", "lemma5.root_choice"), section="certified",
       domain=D_F2)
def _check_f2(form, ctx):
    r"""Proved for every (p, q) in (0,1)^2 and every A, exactly:
    (1) the form is Lemma 3's f2 (the derived residual at X = 0);
    (2) at b = b*, b - e^2/2 = c*(A) = log u*, and f2 = (1-p)(u* - x)/(1 + u*) with x = p/(1-p) (e drops out);
    (3) u* is the positive root of g(u) = qKu^2 + (q-p)u - p with g(0) = -p < 0 and leading coefficient
        qK > 0, so for x > 0: sign(u* - x) = -sign g(x);
    (4) g(x) = p/(1-p)^2 (pqK - (1-p)(1-q)) = p^2 q/(1-p)^2 (K - K*), K* = exp(A*);
    (5) exp is increasing: sign(K - K*) = sign(A - A*). Hence sign f2 = sign(A* - A), and for p + q > 1,
        exp(A*) - 1 = (1-p-q)/(pq) < 0, i.e. A* < 0."""
    derived_f2 = _M.residual_parts()[1]
    o1 = identity(derived_f2, form, ctx, "f2.form", W_BRANCHES_0, states="The stated $f_2$ is Lemma 3's (the derived "
                  "residual at $X = 0$)")
    U, x = sp.Symbol("U", positive=True), p / (1 - p)
    at_min = sp.sympify(form).subs(b, sp.log(U) + e**2 / 2)
    e_free = e not in at_min.free_symbols
    opt = bias.derive_optimal_bias(CH)
    b_gap = sp.expand(_M.b_star - e**2 / 2 - opt["c_star"].subs(A, _M.A))
    f2_gap = at_min - (1 - p) * (U - x) / (1 + U)
    step2 = e_free and b_gap == 0 and exact_zero(f2_gap)[0]
    g, us, um = opt["quadratic"], opt["u_star"], opt["u_minus"]
    fact_gap = g - S.K * q * (S.u - us) * (S.u - um)
    step3 = exact_zero(fact_gap)[0] and sign_exact(us) == 1 and sign_exact(um) == -1
    K_star = (1 - p) * (1 - q) / (p * q)
    g_gap = sp.cancel(g.subs(S.u, x) - p**2 * q / (1 - p) ** 2 * (S.K - K_star))
    star_gap = sp.cancel(sp.exp(sland.structure(CH)["A_star"]) - K_star)
    step4 = g_gap == 0 and star_gap == 0
    neg_gap = sp.cancel(K_star - 1 - (1 - p - q) / (p * q))
    out = [*o1.steps,
           steps.exact(r"At $b = b^\star$, $b - e^2/2 = c^\star(A) = \log u^\star$ and "
                       r"$f_2 = (1 - p)(u^\star - x)/(1 + u^\star)$ with $x = p/(1 - p)$ ($e$ drops out)", step2,
                       method="SymPy: b* - e^2/2 - c*(A) expanded; the f2 identity by the exact normal form",
                       obligations=[steps.Obligation("== 0", b_gap, label="b* - e^2/2 - c*(A)"),
                                    steps.Obligation("== 0", f2_gap, label="f2 at b = log U + e^2/2")]),
           steps.exact(r"$g(u) = qK(u - u^\star)(u - u_-)$ with $u^\star > 0 > u_-$ (the roots of Lemma 5's quadratic); "
                       r"for $x > 0$, $x - u_- > 0$ and $qK > 0$, so $\mathrm{sign}(u^\star - x) = -\mathrm{sign}\,g(x)$",
                       step3, method="exact normal form (square roots rewritten) and exact signs",
                       obligations=[steps.Obligation("== 0", fact_gap, label="factorisation"),
                                    steps.Obligation("> 0", us, label="u*"), steps.Obligation("< 0", um, label="u_-")]),
           steps.exact(r"$g(p/(1-p)) = \frac{p^2q}{(1-p)^2}(K - K^\star)$ with $K^\star = e^{A^\star}$; as $\exp$ increases, "
                       r"$\mathrm{sign}(K - K^\star) = \mathrm{sign}(A - A^\star)$: $\mathrm{sign}\,f_2(b^\star) = "
                       r"\mathrm{sign}(A^\star - A)$", step4, method="SymPy: cancelled differences",
                       obligations=[steps.Obligation("== 0", g_gap, label="g(x)"),
                                    steps.Obligation("== 0", star_gap, label="exp(A*) - K*")]),
           steps.exact(r"$e^{A^\star} - 1 = (1 - p - q)/(pq)$: for $p + q > 1$, $A^\star < 0$", neg_gap == 0,
                       method="SymPy: the difference cancelled", obligations=[steps.Obligation("== 0", neg_gap, label="K* - 1")])]
    corr = []
    if all(s_.ok for s_ in out):
        c_ok, certs = _f2_interval_corroboration(form)
        corr.append(steps.interval(r"$f_2(b^\star) < 0$ on the old box $|A| \le 1/50$, $p, q \in [1/100, 99/100]$, "
                                   r"$p + q \ge 6/5$", c_ok, method="interval arithmetic (arb, python-flint), adaptive boxes",
                                   domain="|A| <= 1/50, p, q in [1/100, 99/100], p + q >= 6/5",
                                   count=sum(c.boxes for c in certs),
                                   values=[("", c.summary()) for c in certs]))
    return Outcome.of(*out, corroboration=corr,
                      checked_domain="(p, q) in (0,1)^2 and every theta: sign f2(b*) = sign(A* - A)")
