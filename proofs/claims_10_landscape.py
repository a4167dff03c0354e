r"""Claims of Sec. 2-3 and App. C-E: the chain, the canonical logit, the loss with and without bias,
its gradients, Hessians and critical points (Eq. 3, Lemmas 2-8, Theorems 1, 6, 7, Remarks 1-4).

Each check compares our derivation (symbolic/) with the paper's printed form; `printed` is the
paper's statement as quoted (or reconstructed where the paper omits it), `mutant` an altered statement
that the same check must reject. Identities are decided exactly on every sign branch of w (and at
w = 0) by `_checks.identity`, whose normal form turns exp, log and the square root of Lemma 5 into
arithmetic in a field; sampled evaluations are kept only as corroboration. The critical points are
solved and their classes derived by the model (`canonical_model().critical_sets`); the checks here
compare them with the printed families exactly and verify the completeness argument step by step.
"""
from __future__ import annotations

import functools
import itertools
import random
import zlib
from dataclasses import replace

import mpmath as mp
import sympy as sp

from local2global.numeric.precision import working
from local2global.numeric import Landscape
from local2global.symbolic import symbols as S
from local2global.symbolic import bias, canonical, landscape
from local2global.symbolic.markov import MarkovChain, printed_entropy_rate

from local2global.proofs._checks import (W_BRANCHES_0, critical_sets_outcome, e_axis_cover, match_classes, exact_zero, identity, matrix_identity,
                                         rational_in, relation_form, same_relation, sample_points, sign_exact,
                                         substitute)
from local2global.proofs import _steps as steps
from local2global.proofs._registry import Outcome, claim, combine
from local2global.symbolic.model import canonical_model

_M = canonical_model()

p, q, e, w, b, A, c, X, u, K = S.p, S.q, S.e, S.w, S.b, S.A, S.c, S.X, S.u, S.K
CH = MarkovChain()
pi0, pi1 = CH.stationary
absw = sp.Abs(w)
A_printed = e**2 * (1 + 2 * w * absw)
A_STAR = sp.log((1 - p) * (1 - q) / (p * q))

#: stated domains (in words)
D_PQ = "(p, q) in (0,1)^2"
D_EWB = D_PQ + "; (e, w, b) in R^3"
D_EW = D_PQ + "; (e, w) in R^2"
D_NOT_IID = "(p, q) in (0,1)^2 with p + q != 1"


def _sign_word(s) -> str:
    return {1: "positive", -1: "negative", 0: "zero", None: "undecided"}.get(s, str(s))


_CLASS_WORDS = {"global_min": "global minimum", "local_min": "local minimum", "local_max": "local maximum",
                "saddle": "saddle", "flat": "flat"}
#: the critical families in LaTeX, for the steps' statements
FAMILY_TEX = {"Theta_star": r"$\Theta^\star$", "Theta_min": r"$\Theta_{\min}$", "Theta_max": r"$\Theta_{\max}$",
              "Theta_sad": r"$\Theta_{\mathrm{sad}}$", "Gamma_star": r"$\Gamma^\star$", "Gamma_min": r"$\Gamma_{\min}$",
              "Gamma_sad": r"$\Gamma_{\mathrm{sad}}$"}
HESS_NOTE = "w != 0 (w|w| is C^1, not C^2, at w = 0: off e = 0 the Hessian does not exist there)"


# --- derived objects the checks compare the forms with ------------------------------------------------
# None of them depends on the form under test: one computation per process serves a claim's printed form,
# its negative control and the other claims that compare with it (a model is an argument: tests swap `_M`).

@functools.cache
def _d2L_db2(model) -> sp.Expr:
    """d^2 L/db^2 of Lemma 2's loss."""
    return sp.diff(model.loss_with_bias, b, 2)


def _printed_logit(offset_sign=-1):
    return A_printed * X + b + offset_sign * e**2 / 2


def _b_star_printed(sign=+1):
    """Lemma 5 (Eq. 30) as printed: b* = e^2/2 + log((p - q + sqrt((p-q)^2 + 4pqK))/(2qK)), K = exp(A)."""
    Kx = sp.exp(A_printed)
    return e**2 / 2 + sp.log((p - q + sign * sp.sqrt((p - q) ** 2 + 4 * p * q * Kx)) / (2 * q * Kx))


def _on(out: Outcome, stated: str) -> Outcome:
    """The outcome with its checked domain named: the stated domain when proved (the check was exact
    there), else the sampled region the outcome already names. The steps are kept as they are."""
    if out.level == "proved":
        branches = out.checked_domain.split("(sign branches", 1)
        tail = f" (exact on the sign branches{branches[1]}" if len(branches) > 1 else ""
        return replace(out, checked_domain=stated + tail)
    return out


# --- Sec. 2: the chain -----------------------------------------------------------------------

@claim("sec2.stationary", ref="Sec. 2", title="Stationary distribution",
       statement=r"$\pi = (\pi_0, \pi_1) = (q, p)/(p+q)$ satisfies $\pi P = \pi$.",
       printed=lambda: (q / (p + q), p / (p + q)), mutant=lambda: (p / (p + q), q / (p + q)), section="setting",
       domain=D_PQ)
def _stationary(form, ctx):
    pi = sp.Matrix([form]).T
    resid = (pi.T * CH.kernel - pi.T).T.col_join(sp.Matrix([sum(form) - 1]))
    return _on(matrix_identity(resid, sp.zeros(3, 1), ctx, "sec2.stationary",
                               states=r"The printed $\pi$ satisfies $\pi P = \pi$ and $\pi_0 + \pi_1 = 1$"), D_PQ)


@claim("sec2.entropy_rate", ref="Sec. 2", title="Entropy rate",
       statement=r"$H(x_{n+1}\mid x_n) = \frac{1}{p+q}\,(q\,h(p) + p\,h(q))$.",
       printed=lambda: printed_entropy_rate(CH),
       mutant=lambda: (p * S.binary_entropy(p) + q * S.binary_entropy(q)) / (p + q),
       uses=("sec2.stationary",), section="setting", domain=D_PQ)
def _entropy_rate(form, ctx):
    return _on(identity(CH.entropy_rate, form, ctx, "sec2.entropy_rate",
                        states=r"The form equals $H(x_{n+1}\mid x_n)$ computed from the chain's joint law"), D_PQ)


@claim("sec2.marginal_entropy", ref="Sec. 2", title="Marginal entropy",
       statement=r"$H(x_n) = H(\pi) = h(\pi_1)$.",
       printed=lambda: S.binary_entropy(pi1), mutant=lambda: S.binary_entropy(p),
       uses=("sec2.stationary",), section="setting", domain=D_PQ)
def _marginal(form, ctx):
    return _on(identity(CH.marginal_entropy, form, ctx, "sec2.marginal_entropy",
                        states=r"The form equals $H(x_n)$, the entropy of the stationary law"), D_PQ)


# --- Eq. 3: the canonical logit, computed from the transformer ----------------------------------

def _logit_matrices_step(form, flip=True, alphas=None, branches=S.BRANCHES, what="") -> steps.Step:
    """The form against the logit computed by the transformer with explicit matrices (d = 1, 2, the given sign
    vectors alpha, the given sign branches of (e, w), both bits), each difference expanded to 0."""
    alphas = alphas or [s for d in (1, 2) for s in itertools.product((1, -1), repeat=d)]
    mismatches, obl = [], []
    for signs in alphas:
        for label, sub in branches.items():
            for x in (0, 1):
                lhs, rhs = canonical.rank_one_logits(flip)[(x, signs, label)], form.subs(X, x).subs(sub)
                diff = lhs - rhs
                obl.append(steps.Obligation.equal(lhs, rhs, unit_pq=False, label=f"alpha={signs}, {label}, x={x}"))
                if sp.expand(diff) != 0:
                    mismatches.append(f"alpha = ({', '.join(map(str, signs))}), {label}, x = {x}: difference "
                                      f"{steps.tex(sp.expand(diff))}")
    return steps.exact(f"The logit of the transformer with explicit matrices equals the form{what} for d = 1, 2, every "
                       r"$\alpha$, every sign branch of $(e, w)$ and both bits", not mismatches,
                       method="SymPy: the explicit layers applied, the difference expanded",
                       domain=f"d = 1, 2; {len(alphas)} sign vectors alpha; {len(branches)} sign branches; x in {{0, 1}}",
                       values={"cases": str(len(obl)), "mismatches": str(len(mismatches))}
                       | ({"first": mismatches[0]} if mismatches else {}), obligations=obl)


def _logit_any_d(form, flip=True, branches=S.BRANCHES, what="") -> steps.Step:
    r"""The same layers for every d at once: every vector of the construction is a multiple of the unit
    vector alpha_e (in R^d) or of the all-ones vector 1 (in R^{4d}), so the layers act on coefficients
    with alpha_e . alpha_e = 1 and 1 . 1 = 4d (d a positive integer symbol): W_1 (k alpha_e) =
    (|w|/sqrt d) k 1, ReLU(k 1) = max(0, k) 1, W_2 (k 1) = (w/sqrt d) 4d k alpha_e, and the tied head is
    the token embedding (token = |e| alpha_e with alpha_e = sign(e) alpha when alpha is flipped with e,
    token = e alpha otherwise). Exact on the given sign branches of (e, w), both bits."""
    d = sp.Symbol("d", positive=True, integer=True)
    bad, obl = [], []
    for label, sub in branches.items():
        ee, ww = sub[e], sub[w]
        for x in (0, 1):
            tok = sp.Abs(ee) if flip else ee                   # the token embedding's coefficient on alpha_e
            y = x * tok - tok / 2                              # x token + positional, W_V = 0
            hidden = sp.Max(0, sp.Abs(ww) / sp.sqrt(d) * y)    # every one of the 4d hidden units
            z = y + ww / sp.sqrt(d) * 4 * d * hidden
            diff = tok * z + b - form.subs(X, x).subs(sub)
            obl.append(steps.Obligation.equal(tok * z + b, form.subs(X, x).subs(sub), unit_pq=False,
                                              label=f"{label}, x={x}"))
            if sp.expand(diff) != 0:
                bad.append(f"{label}, x = {x}")
    return steps.exact(f"For every dimension $d \\geq 1$ (a symbol) the layers, acting on the coefficients of "
                       f"$\\alpha_e$ and of the all-ones vector, give the form{what} on every sign branch and both bits",
                       not bad, method="SymPy: span algebra with d a positive integer symbol, the difference expanded",
                       domain=f"every d >= 1; {len(branches)} sign branches of (e, w); x in {{0, 1}}",
                       values={"branches and bits that differ": ", ".join(bad) if bad else "none"}, obligations=obl)


@claim("eq3.logit", ref="Eq. 3", title="Canonical logit",
       statement=r"On the rank-one manifold, $\mathrm{logit}(x_n) = e^2(1+2w|w|)\,x_n + b - e^2/2$.",
       printed=_printed_logit, mutant=lambda: _printed_logit(+1), section="canonical",
       domain="(e, w, b) in R^3, x_n in {0, 1}, every dimension d >= 1 and every alpha with entries ±1 divided by the square root of d")
def _eq3(form, ctx):
    return Outcome.of(_logit_any_d(form), _logit_matrices_step(form),
                      checked_domain="(e, w, b) in R^3 (4 sign branches), both bits, every d >= 1 (symbolic d); "
                                     "explicit matrices for d = 1, 2 and every alpha")


@claim("eq3.sign_of_e", ref="Eq. 3 (App. C)", title="The sign of e is absorbed into alpha",
       statement=r"For $e<0$ the construction must flip $\alpha$ everywhere; keeping $\alpha$ adds $-2w|w|e^2$ to the offset.",
       printed=lambda: _printed_logit() - 2 * w * absw * e**2,
       mutant=_printed_logit, uses=("eq3.logit",), section="canonical",
       domain="e < 0, (w, b) in R^2, x_n in {0, 1}, the construction with alpha kept, every d >= 1 and every alpha")
def _eq3_sign(form, ctx):
    # the unflipped construction, on e<0 only (for e>0 both constructions coincide)
    neg = {k: v for k, v in S.BRANCHES.items() if k.startswith("e<0")}
    what = r" on $e < 0$ with $\alpha$ kept"
    return Outcome.of(_logit_any_d(form, flip=False, branches=neg, what=what),
                      _logit_matrices_step(form, flip=False, alphas=[(1,), (1, -1)], branches=neg, what=what),
                      checked_domain="e < 0 (both w branches), both bits, every d >= 1 (symbolic d); explicit matrices "
                                     "for d = 1, 2")


# --- Lemma 2 ----------------------------------------------------------------------------------

@claim("lemma2.logistic", ref="Lemma 2", title="Loss as a logistic function",
       statement=r"$L(e,w,b) = \mathbb{E}_{(X,Y)\sim(\pi,P)}[\ell_{\log}((2Y-1)\,\mathrm{logit}_X)]$, "
                 r"$\mathrm{logit}_X = e^2(1+2w|w|)X + b - e^2/2$.",
       printed=lambda: bias.logistic_loss(CH, lambda x: _printed_logit().subs(X, x)),
       mutant=lambda: CH.expect(lambda x, y: S.ell_log((1 - 2 * y) * _printed_logit().subs(X, x))),
       uses=("eq3.logit", "sec2.stationary"), section="landscape", domain=D_EWB)
def _lemma2(form, ctx):
    # the cross-entropy of Eq. 23 at one position, with the logit computed from the transformer
    ce = bias.cross_entropy_loss(CH, _M.logit)
    return _on(identity(ce, form, ctx, "lemma2", W_BRANCHES_0,
                        states="The form equals the cross-entropy of Eq. 23 with the logit computed from the transformer"),
               D_EWB)


# --- Lemma 5: optimal bias ------------------------------------------------------------------------

OPT = bias.derive_optimal_bias


@claim("lemma5.quadratic", ref="Lemma 5", title="Optimal bias: the quadratic",
       statement=r"$u = e^{b^\star - e^2/2}$ is the positive root of $qK u^2 + (q-p)u - p = 0$, $K = e^{A}$.",
       printed=lambda: q * K * u**2 + (q - p) * u - p, mutant=lambda: q * K * u**2 + (p - q) * u - p,
       uses=("lemma2.logistic",), section="bias", domain=D_PQ + "; K > 0, u > 0")
def _lemma5_quad(form, ctx):
    return _on(identity(OPT()["quadratic"], form, ctx, "lemma5.quadratic",
                        states=r"The form is the quadratic derived from $\partial L/\partial b = 0$ in $u = e^{b - e^2/2}$"),
               D_PQ + "; K > 0, u > 0")


def _d2L_db2_printed():
    r"""$\partial^2 L/\partial b^2 = E[\sigma'(z_X)] = \pi_0\sigma'(z_0) + \pi_1\sigma'(z_1)$, $\sigma' = \sigma(1-\sigma)$,
    with the printed logits."""
    z = lambda x: _printed_logit().subs(X, x)
    return CH.expect_X(lambda x: S.sigma(z(x)) * (1 - S.sigma(z(x))))


@claim("lemma5.root_choice", ref="Lemma 5", title="Optimal bias: root choice and convexity in b",
       statement=r"The roots' product is $-p/(qK) < 0$: exactly one root is positive; "
                 r"$\partial^2 L/\partial b^2 = \mathbb{E}[\sigma'(\mathrm{logit}_X)] > 0$.",
       printed=lambda: (-p / (q * K), _d2L_db2_printed()), mutant=lambda: (p / (q * K), _d2L_db2_printed()),
       uses=("lemma5.quadratic",), section="bias", domain=D_EWB + "; K > 0")
def _lemma5_roots(form, ctx):
    """form = (product of the roots, d^2L/db^2). The product against the derived quadratic's (Vieta) and
    its sign; d^2L/db^2 of Lemma 2's loss against the printed E[sigma'(z_X)], and that form's sign, both
    exact: a negative product of the two (real) roots means exactly one is positive, and L strictly
    convex in b makes that root the unique minimiser."""
    prod, d2 = form
    same = identity(OPT()["root_product"], prod, ctx, "lemma5.roots",
                    states="The printed product is the product of the roots of the derived quadratic (Vieta)")
    neg = steps.exact("The product of the roots is negative, so exactly one root is positive", sign_exact(prod) == -1,
                      method="exact sign of the normal form's factors on (p, q) in (0,1)^2, K > 0",
                      domain=D_PQ + "; K > 0", values={"product": steps.tex(prod)},
                      obligations=[steps.Obligation("< 0", prod)])
    d2_same = identity(_d2L_db2(_M), d2, ctx, "lemma5.d2", W_BRANCHES_0,
                       states=r"$\partial^2 L/\partial b^2$ of Lemma 2's loss equals the printed $\mathbb{E}[\sigma'(\mathrm{logit}_X)]$")
    signs = {lab: sign_exact(sp.sympify(d2).subs(sub)) for lab, sub in W_BRANCHES_0.items()}
    convex = steps.exact(r"The printed $\partial^2 L/\partial b^2$ is positive on the whole domain ($L$ strictly convex in $b$)",
                         all(v == 1 for v in signs.values()),
                         method="exact sign of the normal form's factors on each sign branch of w", domain=D_EWB,
                         values={lab: _sign_word(v) for lab, v in signs.items()},
                         obligations=[steps.Obligation("> 0", sp.sympify(d2).subs(sub), label=lab)
                                      for lab, sub in W_BRANCHES_0.items()])
    out = Outcome.of(*same.steps, neg, *d2_same.steps, convex)
    return replace(out, checked_domain=D_EWB + "; K > 0") if out.level == "proved" else out


@claim("lemma5.b_star", ref="Lemma 5", title="Optimal bias: closed form",
       statement=r"$b^\star = \frac{e^2}{2} + \log\frac{p - q + \sqrt{(p-q)^2 + 4pqK}}{2qK}$, "
                 r"$K = \exp(e^2(1+2w|w|))$; it zeroes $\partial L/\partial b$.",
       printed=_b_star_printed, mutant=lambda: _b_star_printed().subs(sp.sqrt((p - q) ** 2 + 4 * p * q * sp.exp(A_printed)),
                                                                      sp.sqrt((p - q) ** 2 + 2 * p * q * sp.exp(A_printed))),
       uses=("lemma5.quadratic", "lemma5.root_choice"), section="bias", domain=D_EW)
def _lemma5_bstar(form, ctx):
    """Independent of the closed form's derivation: dL/db of Lemma 2's loss must vanish at b = form. In
    u = exp(b - e^2/2), K = exp(A) the numerator of dL/db is the quadratic, and at the form u is an
    element of QQ(p, q, K)(sqrt(D)): the exact normal form decides it is a root."""
    dLdb = sp.diff(_M.loss_with_bias, b).subs(b, form)
    return _on(identity(dLdb, sp.Integer(0), ctx, "lemma5.b_star", W_BRANCHES_0,
                        states=r"$\partial L/\partial b$ of Lemma 2's loss vanishes at $b$ = the form"), D_EW)


@claim("lemma5.special_cases", ref="Lemma 5", title="Optimal bias: special cases",
       statement=r"If $e^2(1+2w|w|) = \log\frac{(1-p)(1-q)}{pq}$ then $b^\star - e^2/2 = \log\frac{p}{1-p}$; "
                 r"if $e = 0$ then $b^\star = \log\frac{p}{q}$.",
       printed=lambda: (sp.log(p / (1 - p)), sp.log(p / q)), mutant=lambda: (sp.log(p / (1 - p)), sp.log(q / p)),
       uses=("lemma5.b_star",), section="bias", domain=D_PQ)
def _lemma5_special(form, ctx):
    opt = _M.optimal_bias
    o1 = identity(opt["c_star_at_A_star"], form[0], ctx, "lemma5.special.1",
                  states=r"At $A = A^\star$ the derived $b^\star - e^2/2$ is the first printed value")
    o2 = identity(opt["b_star_at_e0"], form[1], ctx, "lemma5.special.2",
                  states=r"At $e = 0$ the derived $b^\star$ is the second printed value")
    return _on(combine(o1, o2), D_PQ)


def _stable_printed(num=p):
    return 2 * num / (q - p + sp.sqrt((p - q) ** 2 + 4 * p * q * K))


@claim("lemma5.stable_form", ref="Lemma 5 (stable form)", title="Cancellation-free root",
       statement=r"$u^\star = \frac{p-q+\sqrt{D}}{2qK} = \frac{2p}{q-p+\sqrt{D}}$, $D = (p-q)^2+4pqK$ "
                 r"(the second form does not cancel when $p<q$; the numeric engines use it).",
       printed=_stable_printed, mutant=lambda: _stable_printed(q),
       uses=("lemma5.b_star",), section="bias", domain=D_PQ + "; K > 0")
def _lemma5_stable(form, ctx):
    """The typed conjugate form against the derived root u* and against the conjugate the code derives
    (`u_star_stable`, which the numeric engines evaluate)."""
    o1 = identity(OPT()["u_star"], form, ctx, "lemma5.stable",
                  states=r"The form equals the derived positive root $u^\star$")
    o2 = identity(OPT()["u_star_stable"], form, ctx, "lemma5.stable.code",
                  states="The form equals the conjugate form the numeric engines evaluate")
    return _on(combine(o1, o2), D_PQ + "; K > 0")


# --- Lemma 6 and the structure L = G(A) -----------------------------------------------------------

def _lemma6_printed(slope=A_printed):
    r"""Lemma 6 as printed: $L(\theta) = E[\ell_{\log}((2Y-1)(e^2(1+2w|w|)X + b^\star - e^2/2))]$ with the
    printed b* of Eq. 30."""
    return bias.logistic_loss(CH, lambda x: slope * x + _b_star_printed() - e**2 / 2)


@claim("lemma6.reduced", ref="Lemma 6", title="Reduced loss as a logistic function of A",
       statement=r"$L(e,w) = \min_b L(e,w,b) = \mathbb{E}[\ell_{\log}((2Y-1)(e^2(1+2w|w|)X + b^\star - e^2/2))]$ with "
                 r"$b^\star$ of Eq. 30; hence $L(e,w) = G(e^2(1+2w|w|))$, $G(A) = \min_c \mathbb{E}[\ell_{\log}((2Y-1)(AX+c))]$.",
       printed=_lemma6_printed, mutant=lambda: _lemma6_printed(e**2 * (1 + w * absw)),
       uses=("lemma2.logistic", "lemma5.b_star", "lemma5.root_choice"), section="landscape", domain=D_EW)
def _lemma6(form, ctx):
    r"""Not by construction: the form (printed logistic loss with the printed b*) is compared (1) with the
    cross-entropy of Eq. 23 of the transformer's logit at the *derived* minimiser b* (solved from the
    quadratic; minimal by lemma5.root_choice), and (2) with G(e^2(1+2w|w|)), G(A) = F(A, c*(A)) built from
    F(A, c) = E[l_log((2Y-1)(AX + c))] and its own minimiser c*(A): the printed b* and A enter only the form."""
    ce_at_min = substitute(bias.cross_entropy_loss(CH, _M.logit), {b: _M.b_star})
    o1 = identity(ce_at_min, form, ctx, "lemma6.min", W_BRANCHES_0,
                  states=r"The cross-entropy at the derived minimiser $b^\star$ equals the form")
    o2 = identity(bias.G(CH).subs(A, A_printed), form, ctx, "lemma6.G", W_BRANCHES_0,
                  states=r"$G(e^2(1+2w|w|))$, with $G(A) = F(A, c^\star(A))$ built from its own minimiser, equals the form")
    return _on(combine(o1, o2), D_EW)


def _G_second_printed(scale=1):
    """The statement's G'' in s0 = sigma(c*), s1 = sigma(A + c*), with sigma' = s(1 - s)."""
    d0, d1 = landscape.s0 * (1 - landscape.s0), landscape.s1 * (1 - landscape.s1)
    return scale * pi0 * pi1 * d0 * d1 / (pi0 * d0 + pi1 * d1)


def _G_second_in_t(form=None):
    """G'' (the structure's, or `form`) in t0, t1 > 0 with sigma = 1/(1 + t): the expression whose positivity
    is the strict convexity of G (the obligation of every step that uses G'' > 0)."""
    t0, t1 = sp.symbols("t0 t1", positive=True)
    g2 = landscape.structure(CH)["G_second"] if form is None else form
    return sp.factor(sp.cancel(sp.sympify(g2).subs({landscape.s0: 1 / (1 + t0), landscape.s1: 1 / (1 + t1)})))


def _at_c_star(expr_s):
    """An expression in s0 = sigma(c), s1 = sigma(A + c) at the optimal offset c = c*(A)."""
    cs = OPT()["c_star"]
    return sp.sympify(expr_s).subs({landscape.s0: S.sigma(cs), landscape.s1: S.sigma(A + cs)})


@claim("structure.G_convex", ref="Sec. 3 / App. E (structure)", title="G is strictly convex",
       statement=r"$G''(A) = \frac{\pi_0\pi_1\sigma'(c^\star)\sigma'(A+c^\star)}{\pi_0\sigma'(c^\star)+\pi_1\sigma'(A+c^\star)} > 0$ "
                 r"(Schur complement of $\nabla^2 F$).",
       printed=_G_second_printed, mutant=lambda: _G_second_printed(2), uses=("lemma6.reduced",), section="landscape",
       domain=D_PQ + "; A in R")
def _g_convex(form, ctx):
    """(1) The form at c = c*(A) equals d^2G/dA^2 of G(A) = F(A, c*(A)), differentiated twice directly
    (not through the Schur complement), exactly; (2) the form equals the Schur complement
    F_AA - F_Ac^2/F_cc of Hess F written in sigmoids (`structure`), exactly; (3) the form is positive
    for all s0, s1 in (0, 1) (sigma = 1/(1+t), t > 0: a factored expression in positive symbols), and
    s0 = sigma(c*), s1 = sigma(A + c*) lie in (0, 1) for every A."""
    o1 = identity(bias.G_derivative(2, CH), _at_c_star(form), ctx, "G''",
                  states=r"$d^2G/dA^2$ of $G(A) = F(A, c^\star(A))$, differentiated directly, equals the form at $c^\star$")
    o2 = identity(landscape.structure(CH)["G_second"], form, ctx, "G'' Schur",
                  states=r"The Schur complement $F_{AA} - F_{Ac}^2/F_{cc}$ of $\nabla^2 F$ in sigmoids equals the form")
    as_t = _G_second_in_t(form)
    pos = steps.exact(r"The form is positive for all $s_0, s_1 \in (0, 1)$, the values of $\sigma$: with "
                      r"$\sigma = 1/(1 + t)$, $t > 0$, it is a factored expression in positive symbols",
                      bool(as_t.is_positive), method="SymPy sign of the factored expression in t0, t1 > 0",
                      domain="s0, s1 in (0, 1), hence every A", values={"form in t0, t1": steps.tex(as_t)},
                      obligations=[steps.Obligation("> 0", as_t)])
    return _on(Outcome.of(*o1.steps, *o2.steps, pos), D_PQ + "; A in R")


@claim("structure.G_prime", ref="Sec. 3 / App. E (structure)", title="G'(0) and G'(A*)",
       statement=r"$G'(0) = \pi_0\pi_1(p+q-1)$ and $G'(A^\star) = 0$ at $A^\star = \log\frac{(1-p)(1-q)}{pq}$.",
       printed=lambda: (pi0 * pi1 * (p + q - 1), A_STAR),
       mutant=lambda: (pi0 * pi1 * (1 - p - q), A_STAR),
       uses=("structure.G_convex", "lemma5.special_cases"), section="landscape", domain=D_PQ)
def _g_prime(form, ctx):
    """G' = dG/dA of G(A) = F(A, c*(A)) itself (not the envelope formula), at A = 0 and at the form's A*."""
    Gp = bias.G_derivative(1, CH)
    o1 = identity(Gp.subs(A, 0), form[0], ctx, "G'(0)", states=r"$G'(0)$, $G' = dG/dA$ of $G(A) = F(A, c^\star(A))$, is the first printed value")
    o2 = identity(Gp.subs(A, form[1]), sp.Integer(0), ctx, "G'(A*)", states=r"$G'$ vanishes at the printed $A^\star$")
    return _on(combine(o1, o2), D_PQ)


# --- Lemma 3: gradients with bias -----------------------------------------------------------------

def _f1f2_printed(shift_p=0):
    f1 = S.sigma(2 * e**2 * w * absw + b + e**2 / 2) + q - 1 - S.sigma(b - e**2 / 2) + p
    f2 = S.sigma(b - e**2 / 2) - p - shift_p
    return f1, f2


@claim("lemma3.f1f2", ref="Lemma 3", title="The residual is f1 X + f2",
       statement=r"$\sigma(\mathrm{logit}_X) - P(Y{=}1\mid X) = f_1X + f_2$, $f_1 = \sigma(2e^2w|w|+b+\tfrac{e^2}{2}) + q - 1 "
                 r"- \sigma(b-\tfrac{e^2}{2}) + p$, $f_2 = \sigma(b - \tfrac{e^2}{2}) - p$.",
       printed=_f1f2_printed, mutant=lambda: _f1f2_printed(shift_p=q - p), uses=("eq3.logit",), section="landscape",
       domain=D_EWB)
def _lemma3_f(form, ctx):
    f1, f2 = _M.residual_parts()
    return _on(matrix_identity(sp.Matrix([f1, f2]), sp.Matrix(form), ctx, "lemma3.f1f2", W_BRANCHES_0,
                               states=r"The derived residual $\sigma(\mathrm{logit}_X) - P(Y{=}1\mid X)$, split as "
                                      r"$f_1 X + f_2$, has the printed $f_1$, $f_2$"), D_EWB)


def _grad_printed(f1, f2, wcoef=4, bias_term=True):
    EX = pi1 * (f1 + f2)          # E[(f1X+f2)X]
    E1 = pi1 * f1 + f2            # E[f1X+f2]
    return sp.Matrix([2 * e * (1 + 2 * w * absw) * EX - (e * E1 if bias_term else 0), wcoef * e**2 * absw * EX, E1])


@claim("lemma3.gradient", ref="Lemma 3", title="Gradient with bias",
       statement=r"$\partial_b L = \mathbb{E}[f_1X+f_2]$, $\partial_w L = 4e^2|w|\,\mathbb{E}[(f_1X+f_2)X]$, "
                 r"$\partial_e L = 2e(1+2w|w|)\,\mathbb{E}[(f_1X+f_2)X] - e\,\mathbb{E}[f_1X+f_2]$.",
       printed=lambda: _grad_printed(*_f1f2_printed()), mutant=lambda: _grad_printed(*_f1f2_printed(), wcoef=2),
       uses=("lemma2.logistic", "lemma3.f1f2"), section="landscape", domain=D_EWB)
def _lemma3_grad(form, ctx):
    # w = 0 included: w|w| is C^1 and d(w|w|)/dw = |w| + w sign(w) = 2|w| there too
    return _on(matrix_identity(_M.gradient_with_bias, form, ctx, "lemma3.grad", W_BRANCHES_0,
                               states="The gradient of Lemma 2's loss, differentiated directly, equals the printed one"),
               D_EWB)


REMARK2_M = sp.Matrix([[2 * e * (1 + 2 * w * absw), -e], [4 * e**2 * absw, 0], [0, 1]])


@claim("remark2.two_expectations", ref="Remark 2", title="All gradients are governed by two expectations",
       statement=r"$\nabla_{(e,w,b)}L = M\,\big(\mathbb{E}[(f_1X+f_2)X],\ \mathbb{E}[f_1X+f_2]\big)^\top$ with "
                 r"$M = \begin{pmatrix}2e(1+2w|w|) & -e\\ 4e^2|w| & 0\\ 0 & 1\end{pmatrix}$: up to scalings in "
                 r"$(e, w)$ the two expectations govern every gradient, and the $e$- and $w$-gradients carry a factor $e$.",
       printed=lambda: REMARK2_M, mutant=lambda: REMARK2_M.subs(e, 1),
       uses=("lemma3.gradient", "lemma3.f1f2"), section="landscape", domain=D_EWB)
def _remark2(form, ctx):
    """form = M. The two expectations are built from the *derived* f1, f2 (not the printed ones of Lemma
    3), M (T1, T2) is compared with the gradient of Lemma 2's loss, and the e- and w-rows of M must vanish
    at e = 0 (the factor e the remark points out)."""
    f1, f2 = _M.residual_parts()
    T = sp.Matrix([CH.expect_X(lambda x: (f1 * x + f2) * x), CH.expect_X(lambda x: f1 * x + f2)])
    same = matrix_identity(_M.gradient_with_bias, form * T, ctx, "remark2", W_BRANCHES_0,
                           states=r"The gradient of Lemma 2's loss equals $M\,(T_1, T_2)^\top$, $T_1, T_2$ the two "
                                  r"expectations built from the derived $f_1, f_2$")
    rows = [form[i, j].subs(e, 0) for i in (0, 1) for j in (0, 1)]
    factor_e = steps.exact(r"The $e$- and $w$-rows of $M$ vanish at $e = 0$ (they carry a factor $e$)",
                           all(sp.expand(x) == 0 for x in rows), method="SymPy substitution e = 0", domain=D_EWB,
                           obligations=[steps.Obligation.at("== 0", form[i, j], {e: 0}, label=f"entry {2 * i + j}")
                                        for i in (0, 1) for j in (0, 1)])
    return _on(Outcome.of(*same.steps, factor_e), D_EWB)


# --- Lemma 4 and Remark 3: Hessian on Gamma_min / Gamma_sad ---------------------------------------------

D_LEMMA4 = D_PQ + "; e = 0, b = log(p/q), w in R (Gamma_min and Gamma_sad)"


def _lemma4_printed(coef=2):
    return sp.diag(pi0 * pi1, coef * pi0 * pi1 * (p + q - 1) * (1 + 2 * w * absw), 0)


def _hessian_on_e_axis(order):
    """The Hessian of Lemma 2's loss in the variable `order`, at e = 0, b = log(p/q) (b* at e = 0)."""
    return substitute(substitute(_M.hessian_with_bias(order=order), {e: 0}), {b: sp.log(p / q)})


@claim("lemma4.hessian", ref="Lemma 4", title="Hessian at local minima and saddles (order b, e, w)",
       statement=r"At $e=0$, $b=\log(p/q)$: $\nabla^2 L = \mathrm{diag}(\pi_0\pi_1,\ 2\pi_0\pi_1(p+q-1)(1+2w|w|),\ 0)$.",
       printed=_lemma4_printed, mutant=lambda: _lemma4_printed(1),
       uses=("lemma3.gradient",), section="landscape", domain=D_LEMMA4)
def _lemma4(form, ctx):
    # at e = 0 every second derivative through w|w| carries e^2, so the Hessian exists at w = 0 as well
    return _on(matrix_identity(_hessian_on_e_axis((b, e, w)), form, ctx, "lemma4", W_BRANCHES_0,
                               states=r"The Hessian of Lemma 2's loss in the ordering $(b, e, w)$ at $e = 0$, "
                                      r"$b = \log(p/q)$ equals the printed matrix"), D_LEMMA4)


@claim("remark3.ordering", ref="Remark 3", title="Lemma 4's Hessian is in the ordering (b, e, w)",
       statement=r"Lemma 4's matrix is $P H P^\top$, $H$ the Hessian in the ordering $(e, w, b)$ and $P$ the "
                 r"permutation to the ordering $(b, e, w)$.",
       printed=lambda: (b, e, w), mutant=lambda: (e, w, b), uses=("lemma4.hessian",), section="landscape",
       domain=D_LEMMA4)
def _remark3(form, ctx):
    """form = the ordering. H = the model's Hessian in its own ordering (e, w, b); P the permutation
    matrix with P[i, j] = 1 iff form[i] is the j-th of (e, w, b); P H P^T must equal Lemma 4's printed
    matrix exactly (and the Hessian taken directly in the form's ordering, which shows P is the change of
    ordering). A wrong ordering puts pi0 pi1 elsewhere on the diagonal."""
    base = (e, w, b)
    if sorted(map(str, form)) != sorted(map(str, base)):
        return Outcome.of(steps.exact("The form is an ordering of $(e, w, b)$", False, method="comparison of names",
                                      domain="the form", values={"form": ", ".join(map(str, form))}))
    P = sp.Matrix(3, 3, lambda i, j: 1 if form[i] == base[j] else 0)
    H = _hessian_on_e_axis(base)
    perm = P * H * P.T
    order = ", ".join(map(str, form))
    o1 = matrix_identity(perm, _lemma4_printed(), ctx, "remark3", W_BRANCHES_0,
                         states=rf"$P H P^\top$, $P$ the permutation to the ordering $({order})$, is Lemma 4's matrix")
    o2 = matrix_identity(perm, _hessian_on_e_axis(tuple(form)), ctx, "remark3.direct", W_BRANCHES_0,
                         states=rf"$P H P^\top$ is the Hessian taken directly in the ordering $({order})$")
    return _on(combine(o1, o2), D_LEMMA4)


# --- Lemma 7 and Remark 4: reduced gradient ---------------------------------------------------------------

def _lemma7_printed(scale=1):
    """Lemma 7 as printed, at the printed b* of Eq. 30 (the form shares nothing with the derived b*)."""
    return scale * _grad_printed(*_f1f2_printed(), bias_term=False)[:2, 0].subs(b, _b_star_printed())


@claim("lemma7.gradient", ref="Lemma 7", title="Reduced gradient (envelope)",
       statement=r"At $b = b^\star$: $\partial_e L = 2e(1+2w|w|)\mathbb{E}[(f_1X+f_2)X]$, "
                 r"$\partial_w L = 4e^2|w|\,\mathbb{E}[(f_1X+f_2)X]$ (total derivatives of $L(e,w)$).",
       printed=_lemma7_printed, mutant=lambda: _lemma7_printed(2),
       uses=("lemma3.gradient", "lemma5.b_star"), section="landscape", domain=D_EW)
def _lemma7(form, ctx):
    # the total derivative of L(theta, b*(theta)) (b* derived, differentiated through its square root)
    return _on(matrix_identity(_M.gradient_direct(), form, ctx, "lemma7", W_BRANCHES_0,
                               states=r"The total derivative of $L(\theta, b^\star(\theta))$ ($b^\star$ derived) equals "
                                      r"the printed gradient"), D_EW)


@claim("lemma7.balance", ref="Lemma 7", title="pi1 f1 + f2 = 0 at the optimal bias",
       statement=r"At $b = b^\star$: $\pi_1 f_1 + f_2 = 0$.",
       printed=lambda: (pi1, 1), mutant=lambda: (pi0, 1), uses=("lemma5.b_star", "lemma3.f1f2"), section="landscape",
       domain=D_EW)
def _lemma7_bal(form, ctx):
    f1, f2 = _f1f2_printed()
    expr = (form[0] * f1 + form[1] * f2).subs(b, _M.b_star)
    return _on(identity(expr, sp.Integer(0), ctx, "lemma7.balance", W_BRANCHES_0,
                        states=r"The printed combination of $f_1$, $f_2$ vanishes at the derived $b^\star$"), D_EW)


@claim("remark4.proportional", ref="Remark 4", title="Reduced gradients are proportional",
       statement=r"$4e^2|w|\,\partial_e L = 2e(1+2w|w|)\,\partial_w L$ for the reduced loss: $\nabla L \parallel \nabla A$.",
       printed=lambda: (4 * e**2 * absw, 2 * e * (1 + 2 * w * absw)),
       mutant=lambda: (2 * e**2 * absw, 2 * e * (1 + 2 * w * absw)),
       uses=("lemma7.gradient",), section="landscape", domain=D_EW)
def _remark4(form, ctx):
    g = _M.gradient_direct()
    return _on(identity(form[0] * g[0] - form[1] * g[1], sp.Integer(0), ctx, "remark4", W_BRANCHES_0,
                        states=r"With the printed factors, the two components of the reduced gradient are proportional"),
               D_EW)


# --- Lemma 8: reduced Hessian ---------------------------------------------------------------------------

D_LEMMA8 = D_EW + ", " + HESS_NOTE


@claim("lemma8.schur", ref="Lemma 8", title="Reduced Hessian is a Schur complement",
       statement=r"$\nabla^2 L(\theta) = H_{\theta\theta} - H_{\theta b}H_{bb}^{-1}H_{b\theta}$ at $b = b^\star(\theta)$.",
       printed=lambda: -1, mutant=lambda: +1, uses=("lemma7.gradient", "lemma4.hessian"), section="landscape",
       domain=D_LEMMA8)
def _lemma8(form, ctx):
    """The Hessian of L(theta, b*(theta)) differentiated twice directly (b* derived, through its root)
    against H_tt + form H_tb H_bt / H_bb of Lemma 2's loss at b*, exactly on w > 0 and w < 0."""
    H = _M.hessian_with_bias()
    Htt, Htb, Hbb = H[:2, :2], H[:2, 2], H[2, 2]
    schur = substitute(Htt + form * Htb * Htb.T / Hbb, {b: _M.b_star})
    return _on(matrix_identity(_M.hessian_direct(), schur, ctx, "lemma8", S.W_BRANCHES,
                               states=r"The Hessian of $L(\theta, b^\star(\theta))$, differentiated directly, is "
                                      r"$H_{\theta\theta} + (\text{form})\,H_{\theta b}H_{b\theta}/H_{bb}$ at $b^\star$"),
               D_LEMMA8)


D_AXIS = D_PQ + "; e = 0, w in R"


@claim("lemma8.axis", ref="Lemma 8", title="Reduced Hessian on the w-axis",
       statement=r"At $e = 0$: $\nabla^2 L(\theta) = \mathrm{diag}(2\pi_0\pi_1(p+q-1)(1+2w|w|),\ 0)$ (degenerate).",
       printed=lambda: sp.diag(2 * pi0 * pi1 * (p + q - 1) * (1 + 2 * w * absw), 0),
       mutant=lambda: sp.diag(2 * pi0 * pi1 * (p + q - 1) * (1 - 2 * w * absw), 0),
       uses=("lemma8.schur",), section="landscape", domain=D_AXIS)
def _lemma8_axis(form, ctx):
    # at e = 0 the w-derivatives of w|w| carry e^2: the Hessian exists at (0, 0) too
    Hs = substitute(_M.schur_hessian(), {e: 0})
    return _on(matrix_identity(Hs, form, ctx, "lemma8.axis", W_BRANCHES_0,
                               states=r"The reduced Hessian at $e = 0$ equals the printed matrix"), D_AXIS)


# --- Theorems 6, 7, 1: critical points and their classes -----------------------------------------------

REGIME = (p + q - 1) * (1 + 2 * w * absw)


def _printed_sets(space):
    if space == "R3":
        return {"Gamma_star": ((A_printed, A_STAR), (b - e**2 / 2, sp.log(p / (1 - p)))),
                "Gamma_min": ((e, 0), (b, sp.log(p / q)), REGIME > 0),
                "Gamma_sad": ((e, 0), (b, sp.log(p / q)), REGIME <= 0)}
    return {"Theta_star": ((A_printed, A_STAR),),
            "Theta_min": ((e, 0), REGIME > 0),
            "Theta_max": ((e, 0), REGIME < 0),
            "Theta_sad": ((e, 0), (w, -1 / sp.sqrt(2)))}


def _mutate_sets(sets):
    out = dict(sets)
    key = "Gamma_min" if "Gamma_min" in sets else "Theta_min"
    eqs = sets[key]
    out[key] = eqs[:-1] + ((p + q - 1) * (1 - 2 * w * absw) > 0,)
    return out


def _grad_A_zero_set() -> list[steps.Step]:
    r"""$\nabla A = 0 \iff e = 0$, exactly and independently of the model's `solve`: on each branch w > 0,
    w < 0 a power of e lies in the ideal of the components of ∇A with w invertible (1 - t w adjoined;
    Groebner basis), so every common zero with w != 0 has e = 0; at w = 0, ∇A = (2e, 0); and e = 0
    zeroes ∇A everywhere."""
    t, wp = sp.symbols("t_ w_")
    rows, ok, members = [], True, []
    for lab, sub in S.W_BRANCHES.items():
        comps = [sp.expand(g.subs(sub)).subs(sub[w], wp) for g in _M.grad_A]
        G = sp.groebner(comps + [1 - t * wp], t, wp, e, order="lex")
        k = next((k for k in range(1, 5) if G.contains(e**k)), None)
        ok &= k is not None
        rows.append((lab, f"$e^{{{k}}}$ is in the ideal" if k else "no power of $e$ in the ideal"))
        if k is not None:
            # the membership as a statement on the branch: the components vanish -> e^k = 0 (a kernel finds cofactors)
            members.append(steps.Obligation("== 0", e**k, unit_pq=False, label=lab, hypotheses=tuple(
                sp.Eq(sp.expand(g.subs(sub)), 0, evaluate=False) for g in _M.grad_A)))
    at0 = [sp.expand(g.subs(w, 0)) for g in _M.grad_A]
    k0 = sp.groebner([x for x in at0 if x != 0] or [sp.Integer(0)], e, order="lex").contains(e)
    rows.append(("w=0", f"$\\nabla A = ({', '.join(map(sp.latex, at0))})$, $e$ is {'in' if k0 else 'not in'} the ideal"))
    if k0:
        members.append(steps.Obligation("== 0", e, unit_pq=False, label="w=0", hypotheses=tuple(
            sp.Eq(x, 0, evaluate=False) for x in at0 if x != 0)))
    off = steps.exact(r"A common zero of the components of $\nabla A$ has $e = 0$: on $w > 0$ and $w < 0$ a power of $e$ "
                      r"lies in their ideal ($w$ invertible), and at $w = 0$, $\nabla A = (2e, 0)$", ok and k0,
                      method="SymPy Groebner bases (lex order) and ideal membership", domain="(e, w) in R^2", values=rows,
                      obligations=members)
    on_axis = [sp.expand(g.subs(e, 0)) for g in _M.grad_A]
    # on each sign branch of w (where |w| and sign(w) are polynomials) and at w = 0
    branches = [(lab, sub) for lab, sub in S.W_BRANCHES.items()] + [("w=0", {w: 0})]
    suff = steps.exact(r"$e = 0$ zeroes $\nabla A$ for every $w$", all(x == 0 for x in on_axis),
                       method="SymPy substitution e = 0", domain="the w-axis",
                       obligations=[steps.Obligation.at("== 0", g.subs(sub), {e: 0}, unit_pq=False,
                                                        label=f"entry {i}, {lab}")
                                    for lab, sub in branches for i, g in enumerate(_M.grad_A)])
    solved = all(f.get("e") == 0 for f in _M.grad_A_zeros)
    agree = steps.exact("The model's own solution of $\\nabla A = 0$ agrees: every family it finds has $e = 0$", solved,
                        method="comparison with the model's solution by SymPy's solve", domain="(e, w) in R^2",
                        values={"families": str(len(_M.grad_A_zeros))})
    return [off, suff, agree]


# the completeness argument does not depend on the form under test: the printed form and the negative
# control of a claim share one computation
@functools.lru_cache(maxsize=None)
def _completeness(space, ctx) -> Outcome:
    r"""The proof that the families exhaust the critical points, step by step (exact):

    R^2: ∇L = G'(A)∇A (chain rule of L = G∘A, checked against the total derivative of L(θ, b*(θ)));
    G' = 0 only at A* (G'' > 0: structure.G_convex; G'(A*) = 0: structure.G_prime); ∇A = 0 iff e = 0
    (`_grad_A_zero_set`). R^3: ∇L(θ, b) = F_A ∇A + F_c ∇z0 at (A, z0) (chain rule), ∂A/∂b = 0 and ∂z0/∂b
    = 1, so ∂L/∂b = F_c: zero iff z0 = c*(A) (Lemma 5: the unique positive root); there F_A = G' (envelope,
    checked: dG/dA = F_A(A, c*(A))), so the θ-part is G'(A)∇A: A = A* or e = 0 as in R^2, with
    c*(A*) = log(p/(1-p)) and c*(0) = log(p/q) (lemma5.special_cases)."""
    Gp = bias.G_derivative(1, CH)
    found = []
    if space == "R2":
        found += matrix_identity(_M.gradient_direct(), Gp.subs(A, _M.A) * _M.grad_A, ctx, "thm1.chain", W_BRANCHES_0,
                                 states=r"$\nabla L = G'(A)\nabla A$: the total derivative of $L(\theta, b^\star(\theta))$ "
                                        r"is the chain rule through $G$").steps
    else:
        Fx = bias.F(CH)
        FA, Fc = (sp.diff(Fx, v).subs({A: _M.A, c: _M.z0}) for v in (A, c))
        chain = sp.Matrix([FA * sp.diff(_M.A, v) + Fc * sp.diff(_M.z0, v) for v in _M.params_with_bias])
        found += matrix_identity(_M.gradient_with_bias, chain, ctx, "thm6.chain", W_BRANCHES_0,
                                 states=r"$\nabla L(\theta, b) = F_A\nabla A + F_c\nabla z_0$ at $(A, z_0)$ (chain rule)").steps
        dA, dz = sp.diff(_M.A, b), sp.diff(_M.z0, b)
        found.append(steps.exact(r"$\partial A/\partial b = 0$ and $\partial z_0/\partial b = 1$, so $\partial L/\partial b = F_c$, "
                                 r"zero exactly at $z_0 = c^\star(A)$", dA == 0 and dz == 1, method="SymPy derivatives",
                                 domain=D_EWB, obligations=[steps.Obligation("== 0", dA), steps.Obligation("== 0", dz - 1)],
                                 uses=("lemma5.root_choice",)))
        found += identity(Gp, sp.diff(Fx, A).subs(c, OPT()["c_star"]), ctx, "thm6.envelope",
                          states=r"$G'(A) = F_A(A, c^\star(A))$ (envelope), so the $\theta$-part is $G'(A)\nabla A$ there").steps
    st = landscape.structure(CH)
    found.append(steps.exact(r"$G'' > 0$, so $G'$ vanishes only at $A^\star$ (where it does vanish)",
                             st["G_second_positive"] == sp.true and st["G_prime_at_A_star"] == 0,
                             method="the structure's exact sign of G'' (structure.G_convex) and G'(A*) = 0 (structure.G_prime)",
                             domain="A in R", uses=("structure.G_convex", "structure.G_prime"),
                             obligations=[steps.Obligation("> 0", _G_second_in_t()),
                                          steps.Obligation("== 0", Gp.subs(A, A_STAR))]))
    found += _grad_A_zero_set()
    return Outcome.of(*found)


def _set_points(name, space, rng, n=3):
    """n exact/high-precision points on a printed critical set (p, q, e, w[, b]) for both regimes."""
    pts = []
    for regime in (+1, -1):
        for _ in range(n):
            while True:
                pp, qq = rational_in(rng, 0, 1), rational_in(rng, 0, 1)
                if sp.sign(pp + qq - 1) == regime:
                    break
            ww = rational_in(rng, -2, 2)
            if name.endswith("_star"):
                Ast = sp.log((1 - pp) * (1 - qq) / (pp * qq))
                # need sign(1+2w|w|) = sign(A*) for e^2 = A*/(1+2w|w|) > 0
                while sp.sign(1 + 2 * ww * abs(ww)) != sp.sign(Ast):
                    ww = rational_in(rng, -2, 2)
                ee = sp.sqrt(Ast / (1 + 2 * ww * abs(ww)))
            elif name.endswith("_sad") and space == "R2":
                ee, ww = sp.Integer(0), -1 / sp.sqrt(2)
            else:
                ee = sp.Integer(0)
            pts.append((pp, qq, ee, ww))
    return pts


def _gradient_on_sets(form, space, ctx):
    """max |grad L| at points of the printed sets (high precision): the sampled corroboration."""
    rng = random.Random(zlib.crc32(space.encode()))
    worst, count = mp.mpf(0), 0
    for name in form:
        for pp, qq, ee, ww in _set_points(name, space, rng, n=2):
            count += 1
            with working(ctx.dps, extra=20):
                e_m, w_m = mp.mpf(sp.N(ee, ctx.dps + 30)), mp.mpf(sp.N(ww, ctx.dps + 30))
                L = Landscape(pp, qq)
                if space == "R3":
                    with Landscape.working_precision((e_m, w_m), None, ctx.dps + 20):
                        bstar = L.b_star((e_m, w_m))
                    with Landscape.working_precision((e_m, w_m), bstar, ctx.dps + 20):
                        g = L.grad_b((e_m, w_m), bstar)
                else:
                    with Landscape.working_precision((e_m, w_m), None, ctx.dps + 20):
                        g = L.grad((e_m, w_m))
                worst = max([worst] + [abs(x) for x in g])
    return worst, count


def _cover_step(form, bias: bool) -> steps.Step:
    """`e_axis_cover` as a step, with the identity it decides (the two conditions on e = 0 are complementary)."""
    ok, _ = e_axis_cover(form, bias=bias)
    keys = ("Gamma_min", "Gamma_sad") if bias else ("Theta_min", "Theta_max")
    obl, vals = [], {}
    try:
        (k1, f1), (k2, f2) = (relation_form(form[k][-1]) for k in keys)
        obl.append(steps.Obligation.equal(f1, -f2, label="complementary sides"))
        vals = {keys[0]: f"{steps.tex(f1)} {k1} 0", keys[1]: f"{steps.tex(f2)} {k2} 0"}
        if not bias:
            vals["Theta_sad"] = ", ".join(f"{steps.tex(lhs)} = {steps.tex(rhs)}" for lhs, rhs in form["Theta_sad"])
    except (ValueError, KeyError, IndexError, TypeError) as ex:
        vals = {"conditions": f"not comparable ({ex})"}
    what = ("the conditions of Gamma_min and Gamma_sad are complementary" if bias else
            "the conditions of Theta_min and Theta_max are opposite, and their common boundary on e = 0 is Theta_sad's w")
    return steps.exact("The printed families on $e = 0$ cover the line $e = 0$", ok,
                       method=f"exact: {what} (the zero of 1 + 2w|w| solved on each branch)",
                       domain="the line e = 0, p + q != 1", values=vals, obligations=obl)


def _sets_check(form, ctx):
    """Proved: the model's solved families equal the printed ones exactly (`critical_sets_outcome`:
    equations by exact identity, conditions by exact comparison of the relations), the printed families
    on e = 0 cover that line, and the completeness argument (`_completeness`) holds step by step.
    Corroboration (sampled): the conditions at 300 random rational points and |grad L| at points of the
    printed sets, high precision."""
    space = "R3" if "Gamma_star" in form else "R2"
    derived = {cs.name: cs for cs in _M.critical_sets(space == "R3")}
    same = critical_sets_outcome(derived, form, ctx, branches=W_BRANCHES_0)
    proof = _completeness(space, ctx)
    worst, count = _gradient_on_sets(form, space, ctx)
    tol_exp = ctx.dps - 15
    grad = steps.sampled(r"$|\nabla L|$ vanishes at points of the printed sets", worst < mp.mpf(10) ** (-tol_exp),
                         method=f"Landscape gradient at {ctx.dps + 20} digits",
                         domain="points of every printed set, both regimes, (p, q) random rationals, w in (-2, 2)",
                         count=count, digits=ctx.dps + 20,
                         values={"max |grad L|": mp.nstr(worst, 3), "tolerance": f"1e-{tol_exp}"})
    out = Outcome.of(*same.steps, _cover_step(form, space == "R3"), *proof.steps,
                     corroboration=[*same.corroborations, grad])
    stated = D_NOT_IID + ("; (e, w, b) in R^3" if space == "R3" else "; (e, w) in R^2")
    return replace(out, checked_domain=stated) if out.level == "proved" else out


@claim("thm6.critical_points", ref="Thm 6", title="All critical points with bias (R^3)",
       statement=r"$\nabla L(e,w,b) = 0 \iff (e,w,b) \in \Gamma^\star \cup \Gamma_{\min} \cup \Gamma_{\mathrm{sad}}$: "
                 r"$\Gamma^\star = \{e^2(1+2w|w|) = \log\frac{(1-p)(1-q)}{pq},\ b - \frac{e^2}{2} = \log\frac{p}{1-p}\}$, "
                 r"$\Gamma_{\min} = \{e=0,\ b=\log\frac{p}{q},\ (p+q-1)(1+2w|w|) > 0\}$, "
                 r"$\Gamma_{\mathrm{sad}} = \{e=0,\ b=\log\frac pq,\ (p+q-1)(1+2w|w|) \le 0\}$.",
       printed=lambda: _printed_sets("R3"), mutant=lambda: _mutate_sets(_printed_sets("R3")),
       uses=("lemma3.gradient", "structure.G_convex", "structure.G_prime", "lemma5.special_cases",
             "lemma5.root_choice"), section="critical", domain=D_NOT_IID + "; (e, w, b) in R^3")
def _thm6(form, ctx):
    return _sets_check(form, ctx)


@claim("thm1.critical_points", ref="Thm 1", title="All critical points of the reduced loss (R^2)",
       statement=r"$\nabla L(e,w) = 0 \iff (e,w) \in \Theta^\star\cup\Theta_{\min}\cup\Theta_{\max}\cup\Theta_{\mathrm{sad}}$, "
                 r"$\Theta^\star = \{e^2(1+2w|w|) = \log\frac{(1-p)(1-q)}{pq}\}$, $\Theta_{\min/\max} = \{e = 0,\ "
                 r"(p+q-1)(1+2w|w|) \gtrless 0\}$, $\Theta_{\mathrm{sad}} = \{(0, -1/\sqrt2)\}$.",
       printed=lambda: _printed_sets("R2"), mutant=lambda: _mutate_sets(_printed_sets("R2")),
       uses=("lemma7.gradient", "structure.G_convex", "structure.G_prime"), section="critical",
       domain=D_NOT_IID + "; (e, w) in R^2")
def _thm1(form, ctx):
    return _sets_check(form, ctx)


def _neighbourhood_class(L, point, space, ctx, rng, n_dirs=24):
    """Empirical class of a critical point from loss values at random nearby points (high precision).

    The radius 10^-(dps/6) keeps third-order changes (the saddle's leading term) far above the
    comparison tolerance 10^-(dps-5)."""
    radius_exp = max(2, ctx.dps // 6)
    with working(ctx.dps, extra=20):
        pp = [mp.mpf(sp.N(x, ctx.dps + 30)) for x in point]

        def ev(t):
            theta, b_ = (t[0], t[1]), (t[2] if space == "R3" else None)
            with Landscape.working_precision(theta, b_, ctx.dps + 20):
                return L.loss(theta) if b_ is None else L.loss_b(theta, b_)

        L0 = ev(pp)
        r = mp.mpf(10) ** (-radius_exp)
        tol = mp.mpf(10) ** (-(ctx.dps - 5))
        above = below = 0
        for _ in range(n_dirs):
            d = [mp.mpf(rng.randint(-1000, 1000)) / 1000 for _ in pp]
            val = ev([x + r * dx for x, dx in zip(pp, d)])
            above += val > L0 + tol
            below += val < L0 - tol
    if above and below:
        return "saddle", L0
    if below and not above:
        return "local_max", L0
    if above:
        return "local_min", L0
    return "flat", L0


def _printed_classes(space):
    """Thm 1 / Thm 7 as printed: per family its class and its loss (H(x_{n+1}|x_n) = (q h(p) + p h(q))/(p+q)
    on the global minima, H(x_n) = h(pi_1) on the rest); Thm 1 adds that Theta* lies in w < -1/sqrt 2 for p+q > 1."""
    rate, marg = printed_entropy_rate(CH), S.binary_entropy(pi1)
    if space == "R3":
        return {"Gamma_star": ("global_min", rate), "Gamma_min": ("local_min", marg), "Gamma_sad": ("saddle", marg)}
    return {"Theta_star": ("global_min", rate), "Theta_min": ("local_min", marg), "Theta_max": ("local_max", marg),
            "Theta_sad": ("saddle", marg), "Theta_star_w_bound": -1 / sp.sqrt(2)}


def _swap_classes(form, a_, b_):
    out = dict(form)
    out[a_], out[b_] = (form[b_][0], form[a_][1]), (form[a_][0], form[b_][1])
    return out


def _family_loss(name, space):
    """The loss on a family, exactly, through the proved structure: L = G(A) (Lemma 6) on Theta*, where A = A*,
    and on e = 0, where A = 0; with bias L(theta, b) = F(A, z0) (Lemma 2), (A*, log(p/(1-p))) on Gamma*
    and (0, log(p/q)) on Gamma_min, Gamma_sad (b* there, lemma5.special_cases)."""
    st = landscape.structure(CH)
    if space == "R2":
        return substitute(bias.G(CH), {A: st["A_star"] if name.endswith("_star") else 0})
    at = {A: st["A_star"], c: sp.log(p / (1 - p))} if name.endswith("_star") else {A: 0, c: sp.log(p / q)}
    return substitute(bias.F(CH), at)


def _classification(form, space, ctx):
    r"""Proved: (1) each printed family (its region as printed in Thm 1 / Thm 6) is matched exactly to the
    model's derived family with the same region, and the derived class must equal the printed label; the
    classes are derived by the model from G'' > 0, G'(A*) = 0, the sign of G'(0) Q on e = 0 (and with
    bias from L(θ, b) >= G(A(θ)) and F_cc > 0), whose premises are checked here exactly: G'' > 0, G'(0) has
    the sign of p + q - 1, A = e^2 Q with Q|_{e=0} = 1 + 2w|w| of the sign the model uses; (2) the printed
    loss of each family equals the loss there exactly; (3) the gap H(π) - H(x_{n+1}|x_n) of the printed
    losses is the mutual information E[log P(Y|X)/P(Y)] exactly; (4) (R^2) Θ* ⊂ {w < printed bound} for
    p + q > 1. Corroboration (sampled): a 24-direction neighbourhood test at points of every family."""
    printed_sets = _printed_sets(space)
    derived = _M.critical_sets(space == "R3")
    fams = {k: v for k, v in form.items() if k in printed_sets}
    found = [steps.exact("The form classifies the families of the theorem, by name", set(fams) == set(printed_sets),
                         method="comparison of names", values={"form": ", ".join(sorted(fams)),
                                                              "theorem": ", ".join(sorted(printed_sets))})]
    matched, how = match_classes([(n, printed_sets[n], cls) for n, (cls, _) in fams.items()], derived)
    found.append(steps.exact("Each printed family is the derived family with the same region, whose derived class is "
                             "the printed one", matched,
                             method="exact comparison of the regions (equations and conditions); the classes derived by "
                                    "the model from the structure", domain="every family",
                             values=[tuple(x.split(": ", 1)) if ": " in x else ("", x) for x in how]))
    # the premises of the derived classes, exactly
    st = landscape.structure(CH)
    cls_in = _M._classes
    g0 = sp.cancel(st["G_prime_at_0"] / (p + q - 1))
    found.append(steps.exact(r"$G'' > 0$ (the structure's exact sign)", st["G_second_positive"] == sp.true,
                             method="structure.G_convex", domain="A in R", uses=("structure.G_convex",),
                             obligations=[steps.Obligation("> 0", _G_second_in_t())]))
    found.append(steps.exact(r"$G'(0)/(p + q - 1) > 0$: $G'(0)$ has the sign of $p + q - 1$", sign_exact(g0) == 1,
                             method="exact sign of the normal form's factors", domain=D_PQ, values={"G'(0)/(p+q-1)": steps.tex(g0)},
                             obligations=[steps.Obligation("> 0", g0)]))
    Q = cls_in["Q"]
    found.append(steps.exact(r"$A = e^2 Q$ with $Q$ a function of $w$ alone", sp.cancel(_M.A / e**2 - Q) == 0 and Q.free_symbols <= {w},
                             method="SymPy cancel", domain="(e, w) in R^2", values={"Q": steps.tex(Q)},
                             obligations=[steps.Obligation.equal(_M.A, e**2 * Q)]))
    rho = sp.cancel(cls_in["sign"] / REGIME)
    rule = sp.cancel(st["G_prime_at_0"] * Q / cls_in["sign"] - cls_in["positive_factor"])
    found.append(steps.exact(r"The model's sign rule on $e = 0$: $G'(0)\,Q = (\text{positive factor})\,(p + q - 1)(1 + 2w|w|)$",
                             sign_exact(rho) == 1 and rule == 0, method="exact sign and SymPy cancel", domain=D_EW,
                             values={"sign the model uses": steps.tex(cls_in["sign"])},
                             obligations=[steps.Obligation("> 0", rho), steps.Obligation("== 0", rule)]))
    # the loss values and the gap
    losses = {}
    for name, (_, loss) in fams.items():
        losses[name] = loss
        found += identity(_family_loss(name, space), loss, ctx, f"loss/{name}",
                          states=f"The loss on {FAMILY_TEX[name]} is the printed value").steps
    star = [n for n in fams if n.endswith("_star")]
    rest = [n for n in fams if not n.endswith("_star")]
    if star and rest:
        found += identity(losses[rest[0]] - losses[star[0]], CH.mutual_information, ctx, "gap",
                          states=r"The gap of the printed losses is the mutual information $I(x_n; x_{n+1})$").steps
        for n in rest[1:]:
            found += identity(losses[n], losses[rest[0]], ctx, "eq",
                              states=f"The printed losses on {FAMILY_TEX[n]} and {FAMILY_TEX[rest[0]]} agree").steps
    if space == "R2":
        found += _star_bound(form.get("Theta_star_w_bound"), ctx)
    stated = D_NOT_IID + ("; (e, w, b) in R^3" if space == "R3" else "; (e, w) in R^2")
    out = Outcome.of(*found, corroboration=[_neighbourhood_corroboration(fams, space, ctx)])
    return replace(out, checked_domain=stated) if out.level == "proved" else out


def _star_bound(w0, ctx) -> list[steps.Step]:
    """For p + q > 1: A* < 0 (exp(A*) - 1 = (1-p-q)/(pq), exactly), so on Θ* e^2(1+2w|w|) = A* < 0 forces
    h(w) = 1 + 2w|w| < 0; h is strictly increasing (h' = 4|w| > 0 off w = 0), so h < 0 iff w < w0 for the
    zero w0 of h: the printed bound must be that zero."""
    if w0 is None:
        return [steps.exact(r"The form prints a bound on $w$ over $\Theta^\star$", False, method="comparison",
                            domain="the form")]
    out = list(identity(sp.exp(A_STAR) - 1, (1 - p - q) / (p * q), ctx, "bound",
                   states=r"$e^{A^\star} - 1 = (1 - p - q)/(pq)$, so $A^\star < 0$ for $p + q > 1$, and "
                          r"$1 + 2w|w| < 0$ on $\Theta^\star$").steps)
    h = 1 + 2 * w * absw
    at = sp.radsimp(h.subs(w, w0))
    slopes = {lab: sp.diff(h.subs(sub), sub[w]) for lab, sub in S.W_BRANCHES.items()}
    out.append(steps.exact(rf"$1 + 2w|w|$ vanishes at the printed bound ${sp.latex(w0)}$ and is strictly increasing, so it "
                           r"is negative exactly below the bound", sp.expand(at) == 0 and all(sign_exact(d) == 1 for d in slopes.values()),
                           method="SymPy substitution; exact sign of the derivative on each branch", domain="w in R",
                           values={"bound": steps.tex(w0)},
                           obligations=[steps.Obligation.at("== 0", h, {w: w0}, unit_pq=False)]
                           + [steps.Obligation("> 0", d, unit_pq=False, label=lab) for lab, d in slopes.items()]))
    return out


@functools.lru_cache(maxsize=None)
def _neighbourhood_evidence(names: tuple, space, ctx) -> dict:
    """Per family of `names`: the empirical classes found at its points (`_neighbourhood_class`) and the loss
    errors above tolerance. It depends on the families' names only (not on the classes a form asserts), so a
    claim's printed form and its negative control share one computation."""
    rng = random.Random(zlib.crc32(("class" + space).encode()))
    out = {}
    for name in names:
        found, errs = [], []
        for pp, qq, ee, ww in _set_points(name, space, rng, n=2):
            chain = MarkovChain(pp, qq)
            regime = (pp + qq - 1) * (1 + 2 * ww * abs(ww))
            if name.endswith(("_min", "_max")) and not ((regime > 0) if name.endswith("_min") else (regime < 0)):
                continue            # the point lies on the other piece of the w-axis
            if name == "Gamma_sad" and regime > 0:
                continue
            L = Landscape(pp, qq)
            pt = (ee, ww, sp.log(pp / qq) if not name.endswith("_star") else
                  (sp.log(pp / (1 - pp)) + ee**2 / 2)) if space == "R3" else (ee, ww)
            emp, L0 = _neighbourhood_class(L, pt, space, ctx, rng)
            target = chain.entropy_rate if name.endswith("_star") else chain.marginal_entropy
            with working(ctx.dps):
                loss_err = abs(L0 - mp.mpf(sp.N(target, ctx.dps + 10)))
            found.append("global_min" if name.endswith("_star") and emp == "local_min" else emp)
            if loss_err > mp.mpf(10) ** (-(ctx.dps - 10)):
                errs.append(loss_err)
        out[name] = (tuple(found), tuple(errs))
    return out


def _neighbourhood_corroboration(fams, space, ctx) -> steps.Step:
    ok, rows, count, bad_loss = True, [], 0, 0
    evidence = _neighbourhood_evidence(tuple(fams), space, ctx)
    for name, (cls, _) in fams.items():
        found, errs = evidence[name]
        count += len(found)
        bad_loss += len(errs)
        ok &= not errs and set(found) == {cls}
        rows.append((name, ", ".join(_CLASS_WORDS.get(x, x) for x in sorted(set(found)))
                     + (f"; loss off by up to {mp.nstr(max(errs), 3)}" if errs else "")))
    radius = max(2, ctx.dps // 6)
    return steps.sampled("Near points of every family the loss rises, falls or both as the printed class says, and "
                         "equals the printed loss", ok,
                         method=f"24 random directions at radius 1e-{radius}, {ctx.dps + 20} digits",
                         domain="points of the families at random rational (p, q) in both regimes, w in (-2, 2)",
                         count=count, digits=ctx.dps + 20, values=rows)


@claim("thm7.classification", ref="Thm 7", title="Classes and losses of the critical points with bias",
       statement=r"$\Gamma^\star$: global minima with $L = H(x_{n+1}\mid x_n)$; $\Gamma_{\min}$: local minima, "
                 r"$\Gamma_{\mathrm{sad}}$: saddles, both with $L = H(x_n)$; the gap is $I(x_n; x_{n+1})$.",
       printed=lambda: _printed_classes("R3"),
       mutant=lambda: _swap_classes(_printed_classes("R3"), "Gamma_min", "Gamma_sad"),
       uses=("thm6.critical_points", "structure.G_prime", "lemma5.root_choice", "lemma6.reduced", "lemma2.logistic",
             "sec2.entropy_rate", "sec2.marginal_entropy"), section="critical",
       domain=D_NOT_IID + "; (e, w, b) in R^3")
def _thm7(form, ctx):
    return _classification(form, "R3", ctx)


@claim("thm1.classification", ref="Thm 1", title="Classes and losses of the critical points (R^2)",
       statement=r"$\Theta^\star$ global minima ($L = H(x_{n+1}|x_n)$), $\Theta_{\min}$ local minima, $\Theta_{\max}$ local "
                 r"maxima, $\Theta_{\mathrm{sad}}$ saddle; $L(\theta_{\min}) = L(\theta_{\max}) = L(\theta_{\mathrm{sad}}) = H(x_n)$; "
                 r"for $p+q>1$, $\Theta^\star \subset \{w < -1/\sqrt2\}$.",
       printed=lambda: _printed_classes("R2"),
       mutant=lambda: {**_printed_classes("R2"), "Theta_max": ("saddle", S.binary_entropy(pi1))},
       uses=("thm1.critical_points", "thm7.classification"), section="critical", domain=D_NOT_IID + "; (e, w) in R^2")
def _thm1_class(form, ctx):
    return _classification(form, "R2", ctx)


def _kl(a_, b_):
    """Binary relative entropy kl(a || b) = a log(a/b) + (1-a) log((1-a)/(1-b))."""
    return a_ * sp.log(a_ / b_) + (1 - a_) * sp.log((1 - a_) / (1 - b_))


@claim("remark1.bad_minima", ref="Remark 1", title="Every local minimum with bias is a bad local minimum",
       statement=r"$L(\gamma_{\min}) - L(\gamma^\star) = I(x_n; x_{n+1}) > 0$ whenever $p+q \neq 1$ "
                 r"(and $= 0$ exactly when $p + q = 1$, where the chain is i.i.d.).",
       printed=lambda: sp.Ne(p + q, 1), mutant=lambda: sp.true, uses=("thm7.classification",), section="critical",
       domain=D_PQ)
def _remark1(form, ctx):
    r"""form: the condition under which the gap is strictly positive. Proved over the whole square:
    (1) I = π0 kl(p || π1) + π1 kl(1-q || π1) exactly (I from the joint law, kl the binary relative entropy);
    (2) kl(a || b) > 0 for a != b in (0, 1) and = 0 at a = b: kl(b || b) = 0, ∂_a kl = 0 at a = b and
    ∂_a^2 kl = 1/(a(1-a)) > 0 (strictly convex in a), exactly, with a, b the unit-interval symbols;
    (3) π0, π1 > 0, so I > 0 iff p != π1 or 1 - q != π1; (1 - q) - π1 = -(q/p)(p - π1) exactly, so both
    vanish together and I > 0 iff p - π1 != 0; (4) that relation equals the form exactly
    (`same_relation`). Corroboration (sampled): I at random chains and on p + q = 1."""
    I = CH.mutual_information
    a_, b_ = p, q                       # generic a, b in (0, 1)
    o1 = identity(I, pi0 * _kl(p, pi1) + pi1 * _kl(1 - q, pi1), ctx, "remark1.kl",
                  states=r"$I(x_n; x_{n+1}) = \pi_0\,\mathrm{kl}(p\,\|\,\pi_1) + \pi_1\,\mathrm{kl}(1-q\,\|\,\pi_1)$")
    kl = _kl(a_, b_)
    at_b = kl.subs(a_, b_)
    d1 = sp.diff(kl, a_).subs(a_, b_)
    d2 = sp.cancel(sp.diff(kl, a_, 2))
    found = [*o1.steps,
             steps.exact(r"$\mathrm{kl}(a\,\|\,b) > 0$ for $a \neq b$ in $(0, 1)$: it vanishes with its $a$-derivative "
                         r"at $a = b$ and is strictly convex in $a$", sp.expand(at_b) == 0 and exact_zero(d1)[0] and sign_exact(d2) == 1,
                         method="SymPy substitution; exact normal form; exact sign", domain="a, b in (0, 1)",
                         values={"d^2 kl/da^2": steps.tex(d2)},
                         obligations=[steps.Obligation.at("== 0", kl, {a_: b_}), steps.Obligation("== 0", d1),
                                      steps.Obligation("> 0", d2)]),
             steps.exact(r"$\pi_0, \pi_1 > 0$ and $(1 - q) - \pi_1 = -(q/p)(p - \pi_1)$: $I > 0$ iff $p - \pi_1 \neq 0$",
                         sign_exact(pi0) == 1 and sign_exact(pi1) == 1 and sp.cancel((1 - q - pi1) + q / p * (p - pi1)) == 0,
                         method="exact signs; SymPy cancel", domain=D_PQ,
                         obligations=[steps.Obligation("> 0", pi0), steps.Obligation("> 0", pi1),
                                      steps.Obligation("== 0", (1 - q - pi1) + q / p * (p - pi1))])]
    same, how = same_relation(sp.Ne(p - pi1, 0), form)
    found.append(steps.exact(r"$p - \pi_1 \neq 0$ is the printed condition", same,
                             method="same relation: equal sides or a ratio of strict sign (exact)", domain=D_PQ,
                             values={"how": how}))
    return Outcome.of(*found, corroboration=[_remark1_samples(form, ctx)], checked_domain=D_PQ)


@functools.lru_cache(maxsize=None)
def _gap_samples(ctx) -> tuple[int, int, tuple]:
    """I(x_n; x_n+1) at ctx.points random rational chains and at the first of them moved onto p + q = 1, at
    ctx.dps digits: (number of random chains, number on the line, ((point, I), ...)). Independent of the form
    under test (the printed form and the negative control compare their conditions with the same values)."""
    gap = CH.mutual_information
    pts = sample_points("remark1", [p, q], ctx.points)
    on_line = [{p: v[p], q: 1 - v[p]} for v in pts[: max(4, ctx.points // 4)]]
    values = []
    with working(ctx.dps, guard=False):
        for pt in pts + on_line:
            # both values at once (subs sets p, then q: the intermediate expression in q alone costs 5x more); a
            # test holds the two exact values structurally equal (srepr) at these points
            at = gap.xreplace(pt)
            values.append((pt, mp.mpf(sp.N(at, ctx.dps)) if at != 0 else mp.mpf(0)))
    return len(pts), len(on_line), tuple(values)


def _remark1_samples(form, ctx) -> steps.Step:
    n_pts, n_line, values = _gap_samples(ctx)
    bad = []
    with working(ctx.dps, guard=False):
        for pt, val in values:
            # the relation at a rational point is True or False whatever the order of substitution; subs would
            # first build the relation at (p0, q), whose assumptions queries cost 10 ms per point
            claimed_positive = bool(sp.sympify(form).xreplace(pt))
            if claimed_positive != (val > mp.mpf(10) ** (-(ctx.dps - 10))):
                bad.append(f"(p, q) = ({pt[p]}, {pt[q]}): gap {mp.nstr(val, 3)}")
    return steps.sampled("The gap is positive exactly where the condition says", not bad,
                         method=f"I evaluated at {ctx.dps} digits", digits=ctx.dps, count=n_pts + n_line,
                         domain=f"{n_pts} random rational chains in (0,1)^2 and {n_line} exactly on p + q = 1",
                         values={"disagreements": str(len(bad))} | ({"first": bad[0]} if bad else {}))
