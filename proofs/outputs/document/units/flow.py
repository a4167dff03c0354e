r"""Topic 3: gradient flow of the reduced loss in R^2 (Sec. 4, App. F): energy, Lemma 12, basins, Fig. 1."""
from __future__ import annotations

from local2global.symbolic import basins as sbasins
from local2global.symbolic import energy as senergy
from local2global.symbolic import landscape as sland

from .. import sets as T
from ._common import CHAIN, M, Block, Entry, S, section, t


def _g_names() -> dict:
    """The derived g(w) (in the real symbol w) printed by its name in the basin sets."""
    return {senergy.g_of_w().subs(S.w_neg, S.w): "g(w)"}


@section("energy", order=310, topic="flow", title="Constant energy along the flow", kind="Lemma", number="1/9",
         where="Sec. 4, App. F", refs=("Lemma 1", "Lemma 9", "Eq. 11", "Sec. 4"))
def _energy() -> Block:
    r = M.energy_result
    cons = senergy.conservation()
    return Block(
        ref="Lemmas 1, 9; Eq. 11",
        assumptions=(r"$(p, q) \in (0, 1)^2$", r"$w_0 \neq 0$ (the energy is undefined on $w = 0$)"),
        statement=(
            r"Along every gradient flow $\dot\theta_t = -\nabla L(\theta_t)$ of the reduced loss with $w_0 \neq 0$ the "
            r"energy $E(e, w) = %s$ is constant. The $e$-axis $w = 0$ is invariant ($\partial_w A = 0$ there), no "
            r"trajectory crosses the $w$-axis $e = 0$ (all of it is critical), and $E \to -\infty$ as $w \to 0^-$, "
            r"$E \to +\infty$ as $w \to 0^+$." % t(r["E"])),
        derivation=(
            r"Not transcribed: derived. Since $\nabla L = G'(A)\nabla A$, along the flow $\dot e / \dot w = "
            r"\partial_e A / \partial_w A$. The ansatz $e\,\dot e = m(w)\,\dot w$ requires $e\,\partial_e A/\partial_w A$ "
            r"to depend on $w$ alone; it does, with $m(w) = %s$ for $w > 0$ and $m(w) = %s$ for $w < 0$, and "
            r"$E = e^2 - 2\int m(w)\,dw$ on each half-plane (integration constant $0$), glued with "
            r"$\operatorname{sign}(w)$ and $|w|$. Then $\nabla E \cdot \nabla A$ expands to $0$ on both half-planes."
            % (t(r["m_w>0"]), t(r["m_w<0"]))),
        entries=(
            Entry(r"E\ (w > 0)", r["E_w>0"]),
            Entry(r"E\ (w < 0)", r["E_w<0"]),
            Entry(r"\nabla E \cdot \nabla A", r["gradE_dot_gradA_w>0"], note=r"On each half-plane:"),
            Entry(r"\partial_w A\,|_{w = 0}", cons["dA_dw_at_w0"]),
        ),
    )


@section("w_axis_energy", order=320, topic="flow", title="Analysis of the energy function", kind="Lemma",
         number="12", where="App. F", refs=("Lemma 12",))
def _w_axis() -> Block:
    r = senergy.energy_on_w_axis()
    return Block(
        ref="Lemma 12",
        assumptions=(r"$f(w) = E(0, w)$, $w \neq 0$",),
        statement=(
            r"Let $f(w) = E(0, w)$, that is $f(w) = %s$ for $w < 0$ and $f(w) = %s$ for $w > 0$, and "
            r"$E_{\mathrm{sad}} = f(w_{\mathrm{sad}}) = %s$ at $w_{\mathrm{sad}} = %s$. Then "
            r"(i) $f$ increases on $(-\infty, w_{\mathrm{sad}}]$ from $f(-\infty) = %s$ to $E_{\mathrm{sad}}$; "
            r"(ii) $f$ decreases on $[w_{\mathrm{sad}}, 0)$ from $E_{\mathrm{sad}}$ to $f(0^-) = %s$; "
            r"(iii) on $w < 0$, $f(w) \leq E_{\mathrm{sad}}$ with equality only at $w_{\mathrm{sad}}$, so every level "
            r"below $E_{\mathrm{sad}}$ is taken exactly once on each side of $w_{\mathrm{sad}}$ (this item is missing "
            r"from our copy of the paper; it is reconstructed from its use in the proof of Theorem~2); "
            r"(iv) $f$ decreases on $(0, \infty)$ from $f(0^+) = %s$ to $f(\infty) = %s$."
            % (t(r["f_w<0"]), t(r["f_w>0"]), t(r["E_sad"]), t(r["w_sad"]), t(r["f(-inf)"]), t(r["f(0-)"]),
               t(r["f(0+)"]), t(r["f(+inf)"]))),
        derivation=(
            r"$f$ is the derived energy at $e = 0$. Its derivative is solved on each half-line (one zero, at "
            r"$w_{\mathrm{sad}}$, on $w < 0$; none on $w > 0$), and its sign is decided by SymPy after a positive "
            r"reparametrisation of each interval ($w = -(1 + s)/\sqrt{2}$ left of $w_{\mathrm{sad}}$, "
            r"$w = -1/(\sqrt{2}(1 + s))$ right of it, $s > 0$). For (iii), with $t = 2w^2$:"),
        entries=(
            Entry(r"f'(w)\ (w < 0)", r["df_w<0"]),
            Entry(r"f'(w)\ (w > 0)", r["df_w>0"]),
            Entry(r"E_{\mathrm{sad}} - f(w)", r["E_sad_minus_f_in_t"], note=r"Item (iii): $t - 1 - \log t \geq 0$ with equality only at $t = 1$, i.e. $w = w_{\mathrm{sad}}$:"),
        ),
    )


@section("convergence", order=330, topic="flow", title="Gradient-flow convergence", kind="Lemma", number="10",
         where="App. F", refs=("Lemma 10",))
def _convergence() -> Block:
    return Block(
        ref="Lemma 10",
        statement=(
            r"Along $\dot\theta_t = -\nabla L(\theta_t)$, $\tfrac{d}{dt} L(\theta_t) = -|\nabla L(\theta_t)|^2$: $L$ is a "
            r"Lyapunov function. For every start $\theta_0$ the trajectory is bounded, converges to a limit "
            r"$\theta_{\lim}$, and $\nabla L(\theta_{\lim}) = 0$."),
        derivation=(r"The paper's proof rests on the analyticity of $L$ (Łojasiewicz's theorem), which a machine can "
                    r"only observe on integrated trajectories: the status below says so.").replace("Ł", "L"),
    )


@section("energy_limit", order=335, topic="flow", title="Energy at the limit point", kind="Lemma", number="11",
         where="App. F", refs=("Lemma 11",))
def _energy_limit() -> Block:
    return Block(
        ref="Lemma 11",
        statement=(r"If $\theta_0$ is off the $e$-axis ($w_0 \neq 0$), then $E(\theta_{\lim}) = E(\theta_0)$: the limit "
                   r"lies on the energy contour through $\theta_0$ and on the critical set of Theorem~1."),
        derivation=r"Lemma~9 (constant energy) and Lemma~10 (convergence), with $E$ continuous off $w = 0$.",
    )


def _basins_block(regime: str, ref: str) -> Block:
    bs = sbasins.basins(regime)
    names = _g_names()
    params = (S.e, S.w)
    words = {"I_sad": "saddle point", "I_max": "local maximum", "I_min": "local minimum (bad)",
             "I_star": "global minimum"}
    from local2global.symbolic.latex import name
    earlier, rows = [], []
    for b in bs:
        rows.append(r"%s &= %s &&\text{%s}" % (name(b.name), T.basin_tex(b, params, earlier, names, short=True),
                                                words.get(b.name, b.limit_class.replace("_", " "))))
        earlier.append(name(b.name))
    table = "\n\\begin{align*}\n" + " \\\\\n".join(rows) + "\n\\end{align*}\n"
    g = senergy.saddle_asymptotes()["g"]
    lim = sbasins.limit_equations()
    A_star = sland.A_star(CHAIN)
    sign = ">" if regime == "p+q>1" else "<"
    return Block(
        ref=ref,
        assumptions=(r"$(p, q) \in (0, 1)^2$, $p + q %s 1$" % sign, r"$\theta_0 \in \mathbb{R}^2$"),
        statement=(
            r"Let $p + q %s 1$ and $g(w) = %s$ for $w < 0$ (the level set $E = E_{\mathrm{sad}}$ is $e = \pm g(w)$). "
            r"The gradient flow from $\theta_0 = (e_0, w_0) \in \mathbb{R}^2$ converges to a critical point of "
            r"Theorem~1 whose class (right) is fixed by the first of these subsets of $\mathbb{R}^2$ that contains "
            r"$\theta_0$:" % (sign, t(g))
            + table
            + r"A start in $I^\star$ with $w_0 < 0$ converges to the point of $\Theta^\star$ on its energy contour, the "
              r"solution of $E(e, w) = E(\theta_0)$, $A(e, w) = A^\star = %s$." % t(A_star)),
        derivation=(
            r"The energy is constant (Lemma~9) and the flow converges to a critical point (Lemma~10), so the limit is "
            r"where the contour $E = E(\theta_0)$ meets the critical sets (Lemma~11). By Lemma~12 the contours with "
            r"$E < E_{\mathrm{sad}}$ near the $w$-axis between $w_{\mathrm{sad}}$ and $0$ end on the axis, those with "
            r"$E > E_{\mathrm{sad}}$ cross $\Theta^\star$; $|e| < g(w)$ is $E(e, w) < E_{\mathrm{sad}}$ on $w < 0$. "
            r"The basins are written with the derived $g$ and $w_{\mathrm{sad}}$. The pair fixing the limit in "
            r"$I^\star$ ($w < 0$):"),
        entries=(Entry(r"E(e, w) - E_0", lim["pair_w<0"][0]), Entry(r"A(e, w) - A^\star", lim["pair_w<0"][1])),
    )


@section("basins_gt1", order=340, topic="flow", title="Gradient-flow dynamics for $p + q > 1$", kind="Theorem",
         number="2", where="Sec. 4", refs=("Thm 2",))
def _basins_gt1() -> Block:
    return _basins_block("p+q>1", "Thm 2")


@section("basins_lt1", order=345, topic="flow", title="Gradient-flow dynamics for $p + q < 1$", kind="Theorem",
         number="8", where="App. F", refs=("Thm 8",))
def _basins_lt1() -> Block:
    return _basins_block("p+q<1", "Thm 8")


@section("i_common", order=350, topic="flow", title="A basin of the global minima for every chain",
         kind="Proposition", number="", where="Sec. 4", refs=("Sec. 4 (I_common)",))
def _i_common() -> Block:
    piece = sbasins.I_common()
    return Block(
        ref="Sec. 4",
        statement=(r"The set $I_{\mathrm{common}} = %s$ lies in the basin $I^\star$ of the global minima for every "
                   r"$(p, q) \in (0, 1)^2$ with $p + q \neq 1$." % T.piece_tex(piece, (S.e, S.w), _g_names())),
        derivation=r"On $w < 0$, $|e| > g(w)$ is $E(e, w) > E_{\mathrm{sad}}$, which is outside $I_{\min}$ and $I_{\mathrm{sad}}$ in both regimes.",
    )


@section("figure1", order=360, topic="flow", title="Gradient-flow dynamics and basins in the plane", kind="Figure",
         number="1", where="Sec. 1", refs=("Fig. 1",))
def _figure1() -> Block:
    return Block(
        ref="Fig. 1",
        statement=(r"For $p = q = 0.9$ ($p + q > 1$, panels a, b) and $p = q = 0.1$ ($p + q < 1$, panels c, d): the "
                   r"energy contours with the flow directions, and the basins of Theorems~2 and~8 with the critical "
                   r"sets of Theorem~1. A start painted $I_{\min}$ in panel (b) or (d) ends at a local minimum, a start "
                   r"painted $I^\star$ at a global minimum."),
        derivation=(r"Every curve and region is a derived expression evaluated on a grid: the energy $E$, the "
                    r"asymptotes $e = \pm g(w)$, the critical sets and the basin conditions; the flow field is "
                    r"$-\nabla L$ from the derived gradient."),
    )
