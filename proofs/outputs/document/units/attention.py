r"""Topic 4: the attention scalar (Sec. 4.1, App. G): logit, Lemma 13, Thms 9, 10, Remark 5, Lemmas 14-16,
Thms 3, 11, Figs. 2 and 5."""
from __future__ import annotations

from local2global.symbolic import canonical

from .. import sets as T
from ..layout import compact
from ._common import MA, Block, Entry, in_pi, pt, section, sets_list, t


@section("attention_logit", order=410, topic="attention", title="Canonical logit with the attention scalar",
         kind="Equations", number="39-41", where="Sec. 4.1, App. G", refs=("Eq. 39", "Eq. 41"))
def _attention_logit() -> Block:
    r = MA.logit_result
    gain = canonical.derive_attention_output()["gain"]
    return Block(
        ref="Eq. 39-41",
        assumptions=(r"$e, w, a, b \in \mathbb{R}$", r"$W_Q^\top W_K = \kappa\,\alpha\alpha^\top$, $W_V = \alpha v^\top$",
                     r"$a = \kappa \langle v, \alpha\rangle / (4\sqrt{d})$"),
        statement=(
            r"Linear attention on the canonical manifold multiplies the embedding by $%s$ (because "
            r"$(x_i - \tfrac12)^2 = \tfrac14$ for every bit), and the logit is again affine in $X$, with slope "
            r"$A(e, w, a) = %s$ and offset $z_0 = %s$; at $a = 0$ it is Equation~(3)." % (t(gain), t(r["A"]), t(r["z0"]))),
        derivation=(r"The attention output was computed from $W_Q$, $W_K$, $W_V$ on every bit sequence of length 1 to 3, "
                    r"then fed through the rank-one feed-forward layer and the tied head on every sign branch of "
                    r"$(e, w, 1 + ae^2)$; the branches glue through $w|w|$ and $|1 + ae^2|$."),
        entries=(Entry(r"A(e, w, a)", r["A"]), Entry(r"z_0", r["z0"])),
    )


@section("attention_bias", order=420, topic="attention", title="Gradients and optimal bias with attention",
         kind="Lemma", number="13", where="App. G", refs=("Lemma 13",))
def _attention_bias() -> Block:
    opt = MA.optimal_bias
    return Block(
        ref="Lemma 13",
        assumptions=(r"$e, w, a, b \in \mathbb{R}$, off $1 + ae^2 = 0$ for the derivatives in $(a, b)$",),
        statement=(
            r"The loss is again $F(A, z_0)$, so Lemma~5 applies with the new slope and offset: $b^\star = c^\star(A) - "
            r"(z_0 - b)$ with $z_0 - b = %s$; at $a = 0$ this is Lemma~5's $b^\star$. The gradient with bias is "
            r"$\nabla L = \mathbb{E}_X[(f_1 X + f_2)\nabla\mathrm{logit}_X]$, and the reduced gradient is "
            r"$\nabla L(e, w, a) = G'(A)\,\nabla A$ with $\nabla A = %s$ (order $(e, w, a)$)."
            % (t(opt["offset"]), t(compact(MA.grad_A.T)))),
        derivation=(r"$\partial z_0/\partial b = 1$, so $\partial L/\partial b = F_c(A, z_0)$ and Lemma~5's quadratic "
                    r"gives $c^\star(A)$; the envelope argument gives the reduced gradient."),
        entries=(Entry(r"z_0 - b", opt["offset"]),),
    )


def _critical(bias: bool):
    params = MA.params_with_bias if bias else MA.params
    return T.critical_sets_tex(MA.critical_sets(bias=bias), params, {MA.z0: "z_0"})


@section("critical_r4", order=430, topic="attention", title="All critical points with attention and bias",
         kind="Theorem", number="9", where="App. G", refs=("Thm 9",))
def _critical_r4() -> Block:
    return Block(
        ref="Thm 9",
        assumptions=(r"$(p, q) \in (0, 1)^2$, $p + q \neq 1$",),
        statement=(r"$\nabla L(e, w, a, b) = 0$ if and only if $(e, w, a, b) \in \Gamma^\star \cup \Gamma_{\min} \cup "
                   r"\Gamma_{\mathrm{sad}} \cup \Gamma_{\mathrm{station}}$, with $z_0 = %s$ and" % t(MA.z0)
                   + "\n" + sets_list(_critical(True))),
        derivation=(r"As for Theorem~6: $\nabla F = 0$ (only at $A^\star$), or $\nabla A = 0$ and $F_c = 0$. With "
                    r"attention, $\nabla A = 0$ has a second family besides $e = 0$: $1 + ae^2 = 0$ together with "
                    r"$1 + 2w|w| = 0$, the stationary set."),
    )


@section("critical_r3_attention", order=440, topic="attention", title="All critical points with attention",
         kind="Theorem", number="10", where="App. G", refs=("Thm 10",))
def _critical_r3a() -> Block:
    return Block(
        ref="Thm 10",
        assumptions=(r"$(p, q) \in (0, 1)^2$, $p + q \neq 1$",),
        statement=(r"$\nabla L(e, w, a) = 0$ if and only if $(e, w, a) \in \Theta^\star \cup \Theta_{\min} \cup \Theta_{\max} "
                   r"\cup \Theta_{\mathrm{sad}} \cup \Theta_{\mathrm{station}}$, where" + "\n" + sets_list(_critical(False))),
        derivation=(r"$\nabla L = G'(A)\nabla A$: $A = A^\star$, or $\nabla A = 0$, solved on each sign branch of $w$: "
                    r"$e = 0$, or $e \neq 0$ with $1 + ae^2 = 0$ and $1 + 2w|w| = 0$. The classes on $e = 0$ are those of "
                    r"Theorem~1; the class of $\Theta_{\mathrm{station}}$ is Remark~5's question."),
    )


@section("station", order=445, topic="attention", title="The stationary set", kind="Remark", number="5",
         where="App. G", refs=("Remark 5",))
def _station() -> Block:
    st = MA.station_hessian
    return Block(
        ref="Remark 5",
        assumptions=(r"on $\Theta_{\mathrm{station}}$: $w = %s$, $a = %s$, $e \neq 0$" % (t(_w()), t(_a())),),
        statement=(
            r"The paper leaves the class of $\Theta_{\mathrm{station}}$ open because ``the Hessian is undefined'' there. "
            r"For the loss with bias $L(e, w, a, b)$ in $\mathbb{R}^4$ it is ($z_0$ contains $|1 + ae^2|$, whose "
            r"derivative jumps across the set); for the reduced loss $L(e, w, a) = G(A)$ in $\mathbb{R}^3$ it is not: "
            r"$A$ is a polynomial near $\Theta_{\mathrm{station}}$ (where $w < 0$), $\nabla A = 0$ there, and "
            r"$\nabla^2 L = G'(0)\,\nabla^2 A$ has the eigenvalues $%s$ (written for $e > 0$). For $p + q \neq 1$ one is "
            r"positive and one negative: every point of $\Theta_{\mathrm{station}}$ is a strict saddle, and so is every "
            r"point of $\Gamma_{\mathrm{station}}$ in $\mathbb{R}^4$." % ",\\ ".join(pt(x) for x in st["eigenvalues"])),
        derivation=r"$\nabla^2 A$ on the station curve, parametrised by $e > 0$, and its exact eigenvalues:",
        entries=(Entry(r"\nabla^2 A\,\big|_{\Theta_{\mathrm{station}}}", st["hess_A"]),
                 Entry(r"G'(0)", in_pi(st["G_prime_at_0"]))),
    )


def _w():
    fam = [f for f in MA.grad_A_zeros if f.get("e") != 0][0]
    return fam["w"]


def _a():
    fam = [f for f in MA.grad_A_zeros if f.get("e") != 0][0]
    return fam["a"]


@section("attention_energy", order=450, topic="attention", title="Constant energy along the flow with attention",
         kind="Lemma", number="14", where="App. G", refs=("Lemma 14", "Eq. 49"))
def _attention_energy() -> Block:
    r = MA.energy_result
    return Block(
        ref="Lemma 14",
        assumptions=(r"$w_0 \neq 0$",),
        statement=(r"Along the flow of $L(e, w, a)$ with $w_0 \neq 0$ the energy $E(e, w, a) = %s$ is constant, and the "
                   r"plane $w = 0$ (the $ea$-plane) is invariant. The multiplier of $a^2$ is the only one that works." % t(r["E"])),
        derivation=(r"The ansatz $e\,\dot e + k_a\,a\,\dot a = m(w)\,\dot w$: $k_a$ is solved from the requirement that "
                    r"$(e\,\partial_e A + k_a a\,\partial_a A)/\partial_w A$ depend on $w$ alone, which gives $k_a = %s$ "
                    r"uniquely; $m(w)$ is integrated as in Lemma~9." % t(r["k"][MA.params[2]])),
        entries=(Entry(r"E\ (w < 0)", r["E_w<0"]),),
    )


@section("attention_convergence", order=455, topic="attention", title="Gradient-flow convergence with attention",
         kind="Lemma", number="15", where="App. G", refs=("Lemma 15",))
def _attention_convergence() -> Block:
    return Block(ref="Lemma 15",
                 statement=r"For every $\theta_0 \in \mathbb{R}^3$ the flow of $L(e, w, a)$ converges to a limit $\theta_{\lim}$ with $\nabla L(\theta_{\lim}) = 0$.",
                 derivation=r"As Lemma~10 (analyticity, Łojasiewicz's theorem); observed on integrated trajectories.".replace("Ł", "L"))


@section("attention_energy_limit", order=457, topic="attention", title="Energy at the limit point with attention",
         kind="Lemma", number="16", where="App. G", refs=("Lemma 16",))
def _attention_energy_limit() -> Block:
    return Block(ref="Lemma 16",
                 statement=(r"If $\theta_0$ is off the $ea$-plane, $E(\theta_{\lim}) = E(\theta_0)$; if it is on the plane, "
                            r"so is $\theta_{\lim}$."),
                 derivation=r"Lemma~14 and Lemma~15.")


@section("attention_dynamics", order=460, topic="attention", title="Gradient-flow dynamics with attention",
         kind="Theorem", number="3", where="Sec. 4.1", refs=("Thm 3",))
def _attention_dynamics() -> Block:
    return Block(ref="Thm 3",
                 statement=(r"For every $\theta_0 \in \mathbb{R}^3$ the flow converges to a critical point of Theorem~10, "
                            r"with loss $H(x_{n+1} \mid x_n)$ on $\Theta^\star$ and $H(x_n)$ on the other sets."),
                 derivation=r"Lemmas~15 and~16 with the critical sets of Theorem~10.")


@section("small_init", order=465, topic="attention", title="Role of standard initialization for $p + q > 1$",
         kind="Theorem", number="11", where="App. G", refs=("Thm 11",))
def _small_init() -> Block:
    from local2global.symbolic import landscape as sland
    return Block(ref="Thm 11",
                 statement=(r"(Informal in the paper.) For $\theta_0 \sim N(0, \sigma^2 I_3)$ with $\sigma^2 \ll 1/\sqrt{2}$ "
                            r"and $p + q > 1$, $\theta_{\lim}$ is a local minimum with high probability. Near the origin "
                            r"$\dot e = -2G'(0)(1 + 2w|w|)\,e + O(e^3)$ with $G'(0) = %s$, while $\dot w$ and $\dot a$ are "
                            r"$O(e^2)$: for $p + q > 1$ the embedding shrinks to $0$ faster than anything else moves."
                            % pt(sland.G_prime_at_0())),
                 derivation=r"The linearisation of $-\nabla L = -G'(A)\nabla A$ at $e = 0$.")


@section("figure2", order=470, topic="attention", title="Gradient flow with the attention scalar", kind="Figure",
         number="2", where="Sec. 4.1", refs=("Fig. 2",))
def _figure2() -> Block:
    return Block(ref="Fig. 2",
                 statement=(r"Trajectories of the flow of $L(e, w, a)$ in $\mathbb{R}^3$ with the critical sets of Theorem~10, "
                            r"for $p = q = 0.9$ and $p = q = 0.1$. Near the origin the local minima on $e = 0$ attract the "
                            r"flow when $p + q > 1$ and repel it when $p + q < 1$ (magnified in Figure~5)."),
                 derivation=(r"The surfaces and curves are derived sets evaluated on grids; the trajectories are integrated "
                             r"from exact starts with the derived gradient."))


@section("figure5", order=475, topic="attention", title="Gradient flow near the origin", kind="Figure", number="5",
         where="App. G", refs=("Fig. 5",))
def _figure5() -> Block:
    from ..figures import figure_parameters
    n = figure_parameters("5")
    return Block(ref="Fig. 5",
                 statement=r"Figure~2 near the origin, from %s seeded Gaussian starts $\theta_0 \sim N(0, \sigma^2 I_3)$, "
                           r"$\sigma = %s$: the starts the check of this figure integrates." % (n["n5"], n["sigma5"]),
                 derivation=r"As for Figure~2.")


@section("r3_basins", order=468, topic="attention", title="Basins of the flow with attention in $\\mathbb{R}^3$ (our result)",
         where="Sec. 4.1, App. G",
         refs=("Sec. 4.1 (R^3 basins, our result)", "Sec. 4.1 (R^3 basins, our result: Thm A)",
               "Sec. 4.1 (R^3 basins, our result: Thm B)", "Lemma 15 / Thm 3 (erratum, our result)",
               "Thm 11 (precise; our result)"))
def _r3_basins() -> Block:
    from local2global.symbolic import basins_r3 as R
    sf, ar, li, se, rc, lc = (R.slope_factors(), R.airy_reduction(), R.linearisation(), R.separatrix(), R.race(),
                              R.lemma_c())
    return Block(
        ref="Sec. 4.1 (R^3 basins, our result)",
        assumptions=(r"$(p, q) \in (0, 1)^2$, $p + q \neq 1$; $\theta_0 = (e_0, w_0, a_0) \in \mathbb{R}^3$",),
        statement=(
            r"The paper leaves the basins in $\mathbb{R}^3$ open. The slope factors as $A = U(e, a)\,V(w)$ with $U = %s$, "
            r"$V = %s$, and along the flow $(e, a)$ runs on a gradient line of $U$. In $(a, y = e^2)$ these lines solve "
            r"the Abel equation with field $(%s, %s)$; in the coordinates $\ell = %s$, $z = %s$ they are the Airy--Riccati "
            r"curves $d\ell/dz = z - \ell^2$, $\ell = \varphi'/\varphi$, $\varphi = \alpha\,\mathrm{Ai} + \beta\,\mathrm{Bi}$, "
            r"with first integral $I = %s$. The descending line from a point reaches the $a$-axis iff $\beta > 0$ (and "
            r"$z_0 > a_1$), which is the region below the separatrix $S = \{\ell = %s\}$, a graph $e^2 = y_S(a)$ over all "
            r"$a$. Theorem A ($p + q > 1$): the limit is a local minimum iff $e_0^2 < y_S(a_0)$ and $w_0 > w_c(e_0, a_0)$ "
            r"(or $e_0 = 0$, $w_0 > -1/\sqrt2$), where $f(w_c) = E_{\mathrm{sad}} - \Delta$ with $\Delta = %s$; the ties are "
            r"saddles and stations, and on $\mathcal{U} = S \times [0, \infty)$ the trajectory is unbounded, so Lemma~15 and "
            r"Theorem~3 fail there (an erratum). Theorem B ($p + q < 1$) is the mirror image with $w_0 < w_c'$. "
            r"Theorem~11 made precise: for $p + q > 1$ and every $\sigma \le 1/10$, "
            r"$P(\theta_{\lim}\text{ is a local minimum}) \ge 1 - 2.9\cdot 10^{-8}$ (certified)."
            % (t(sf["U"]), t(sf["V"]), t(ar["X"][0]), t(ar["X"][1]), t(ar["ell_of"]), t(ar["z_of"]), t(li["I"]),
               t(se["ell_S"]), t(rc["Delta"]))),
        derivation=(r"$U$ and $V$ are read off the model's $A$; the Abel field is $\nabla U$ in $(a, y)$ divided by $y$; "
                    r"$J = y - 4a^2$ is solved as a time along it, and the scaling to the Airy Riccati equation is solved; "
                    r"$(\alpha, \beta)$ of the line through $(z_0, \ell_0)$ are solved from $\varphi(z_0) = 1$, "
                    r"$\varphi'(z_0) = \ell_0$, with the Wronskian $1/\pi$ proved exactly. The basins follow from a case "
                    r"analysis of the sign data (the side of $S$, the sign of $U$, the piece of the $w$-line, the race of "
                    r"$U \to 0$ and $V \to 0$), compared exhaustively with the stated sets. The probability bound uses the "
                    r"comparison bounds of Lemma~C on cells of $(e, a)$:"),
        entries=(Entry(r"\alpha", li["alpha0"]), Entry(r"\beta", li["beta0"]), Entry(r"y_S", se["y_S"]),
                 Entry(r"w_c", rc["w_c"]), Entry(r"w_c'", rc["w_c_prime"]), Entry(r"D", lc["D"]),
                 Entry(r"\bar D", lc["Dbar"])),
    )
