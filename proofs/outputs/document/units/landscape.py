r"""Topic 2: the loss landscape with and without bias (Sec. 3, App. D, App. E).

Every formula is read off the model object (`canonical_model()`) and the structure facts
(`symbolic.structure`); the prose says what was computed.
"""
from __future__ import annotations

import sympy as sp

from local2global.symbolic import bias as sbias
from local2global.symbolic import landscape as sland

from .. import sets as T
from ._common import CHAIN, M, Block, Entry, in_pi, pt, section, sets_list, show, show_all, t


@section("loss_with_bias", order=110, topic="landscape", title="Loss as a logistic function", kind="Lemma",
         number="2", where="App. D", refs=("Lemma 2",))
def _loss_with_bias() -> Block:
    F = sbias.F(CHAIN)
    return Block(
        ref="Lemma 2",
        assumptions=(r"$e, w, b \in \mathbb{R}$", r"$(p, q) \in (0, 1)^2$"),
        statement=(
            r"The cross-entropy loss of the canonical model is a logistic loss of the logit: "
            r"$L(e, w, b) = \mathbb{E}_{(X, Y) \sim (\pi, P)}\big[\ell_{\log}\big((2Y - 1)\,\mathrm{logit}_X\big)\big]$ "
            r"with $\ell_{\log}(z) = \log(1 + \exp(-z))$. It depends on $(e, w, b)$ only through the slope "
            r"$A = %s$ and the offset $z_0 = %s$: $L(e, w, b) = F(A, z_0)$, where" % (t(M.A), t(M.z0))
            + show("F(A, c)", in_pi(F))),
        derivation=(r"The expectation over $(X, Y)$ is the four-term sum over the joint law $\pi_X P_{XY}$ of the "
                    r"chain, with the logit of Equation~(3) inserted."),
    )


@section("optimal_bias", order=120, topic="landscape", title="Optimal bias", kind="Lemma", number="5",
         where="App. E", refs=("Lemma 5",))
def _optimal_bias() -> Block:
    r = sbias.derive_optimal_bias(CHAIN)
    opt = M.optimal_bias
    return Block(
        ref="Lemma 5",
        assumptions=(r"$e, w \in \mathbb{R}$", r"$(p, q) \in (0, 1)^2$"),
        statement=(
            r"For every $(e, w)$ the map $b \mapsto L(e, w, b)$ is strictly convex and has the unique minimiser "
            r"$b^\star(e, w) = c^\star(A) - (z_0 - b) = c^\star(A) + %s$, $A = %s$, where" % (t(-M.offset), t(M.A))
            + show(r"c^\star(A)", opt["c_star"])
            + r"In particular $b^\star(0, w) = %s$ on the $w$-axis, and $c^\star(A^\star) = %s$ at "
              r"$A^\star = %s$." % (t(opt["b_star_at_e0"]), t(opt["c_star_at_A_star"]), t(sland.A_star(CHAIN)))),
        derivation=(
            r"$\partial L/\partial b = F_c(A, z_0)$ because $z_0$ is $b$ plus a function of $(e, w)$. Written in "
            r"$u = \exp(z_0)$ and $K = \exp(A)$ its numerator is a quadratic in $u$; the product of its roots is "
            r"negative, so exactly one root is positive, and $c^\star = \log u^\star$. The second derivative "
            r"$\partial^2 L/\partial b^2 = \mathbb{E}[\sigma'(z_X)]$ is positive, so the root is the minimiser."),
        entries=(
            Entry(r"\text{numerator of } \tfrac{\partial L}{\partial b}", r["quadratic"], note=r"The quadratic ($u = \exp(z_0)$, $K = \exp(A)$), set to $0$:"),
            Entry(r"D", r["discriminant"], note="Its discriminant and the product of its roots:"),
            Entry(r"u^\star u^-", r["root_product"]),
            Entry(r"u^\star", r["u_star"], note="The positive root, and the same root in a form free of cancellation when $p < q$:"),
            Entry(r"u^\star", r["u_star_stable"]),
        ),
    )


@section("reduced_loss", order=130, topic="landscape", title="Loss as a logistic function of the reduced model",
         kind="Lemma", number="6", where="App. E", refs=("Lemma 6",))
def _reduced_loss() -> Block:
    return Block(
        ref="Lemma 6",
        assumptions=(r"$e, w \in \mathbb{R}$", r"$(p, q) \in (0, 1)^2$"),
        statement=(
            r"The reduced loss $L(e, w) = \min_b L(e, w, b) = L(e, w, b^\star(e, w))$ depends on $(e, w)$ only through "
            r"$A = %s$: $L(e, w) = G(A)$ with $G(A) = F(A, c^\star(A)) = \min_c F(A, c)$, that is" % t(M.A)
            + show("G(A)", in_pi(sbias.G(CHAIN)))),
        derivation=(r"$G$ is $F$ at the optimal offset of Lemma~5; the claims compare $G(A(e, w))$ with the loss "
                    r"with bias evaluated at the derived $b^\star(e, w)$ on both sign branches of $w$."),
    )


@section("structure", order=135, topic="landscape", title="Convexity of $F$ and $G$", kind="Proposition",
         number="", where="Sec. 3, App. E", refs=("Sec. 3",))
def _structure() -> Block:
    st = sland.structure(CHAIN)
    return Block(
        ref="Sec. 3 / App. E",
        assumptions=(r"$(p, q) \in (0, 1)^2$", r"$A, c \in \mathbb{R}$"),
        statement=(
            r"$F(A, c)$ is jointly strictly convex and $G$ is strictly convex: with the two sigmoids $\sigma(c)$ and "
            r"$\sigma(A + c)$ taken at $c = c^\star(A)$,"
            + show("G''(A)", st["G_second"])
            + r"which is positive for every $A$. The gradient $\nabla F$ vanishes only at $A^\star = %s$, $c = %s$; hence $G'(A^\star) = %s$ and "
              r"$G'(0) = %s$, whose sign is that of $p + q - 1$."
            % (t(st["A_star"]), t(st["c_at_critical_F"]), t(st["G_prime_at_A_star"]), pt(st["G_prime_at_0"]))),
        derivation=(
            r"The gradient of $F$ is the expected residual, $\nabla F = \mathbb{E}[(\sigma(AX + c) - Y)(X, 1)]$, and "
            r"its Hessian is $\mathbb{E}[\sigma'(z_X)(X, 1)(X, 1)^\top]$; $G'' = F_{AA} - F_{Ac}^2/F_{cc}$ is the "
            r"Schur complement (the envelope argument gives $G'(A) = F_A(A, c^\star(A))$). $\nabla F = 0$ is a linear "
            r"system in $(\sigma(c), \sigma(A + c))$ with one solution. Positivity is decided by SymPy after writing "
            r"each sigmoid as $1/(1 + t)$, $t > 0$."),
        entries=(
            Entry(r"\nabla F = (F_A, F_c)", in_pi(st["dF_residual"]), note="The gradient as an expected residual:"),
            Entry(r"\nabla^2 F", in_pi(st["hessian_F_in_s"]), note="The Hessian and its determinant:"),
            Entry(r"\det \nabla^2 F", in_pi(st["det_hessian_F"])),
        ),
    )


def _chain_rule(model, reduced: bool = False) -> str:
    r"""The partial derivatives as the chain rule through (A, z_0) gives them, with the derived coefficients:
    $\partial_v L = \partial_v A\;\mathbb{E}[(f_1X + f_2)X] + \partial_v z_0\;\mathbb{E}[f_1X + f_2]$ (at $b^\star$ the
    second expectation vanishes, Lemma 7)."""
    from local2global.symbolic.latex import latex
    from ..layout import tidy
    J = model.jacobian_Ac
    variables = model.params if reduced else model.params_with_bias
    terms = (r"\mathbb{E}[(f_1 X + f_2)X]", r"\mathbb{E}[f_1 X + f_2]")
    rows = []
    for j, v in enumerate(variables):
        parts = []
        for i, term in enumerate(terms[:1] if reduced else terms):
            coeff = tidy(J[i, j])
            if coeff == 0:
                continue
            c = latex(coeff)
            parts.append(term if coeff == 1 else ("-" + term if coeff == -1 else
                         (r"\left(%s\right) %s" % (c, term) if isinstance(coeff, sp.Add) else r"%s\,%s" % (c, term))))
        body = " + ".join(parts).replace("+ -", "- ") if parts else "0"
        rows.append(r"\partial_{%s} L &= %s" % (latex(v), body))
    return "\n\\begin{align*}\n" + " \\\\\n".join(rows) + "\n\\end{align*}\n"


@section("gradient_with_bias", order=140, topic="landscape", title="Gradient computation", kind="Lemma",
         number="3", where="App. D", refs=("Lemma 3",))
def _gradient_with_bias() -> Block:
    f1, f2 = M.residual_parts()
    return Block(
        ref="Lemma 3",
        assumptions=(r"$e, w, b \in \mathbb{R}$", r"$(p, q) \in (0, 1)^2$"),
        statement=(
            r"With the residual $\sigma(\mathrm{logit}_X) - P(Y = 1 \mid X) = f_1 X + f_2$, affine in the bit $X$, "
            r"every partial derivative of $L(e, w, b)$ is an expectation of the residual, "
            r"$\nabla L(e, w, b) = \mathbb{E}_X\big[(f_1 X + f_2)\,\nabla \mathrm{logit}_X\big]$:" + _chain_rule(M)
            + r"where $f_1 = %s$ and $f_2 = %s$." % (t(f1), t(f2))),
        derivation=(r"The chain rule through $(A, z_0)$: $\nabla L = J^\top \nabla F$ with the Jacobian $J$ of "
                    r"$(A, z_0)$, and $\nabla F = (\mathbb{E}[(f_1X + f_2)X], \mathbb{E}[f_1X + f_2])$; $f_1$ and $f_2$ "
                    r"are read off the residual at $X = 1$ and $X = 0$."),
        entries=(
            Entry(r"J = \frac{\partial (A, z_0)}{\partial (e, w, b)}", M.jacobian_Ac),
        ),
    )


@section("two_expectations", order=145, topic="landscape", title="Two expectations govern the gradients",
         kind="Remark", number="2", where="App. D", refs=("Remark 2",))
def _two_expectations() -> Block:
    return Block(
        ref="Remark 2",
        statement=(
            r"$\nabla_{(e, w, b)} L = J^\top\big(\mathbb{E}[(f_1 X + f_2)X],\ \mathbb{E}[f_1 X + f_2]\big)^\top$: "
            r"up to the factors of $J$, which depend on $(e, w)$ only, the two expectations govern every gradient, "
            r"and the rows for $e$ and $w$ carry a factor $e$, so they vanish on the $w$-axis $e = 0$. Here"),
        derivation=r"$J^\top$ is the transposed Jacobian of $(A, z_0)$ (Lemma~3).",
        entries=(Entry(r"J^\top", M.jacobian_Ac.T),),
    )


@section("reduced_gradient", order=150, topic="landscape", title="Gradient computation for the reduced loss",
         kind="Lemma", number="7", where="App. E", refs=("Lemma 7",))
def _reduced_gradient() -> Block:
    return Block(
        ref="Lemma 7",
        assumptions=(r"$e, w \in \mathbb{R}$", r"$(p, q) \in (0, 1)^2$"),
        statement=(
            r"At $b = b^\star(e, w)$ the residual is balanced, $\pi_1 f_1 + f_2 = 0$, so the bias term drops out of the "
            r"gradient of the reduced loss:" + _chain_rule(M, reduced=True)
            + r"Equivalently $\nabla L(e, w) = G'(A)\,\nabla A$ with $\nabla A = %s$ (in the order $(e, w)$)."
            % t(M.grad_A.T)),
        derivation=(r"By the envelope argument: $\partial L/\partial b = 0$ at $b^\star$, so the total derivatives of "
                    r"$L(e, w, b^\star(e, w))$ are the partial derivatives at $b = b^\star$; the claims also differentiate "
                    r"$L(e, w, b^\star(e, w))$ directly. $G'(A) = F_A(A, c^\star(A))$ is"),
        entries=(Entry("G'(A)", in_pi(M.G_prime)),),
    )


@section("proportional_gradients", order=155, topic="landscape", title="The reduced gradients are proportional",
         kind="Remark", number="4", where="App. E", refs=("Remark 4",))
def _proportional() -> Block:
    gA = M.grad_A
    return Block(
        ref="Remark 4",
        statement=(
            r"For the reduced loss $\nabla L = G'(A)\,\nabla A$ is parallel to $\nabla A$: "
            r"$\partial_w A\;\partial_e L = \partial_e A\;\partial_w L$ with $\partial_e A = %s$ and "
            r"$\partial_w A = %s$. This is what makes the energy of Section~3 conserved." % (t(gA[0]), t(gA[1]))),
        derivation=r"$\nabla A$ is differentiated from the derived slope $A$; $\nabla L$ from $L = G(A)$ (Lemma~7).",
    )


@section("hessian_with_bias", order=160, topic="landscape", title="Hessian at local minima and saddle points",
         kind="Lemma", number="4", where="App. D", refs=("Lemma 4", "Remark 3"))
def _hessian_with_bias() -> Block:
    ax = M.e_axis
    return Block(
        ref="Lemma 4",
        assumptions=(r"$e = 0$, $b = b^\star(0, w) = %s$" % t(ax["b_star"]), r"$w \neq 0$"),
        statement=(
            r"On the $w$-axis at the optimal bias, the Hessian of $L(e, w, b)$ in the order $(b, e, w)$ is "
            r"$\nabla^2 L = %s$: positive in $b$, of the sign of $(p + q - 1)(1 + 2w|w|)$ in $e$, and zero in $w$."
            % pt(ax["hessian_with_bias"])),
        derivation=(r"The Hessian of the loss with bias, differentiated twice from Lemma~2's $L(e, w, b)$ "
                    r"(the delta term of $d^2(w|w|)/dw^2$ removed; $w|w|$ is not twice differentiable at $w = 0$), "
                    r"then evaluated at $e = 0$ and $b = \log(p/q)$."),
    )


@section("reduced_hessian", order=170, topic="landscape", title="Hessian computation for the reduced loss",
         kind="Lemma", number="8", where="App. E", refs=("Lemma 8",))
def _reduced_hessian() -> Block:
    ax = M.e_axis
    return Block(
        ref="Lemma 8",
        assumptions=(r"$e, w \in \mathbb{R}$, $w \neq 0$ for the second derivative in $w$",),
        statement=(
            r"The Hessian of the reduced loss is the Schur complement of the Hessian $H$ of $L(e, w, b)$: "
            r"$\nabla^2 L(e, w) = H_{\theta\theta} - H_{\theta b} H_{bb}^{-1} H_{b\theta}$ at $b = b^\star(e, w)$, "
            r"$\theta = (e, w)$. On the $w$-axis it is $\nabla^2 L(0, w) = %s$: degenerate, with the sign of "
            r"$(p + q - 1)(1 + 2w|w|)$ in the direction $e$." % pt(ax["schur_hessian"])),
        derivation=(r"Differentiating the first-order condition $\partial_b L(\theta, b^\star(\theta)) = 0$ gives "
                    r"$\partial_\theta b^\star = -H_{bb}^{-1}H_{b\theta}$, hence the Schur complement; the claims "
                    r"compare it with the Hessian of $L(\theta, b^\star(\theta))$ differentiated directly, and with "
                    r"$\nabla^2 L = G''(A)\nabla A \nabla A^\top + G'(A)\nabla^2 A$."),
        entries=(Entry(r"\nabla^2 A", M.hess_A, note=r"The Hessian of the slope (off $w = 0$):"),),
    )


def _critical(bias: bool):
    params = M.params_with_bias if bias else M.params
    return T.critical_sets_tex(M.critical_sets(bias=bias), params, {M.z0: "z_0"})


#: why each critical set has its class, in the words of the derivation (the facts are the structure's:
#: F jointly strictly convex, G strictly convex with G'(A*) = 0, G(A) >= G(0) + G'(0)A)
ARGUMENTS = {
    "Theta_star": r"$G$ is strictly convex with $G'(A^\star) = 0$, so $G(A) \geq G(A^\star)$ for every $A$, with "
                  r"equality exactly on $A = A^\star$.",
    "Theta_min": r"near the $w$-axis $A = e^2 Q$ with $Q \to 1 + 2w|w|$ as $e \to 0$, and $G(A) \geq G(0) + G'(0)A$; "
                 r"where $G'(0)Q > 0$ every nearby point has $G'(0)A \geq 0$, hence $L \geq G(0)$: a (non-strict) "
                 r"local minimum.",
    "Theta_max": r"as for $\Theta_{\min}$ with the opposite sign: where $G'(0)Q < 0$, $G$ decreases from $G(0)$ in "
                 r"the direction of every nearby $A \neq 0$: a local maximum.",
    "Theta_sad": r"$Q$ changes sign at $w = -1/\sqrt{2}$, so $A$ takes both signs in every neighbourhood and "
                 r"$L = G(A)$ takes values above and below $G(0)$: a saddle point.",
    "Theta_station": r"$\nabla A = 0$ there, so $\nabla^2 L = G'(0)\nabla^2 A$, whose eigenvalues have both signs "
                     r"(Remark~5): a strict saddle point for $p + q \neq 1$.",
    "Gamma_star": r"$\nabla F = 0$ only at $(A^\star, c^\star(A^\star))$ and $F$ is jointly strictly convex, so the "
                  r"preimage of that point under $(A, z_0)$ is the set of global minima.",
    "Gamma_min": r"$L(\theta, b) \geq G(A(\theta)) \geq G(0) + G'(0)A \geq G(0)$ near the point, where "
                 r"$G'(0)(1 + 2w|w|) > 0$, with equality at the point: a local minimum.",
    "Gamma_sad": r"moving $b$ alone raises $L$ ($F_{cc} > 0$), while moving along $(\theta(t), b^\star(\theta(t)))$ "
                 r"towards $G'(0)A < 0$ (or across the sign change of $Q$) lowers it: the reduced maxima and the "
                 r"reduced saddle become saddle points.",
    "Gamma_station": r"not twice differentiable there ($z_0$ contains $|1 + ae^2|$), but $L(\theta, b) \geq G(A(\theta))$ "
                     r"with equality at $b^\star$: moving $b$ alone raises $L$, moving along the negative eigendirection "
                     r"of $\nabla^2 G(A)$ with $b = b^\star$ lowers it: a saddle point.",
}


def _arguments(bias: bool, model=M) -> str:
    from local2global.symbolic.latex import name
    from ..reader import authored
    rows = ["\\begin{itemize}\n"]
    for cs in model.critical_sets(bias=bias):
        rows.append("\\item $%s$: %s\n" % (name(cs.name), ARGUMENTS.get(cs.name) or authored(cs.argument)))
    rows.append("\\end{itemize}\n")
    return "".join(rows)


@section("critical_r3", order=180, topic="landscape", title="All critical points with bias", kind="Theorem",
         number="6", where="App. D", refs=("Thm 6",))
def _critical_r3() -> Block:
    return Block(
        ref="Thm 6",
        assumptions=(r"$(p, q) \in (0, 1)^2$, $p + q \neq 1$",),
        statement=(r"$\nabla L(e, w, b) = 0$ if and only if $(e, w, b) \in \Gamma^\star \cup \Gamma_{\min} \cup "
                   r"\Gamma_{\mathrm{sad}}$, where" + "\n" + sets_list(_critical(True))),
        derivation=(
            r"$\nabla L = J^\top \nabla F$. Either $\nabla F = 0$, which holds only at $A = A^\star$, $z_0 = c^\star(A^\star)$ "
            r"(a linear system in the two sigmoids), or $\nabla F \neq 0$ lies in the kernel of $J^\top$: since "
            r"$\partial z_0/\partial b = 1$ this forces $F_c = 0$ and $F_A \nabla A = 0$, hence $\nabla A = 0$, i.e. "
            r"$e = 0$ (solved on each sign branch of $w$), and then $F_c = 0$ fixes $b = b^\star(0, w)$. The condition "
            r"splitting $e = 0$ is the sign of $G'(0)\,(1 + 2w|w|)$, with the positive factor of $G'(0)$ removed."),
    )


@section("classes_r3", order=185, topic="landscape", title="Loss landscape with bias", kind="Theorem", number="7",
         where="App. D", refs=("Thm 7",))
def _classes_r3() -> Block:
    ch = CHAIN
    return Block(
        ref="Thm 7",
        assumptions=(r"$(p, q) \in (0, 1)^2$, $p + q \neq 1$",),
        statement=(
            r"$\Gamma^\star$ is the set of global minima, with loss $H(x_{n+1} \mid x_n)$; $\Gamma_{\min}$ are local "
            r"minima and $\Gamma_{\mathrm{sad}}$ saddle points, both with loss $H(x_n)$, where"
            + show_all([(r"H(x_{n+1} \mid x_n)", ch.entropy_rate), (r"H(x_n)", ch.marginal_entropy)])
            + r"The gap between the two critical values is the mutual information $I(x_n; x_{n+1})$."),
        derivation=r"The class of each set is derived from the convexity of $F$ and $G$ (Proposition in Section~2):",
        extra=_arguments(True),
    )


@section("bad_minima", order=187, topic="landscape", title="Every local minimum with bias is a bad one",
         kind="Remark", number="1", where="App. D", refs=("Remark 1",))
def _bad_minima() -> Block:
    return Block(
        ref="Remark 1",
        statement=(r"For $\gamma_{\min} \in \Gamma_{\min}$ and $\gamma^\star \in \Gamma^\star$, "
                   r"$L(\gamma_{\min}) - L(\gamma^\star) = I(x_n; x_{n+1})$,"
                   + show(r"I(x_n; x_{n+1})", CHAIN.mutual_information)
                   + r"which is positive if and only if $p + q \neq 1$ (for $p + q = 1$ the chain is i.i.d.)."),
        derivation=r"The two critical values of Theorem~7 and the mutual information of Section~1.",
    )


@section("critical_r2", order=190, topic="landscape", title="All critical points of the reduced loss",
         kind="Theorem", number="1", where="Sec. 3", refs=("Thm 1",))
def _critical_r2() -> Block:
    return Block(
        ref="Thm 1",
        assumptions=(r"$(p, q) \in (0, 1)^2$, $p + q \neq 1$",),
        statement=(
            r"$\nabla L(e, w) = 0$ if and only if $(e, w) \in \Theta^\star \cup \Theta_{\min} \cup \Theta_{\max} \cup "
            r"\Theta_{\mathrm{sad}}$, where" + "\n" + sets_list(_critical(False))
            + r"On $\Theta^\star$ the loss is $H(x_{n+1} \mid x_n)$, on the three other sets $H(x_n)$."),
        derivation=(
            r"$\nabla L(e, w) = G'(A)\,\nabla A$ vanishes where $G'(A) = 0$, i.e. $A = A^\star$ ($G$ strictly convex), or "
            r"where $\nabla A = 0$, i.e. $e = 0$. On $e = 0$, $A = e^2 Q(w)$ near the axis and "
            r"$G(A) \geq G(0) + G'(0)A$, so the sign of $G'(0)Q(w)$ decides between local minima and maxima, and the "
            r"sign change of $Q$ is the saddle. The classes:"),
        extra=_arguments(False),
    )
