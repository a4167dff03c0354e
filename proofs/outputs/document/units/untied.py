r"""Topic 6, beyond the paper: weight tying. The premise of Sec. 2 ([23] (i), (ii)) and the untied model, derived."""
from __future__ import annotations

import sympy as sp

from local2global.symbolic import energy as senergy
from local2global.symbolic.basins_untied import untied_flow_facts
from local2global.symbolic.canonical import derive_logit

from .. import sets as T
from ._common import CHAIN, Block, Entry, section, sets_list, t


def _mu():
    from local2global.symbolic.model import canonical_model
    return canonical_model(untied=True)


@section("untied_premise", order=610, topic="untied", title="The premise: weight tying, after [23]",
         where="Sec. 2", refs=("[23] (i)", "[23] (ii)"))
def _premise() -> Block:
    return Block(
        ref="Sec. 2 ([23])",
        assumptions=(r"$(p, q) \in (0, 1)^2$",),
        statement=(
            r"The paper ties the output head to the token embedding ($e = a$) because of two results of its reference "
            r"[23] (Makkuva et al., \emph{Attention with Markov}, arXiv 2402.04161), quoted in its Sec.~2: (i) for every "
            r"$(p, q)$ the loss has a global minimum whose prediction is the Markov kernel; (ii) if $p + q > 1$ and the "
            r"weights are tied, there is a bad local minimum whose prediction is the marginal $\pi_1 = %s$. Both are "
            r"checked here in the canonical model: (i) with and without tying, (ii) with tying, and its negative control "
            r"is the same statement without tying, which fails (the untied model has no local minimum on $A = 0$; "
            r"the sections below)." % t(CHAIN.stationary[1])),
        derivation=(r"(i): on the global minima $\Gamma^\star$ of either model the logit is $A^\star x + c^\star(A^\star)$, "
                    r"whose sigmoid is $p$ after a 0 and $1 - q$ after a 1, and the loss there is the entropy rate, the least "
                    r"loss of any parameter of the full transformer (Thm~4). (ii): the tied model's derived local minima "
                    r"with bias on $A = 0$ contain the point $w = 0$ exactly when $p + q > 1$, and predict "
                    r"$\sigma(\log(p/q)) = \pi_1$."),
    )


@section("untied_model", order=620, topic="untied", title="The untied canonical model", where="our result",
         refs=("Untied model (derived)",))
def _model() -> Block:
    mu = _mu()
    lg = derive_logit(untied=True)
    sets = T.critical_sets_tex(mu.critical_sets(False), mu.params)
    hs = mu.untied_hessians["families"]
    X = sp.Symbol("X")
    return Block(
        ref="untied model",
        assumptions=(r"$(p, q) \in (0, 1)^2$, $p + q \neq 1$ for the classes", r"$\theta = (e, w, h) \in \mathbb{R}^3$"),
        statement=(
            r"Without weight tying the head is a vector of its own; on the rank-one manifold it is $h\alpha$, one more "
            r"scalar $h$ (the head scale; tying is $h = e$). The transformer then outputs $\mathrm{logit}_X = %s$, "
            r"the slope is $A = %s$, and the reduced loss is again $L(e, w, h) = G(A)$ with the same convex $G$. Its "
            r"critical points are" % (t(lg["A"] * X + lg["z0"]), t(mu.A))
            + "\n" + sets_list(sets)
            + r"for every $(p, q)$ with $p + q \neq 1$, in both regimes. \textbf{The unigram points $e = h = 0$ are saddles, "
              r"not local minima}: near them $A = eh(1 + 2w|w|)$ takes both signs (the factors $e$ and $h$ vanish "
              r"simply), so $L = G(A)$ takes values above and below $G(0) = H(x_n)$. With tying the same points are "
              r"$e = 0$, where $A = e^2(1 + 2w|w|)$ keeps one sign: local minima for $p + q > 1$ near $w = 0$ "
              r"(Theorem~1). The saddles are strict (an eigenvalue of each sign) except at $e = h = 0$, "
              r"$w = -1/\sqrt{2}$. The all-zero point $\theta_{\min}$ of Theorem~5, a bad local minimum of the tied "
              r"transformer, is a saddle of the untied one: the canonical path $(e, w, h) = (t, 0, -\mathrm{sign}(p+q-1)t)$ "
              r"lowers the loss."),
        derivation=(r"The logit is computed by running the layers with explicit matrices and the head $h\alpha$ on every "
                    r"sign branch of $(e, w)$, as for Equation~(3); the critical points by solving $\nabla A = 0$; the "
                    r"classes from the factorization of $A$ into factors of one parameter each (a factor of odd "
                    r"multiplicity vanishing at a point makes $A$ change sign there); the Hessians "
                    r"$G'(0)\nabla^2 A$ on each family, exactly."),
        entries=(Entry(r"b^\star(e, w, h)", mu.b_star),
                 Entry(r"\nabla A", mu.grad_A, note=r"The gradient of the reduced loss is $\nabla L = G'(A)\nabla A$ "
                                                     r"($\theta = (e, w, h)$), with"),
                 Entry(r"\nabla^2 L\,|_{\Theta_0,\ w<0}", hs["Theta_0 (w<0)"]["hessian"]),
                 Entry(r"\nabla^2 L\,|_{\Theta_{\mathrm{sad}}^e}", hs["Theta_sad_e"]["hessian"])),
    )


def _comparison_table() -> str:
    """The probability of each limit for a Gaussian start, tied against untied (radii from the derived E_sad)."""
    E_sad = senergy.energy_on_w_axis()["E_sad"]
    w_sad = senergy.energy_on_w_axis()["w_sad"]
    r_gt = sp.exp(2 * E_sad) / 2                              # r^2/2 with r = e^{E_sad}
    r_lt = w_sad**2 / 2
    sig = sp.Symbol("sigma", positive=True)
    rows = [
        (r"tied, $p + q > 1$ (Theorem~2)", r"a bad local minimum ($\Theta_{\min}$)",
         r"$\geq %s$, every $\sigma > 0$" % t(1 - sp.exp(-r_gt / sig**2))),
        (r"tied, $p + q < 1$ (Theorem~8)", r"a global minimum", r"$\geq %s$, every $\sigma > 0$" % t(1 - sp.exp(-r_lt / sig**2))),
        (r"tied, attention, $p + q > 1$ (Theorem~11)", r"a local minimum", r"close to 1 for $\sigma \leq 1/10$ (certified)"),
        (r"untied, either regime (ours)", r"a global minimum", r"$= 1$, every $\sigma > 0$"),
    ]
    out = [r"\begin{center}\small\begin{tabular}{lll}", r"model & limit of $\theta_0 \sim N(0, \sigma^2 I)$ & probability \\",
           r"\hline"]
    out += [" & ".join(r) + r" \\" for r in rows]
    out.append(r"\end{tabular}\end{center}")
    return "\n".join(out) + "\n"


@section("untied_flow", order=630, topic="untied", title="Where the untied gradient flow ends", where="our result",
         refs=("Untied model (flow)",))
def _flow() -> Block:
    f = untied_flow_facts()
    E_sad = f["E_sad"]
    return Block(
        ref="untied flow",
        assumptions=(r"$(p, q) \in (0, 1)^2$, $p + q \neq 1$", r"$w_0 \neq 0$ for the energies"),
        statement=(
            r"The untied flow has two conserved quantities: the charge $e^2 - h^2$ of the rescaling symmetry "
            r"$(e, h) \mapsto (\lambda e, h/\lambda)$ (the only linear symmetry of $A$; the tied model has none), and "
            r"the energies $E_e = %s$, $E_h = %s$ (the energy ansatz of Equation~(11) leaves its multiplier free). A "
            r"trajectory therefore runs along a level curve $\{E_e = E_1, E_h = E_2\}$; these curves are regular off the "
            r"saddle sets, $A$ is strictly monotone along them and $|A| \to \infty$ at their ends. Hence every start with "
            r"$e_0^2 \neq h_0^2$, $E_e(\theta_0) \neq E_{\mathrm{sad}}$ and $E_h(\theta_0) \neq E_{\mathrm{sad}}$ "
            r"($E_{\mathrm{sad}} = %s$) converges to the one point of $\Theta^\star$ on its level curve: a null set of "
            r"starts ends at a saddle, none at a bad minimum, and a Gaussian initialization reaches a global minimum with "
            r"probability one, for every $\sigma$ and both regimes:" % (t(f["E_e"]), t(f["E_h"]), t(E_sad))
            + "\n" + _comparison_table()
            + r"Small initializations are where tying matters: tied, $p + q > 1$, they end at the unigram loss; untied "
              r"they pass the saddle (slowly: the time grows like $\log(1/\sigma)$) and reach the entropy rate."),
        derivation=(r"$E_e$, $E_h$ from the free multiplier of the energy ansatz; the symmetries by solving "
                    r"$\nabla A \cdot M\theta \equiv 0$ for the nine entries of $M$; the level-curve facts from the $2\times 2$ "
                    r"minors of the Jacobian of $(E_e, E_h)$, the determinant $\det[\nabla A, \nabla E_e, \nabla E_h]$ and "
                    r"limits along the level sets. The convergence argument (a one-dimensional flow on a regular curve "
                    r"along which $A$ is monotone) is an argued step, written out in the claim's record."),
        entries=(Entry(r"\det[\nabla A, \nabla E_e, \nabla E_h]\ (w > 0)", f["branches"]["w>0"]["D"]),
                 Entry(r"\det[\nabla A, \nabla E_e, \nabla E_h]\ (w < 0)", f["branches"]["w<0"]["D"]),
                 Entry(r"A^2\ \text{on}\ \{E_e = E_1, E_h = E_2\},\ w < 0", f["branches"]["w<0"]["A2_on_level"])),
    )


@section("untied_full", order=640, topic="untied", title="The untied transformer", where="our result",
         refs=("Untied model (full transformer)",))
def _full() -> Block:
    return Block(
        ref="untied transformer",
        assumptions=(r"double precision", r"exact population loss over all contexts"),
        statement=(r"The full transformer with a head of its own agrees with the derived untied loss and gradient at "
                   r"untied canonical points; trained by gradient descent on the exact population loss from the same "
                   r"small Gaussian draw, the tied transformer stops at the unigram loss $H(\pi)$ for $p + q > 1$ and the "
                   r"untied one reaches the entropy rate, as derived; for $p + q < 1$ both reach it."),
        derivation=(r"The torch model is independent of the derivations; the head is drawn after the other parameters, so "
                    r"tied and untied runs start from the same token embedding and weights."),
    )
