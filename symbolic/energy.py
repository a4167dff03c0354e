r"""The conserved energy of the gradient flow (Sec. 4, 4.1, App. F, G, M: Lemmas 1/9, 12, 14; Eq. 11/48, 12/49).

Derivation, not transcription, and one derivation for both models. The reduced loss is L = G(A(θ))
(`model.CanonicalModel`), so the flow is θ' = -G'(A)∇A and every ratio of velocities is a ratio of
components of ∇A. Ansatz: Σ_x k_x x ẋ = m(w) ẇ over the parameters x other than w (k_e = 1). Its
left side is d/dt Σ k_x x²/2, so if the ratio (Σ_x k_x x ∂_x A)/∂_w A depends on w alone, m(w) is
that ratio and E = Σ_x k_x x² - 2∫m(w) dw is constant along every trajectory off w = 0. The
multipliers k_x (x ≠ e) are *solved* from that requirement (without attention there are none; with
attention k_a = -2 is the unique solution). The antiderivative is taken by `sp.integrate` on each
side of w = 0 (the real one, log|w|, on w < 0; the integration constant is 0 on each side, the
paper's choice), and the two sides are glued into one expression with sign(w) and |w|.

Everything downstream (E_sad, f(w) = E(0, w), g(w), the basin sets) is computed from this E.

Without weight tying (`canonical_model(untied=True)`, θ = (e, w, h)) the ansatz leaves its multiplier k_h
free: every k_h gives a conserved quantity, E(k_h) = e² + k_h h² - (1 + k_h)(w² + sign(w) log|w|)/2, a
two-dimensional family (`derive_energy` reports it; its "E" is the member k_h = 1). `quadratic_invariants`
searches the other way, from symmetries: the linear vector fields Mθ that leave A invariant (∇A·Mθ ≡ 0; then
L = G(A) is invariant too) and the conserved quadratic forms θ^T S θ they give (S symmetric: d/dt θ^T S θ =
-2 G'(A) ∇A·Sθ = 0), solved as a linear system in the entries of M on each branch of w.
"""
from __future__ import annotations


import sympy as sp

from ._cache import derivation
from ._result import Result
from ._symbols import e, w, w_neg, w_pos

s_pos = sp.Symbol("s", positive=True)       # auxiliary parameter for intervals of w
t_pos = sp.Symbol("t", positive=True)       # t = 2 w^2 in the proof of Lemma 12 (iii)
E0 = sp.Symbol("E_0", real=True)            # a contour level

HALF_PLANES = {"w>0": w_pos, "w<0": w_neg}


def _default_model(model=None):
    from .model import canonical_model
    return model if model is not None else canonical_model()


@derivation
def derive_energy(model=None) -> Result:
    r"""Eq. 11/48 (attention off) or Eq. 12/49 (attention on): the energy E(θ), w ≠ 0, from the flow.

    Returns a Result with the branch expressions "E_w>0" (in the positive symbol w) and "E_w<0" (in the
    negative symbol w), the glued "E" (undefined on w = 0), the multipliers "k" (x -> k_x), the ratio
    "m_w>0"/"m_w<0" = m(w), and the check "gradE_dot_gradA" (0 on both branches, raises otherwise).
    """
    model = _default_model(model)
    others = [x for x in model.params if x != w]
    ks = {x: (sp.Integer(1) if x == e else sp.Symbol(f"k_{x}")) for x in others}
    unknowns = [k for k in ks.values() if isinstance(k, sp.Symbol)]
    gA = dict(zip(model.params, model.grad_A))
    pieces, ms, solved = {}, {}, []
    free: tuple = ()
    for lab, wb in HALF_PLANES.items():
        sub = {w: wb}
        ratio = sp.cancel((sp.Add(*[ks[x] * x * gA[x] for x in others]) / gA[w]).subs(sub))
        conds = [sp.numer(sp.together(sp.diff(ratio, x))) for x in others]
        if unknowns and all(sp.expand(c) == 0 for c in conds):
            # no condition on the multipliers (the untied model): every choice is conserved, a family
            sol, free = [{}], tuple(unknowns)
        else:
            sol = sp.solve(conds, unknowns, dict=True) if unknowns else [{}]
        if len(sol) != 1 or (not unknowns and any(sp.simplify(c) != 0 for c in conds)):
            raise AssertionError(f"no unique energy multipliers on {lab}: {sol}")
        solved.append(sol[0])
        m = sp.cancel(ratio.subs(sol[0]))
        if m.free_symbols - {wb} - set(free):
            raise AssertionError(f"m depends on more than w on {lab}: {m}")
        prim = sp.integrate(sp.apart(m, wb), wb)
        if wb.is_negative:
            prim = prim.subs(sp.log(wb), sp.log(-wb))     # the real antiderivative (a constant i*pi/2 dropped)
        if sp.expand(sp.diff(prim, wb) - m) != 0:
            raise AssertionError("antiderivative check failed")
        pieces[lab] = sp.expand(sp.Add(*[ks[x].subs(sol[0]) * x**2 for x in others]) - 2 * prim)
        ms[lab] = m
    if solved[0] != solved[1]:
        raise AssertionError("the multipliers differ between the sides of w = 0")
    from .canonical import _glue
    L_abs = sp.Symbol("L_abs")
    E = _glue(pieces["w>0"].subs(sp.log(w_pos), L_abs), pieces["w<0"].subs(sp.log(-w_neg), L_abs),
              w, w_pos, w_neg).subs(L_abs, sp.log(sp.Abs(w)))
    dots = {}
    for lab, wb in HALF_PLANES.items():
        Eb, grads = pieces[lab], [g.subs(w, wb) for g in model.grad_A]
        vars_ = [wb if v == w else v for v in model.params]
        dots[lab] = sp.expand(sum(sp.diff(Eb, v) * g for v, g in zip(vars_, grads)))
        if sp.cancel(dots[lab]) != 0:
            raise AssertionError(f"grad E . grad A != 0 on {lab}: {dots[lab]}")
    if free:
        # a family: "E" is its member with every free multiplier 1 (the symmetric choice), "E_family" keeps them
        one = {k: 1 for k in free}
        return Result(
            ref="Sec. 2 ([23]), untied", title="Conserved energies of the untied gradient flow",
            assumptions=("(p, q) in (0,1)^2", "w != 0 (undefined on w = 0)"),
            expressions={"E_w>0": sp.expand(pieces["w>0"].subs(one)), "E_w<0": sp.expand(pieces["w<0"].subs(one)),
                         "E": sp.expand(E.subs(one)), "E_family": E, "free_multipliers": free,
                         "k": {x: ks[x] for x in others},
                         "m_w>0": ms["w>0"], "m_w<0": ms["w<0"],
                         "gradE_dot_gradA_w>0": dots["w>0"], "gradE_dot_gradA_w<0": dots["w<0"]},
            derivation="The ansatz sum_x k_x x dx = m(w) dw along the flow: the requirement that m depend on w alone "
                       "leaves the multipliers free, so every choice gives a conserved quantity; m integrated on w > 0 "
                       "and w < 0 (sp.integrate), glued with sign(w), |w|.",
        )
    return Result(
        ref="Eq. 12 / Eq. 49" if model.attention else "Eq. 11 / Eq. 48",
        title="Energy of the gradient flow" + (" with attention" if model.attention else " in R^2"),
        assumptions=("(p, q) in (0,1)^2", "w != 0 (undefined on w = 0)"),
        expressions={"E_w>0": pieces["w>0"], "E_w<0": pieces["w<0"], "E": E,
                     "k": {x: ks[x].subs(solved[0]) for x in others},
                     "m_w>0": ms["w>0"], "m_w<0": ms["w<0"],
                     "gradE_dot_gradA_w>0": dots["w>0"], "gradE_dot_gradA_w<0": dots["w<0"]},
        derivation="The ansatz sum_x k_x x dx = m(w) dw along the flow, solved for the k_x so that m depends on w "
                   "alone; m integrated on w > 0 and w < 0 (sp.integrate), glued with sign(w), |w|.",
    )


@derivation
def quadratic_invariants(model=None) -> Result:
    r"""Linear symmetries of the slope A and the conserved quadratic forms of the gradient flow they give.

    Candidates: every linear vector field ξ(θ) = Mθ (M an n x n matrix of unknowns). ξ is a symmetry of the
    loss when ∇A·Mθ ≡ 0 (then ∇L·ξ = G'(A)∇A·ξ = 0: L is constant along the flow of ξ). Written on each branch
    of w (|w| = ±w), ∇A·Mθ is a polynomial in θ whose coefficients are linear in the entries of M; they are all
    set to 0 and solved. For a symmetric S in that solution space, d/dt θ^T S θ = 2θ^T S θ' = -2G'(A)∇A·Sθ = 0:
    θ^T S θ is conserved (Noether's theorem for gradient flows). Returns the solution space ("symmetries", a
    basis of matrices), its symmetric part ("invariants", the forms θ^T S θ) and the number of candidate
    directions that fail ("rejected": n^2 minus the dimension of the solution space).
    """
    model = _default_model(model)
    n = len(model.params)
    unknown = sp.Matrix(n, n, lambda i, j: sp.Symbol(f"m_{i}{j}"))
    theta = sp.Matrix(model.params)
    eqs = []
    for wb in HALF_PLANES.values():
        expr = sp.expand((model.grad_A.T * unknown * theta)[0, 0].subs(w, wb))
        poly = sp.Poly(expr, *[wb if v == w else v for v in model.params])
        eqs += list(poly.coeffs())
    sol = sp.solve(eqs, list(unknown), dict=True)
    if len(sol) != 1:
        raise AssertionError(f"the symmetry equations have no unique solution family: {sol}")
    general = unknown.subs(sol[0])
    params = sorted(general.free_symbols, key=str)
    basis = [general.subs({q_: int(q_ == p_) for q_ in params}) for p_ in params]
    for M in basis:
        for wb in HALF_PLANES.values():
            if sp.expand((model.grad_A.T * M * theta)[0, 0].subs(w, wb)) != 0:
                raise AssertionError("a basis symmetry does not leave A invariant")
    invariants = [sp.expand((theta.T * M * theta)[0, 0]) for M in basis if M == M.T]
    return Result(
        ref="Sec. 2 ([23]), untied" if model.untied else "Lemma 1 / Lemma 9",
        title="Linear symmetries and conserved quadratic forms",
        assumptions=("(p, q) in (0,1)^2", "vector fields linear in theta"),
        expressions={"symmetries": tuple(basis), "invariants": tuple(invariants), "dimension": len(basis),
                     "rejected": n * n - len(basis)},
        derivation="grad A . (M theta) = 0 as a polynomial identity on each branch of w, solved for the n^2 entries "
                   "of M; the symmetric solutions give the conserved forms theta^T M theta.",
    )


def energy(branch: str | None = None, model=None) -> sp.Expr:
    """E(θ): glued over both half-spaces, or one branch ("w>0" / "w<0", in that branch's w symbol)."""
    r = derive_energy(_default_model(model))
    return r["E"] if branch is None else r[f"E_{branch}"]


@derivation
def conservation(model=None) -> Result:
    r"""Lemmas 1/9 and 14: $\nabla E \cdot \nabla L \equiv 0$ off w = 0; w = 0 is invariant; the sign of e is kept.

    ∇L = G'(A)∇A (chain rule), so ∇E·∇L = G'(A)(∇E·∇A); the bracket is expanded to 0 on each
    half-space (in `derive_energy`). On w = 0, ∂L/∂w = G'(A)∂A/∂w and ∂A/∂w = 4|w|(...) vanishes, and
    ∇L is locally Lipschitz (w|w| is C^{1,1}), so by uniqueness w_t = 0 for all t. Likewise ∇A = 0 on
    e = 0: every point there is critical, so a trajectory never crosses e = 0.
    """
    model = _default_model(model)
    r = derive_energy(model)
    barrier = {
        "E_limit_w_to_0-": sp.limit(r["E_w<0"].subs(w_neg, -s_pos), s_pos, 0, "+"),
        "E_limit_w_to_0+": sp.limit(r["E_w>0"].subs(w_pos, s_pos), s_pos, 0, "+"),
    }
    dA_dw = sp.diff(model.A, w)
    return Result(
        ref="Lemma 14" if model.attention else "Lemma 1 / Lemma 9",
        title="Energy is constant along the flow; the plane w = 0 is invariant",
        assumptions=("(p, q) in (0,1)^2", "w_0 != 0 for the energy statement"),
        expressions={
            "gradE_dot_gradA_w>0": r["gradE_dot_gradA_w>0"], "gradE_dot_gradA_w<0": r["gradE_dot_gradA_w<0"],
            "dA_dw": dA_dw, "dA_dw_at_w0": dA_dw.subs(w, 0),
            "dA_de_at_e0": sp.diff(model.A, e).subs(e, 0), **barrier,
        },
        derivation="grad E . grad A expanded on each half-space; dA/dw substituted at w = 0; limits of E.",
    )


@derivation
def energy_on_w_axis() -> Result:
    r"""E_sad, $f(w) = E(0, w)$ and Lemma 12 (i)-(iv), all from the derived E.

    f' is computed on each half-line and its zero solved (w = -1/sqrt(2) on w < 0, none on w > 0);
    the signs of f' on the intervals are decided by SymPy after writing w = -(1+s)/sqrt(2) (left of
    the zero) and w = -1/(sqrt(2)(1+s)) (right of it), s > 0. Item (iii), missing from our copy, is
    what the proof of Thm 2 uses it for: on w < 0, f <= E_sad with equality only at w = -1/sqrt(2);
    hence every level E0 < E_sad is taken exactly once on (-1/sqrt(2), 0) and once on
    (-inf, -1/sqrt(2)), E_sad only at -1/sqrt(2), and no level above E_sad. Proof recorded here:
    E_sad - f(w) = (t - 1 - log t)/2 with t = 2w^2, and t - 1 - log t >= 0 with equality iff t = 1.
    """
    f_neg = energy("w<0").subs(e, 0)
    f_pos = energy("w>0").subs(e, 0)
    df_neg, df_pos = sp.diff(f_neg, w_neg), sp.diff(f_pos, w_pos)
    crit_neg = sp.solve(df_neg, w_neg)
    crit_pos = sp.solve(df_pos, w_pos)
    if len(crit_neg) != 1 or crit_pos:
        raise AssertionError(f"unexpected critical points of f: {crit_neg}, {crit_pos}")
    w_sad = crit_neg[0]
    E_sad = sp.expand_log(sp.expand(f_neg.subs(w_neg, w_sad)), force=True)
    left = sp.factor(sp.cancel(df_neg.subs(w_neg, -(1 + s_pos) / sp.sqrt(2))))       # w < w_sad
    right = sp.factor(sp.cancel(df_neg.subs(w_neg, -1 / (sp.sqrt(2) * (1 + s_pos)))))  # w_sad < w < 0
    lim = {
        "f(-inf)": sp.limit(f_neg.subs(w_neg, -s_pos), s_pos, sp.oo),
        "f(0-)": sp.limit(f_neg.subs(w_neg, -s_pos), s_pos, 0, "+"),
        "f(0+)": sp.limit(f_pos.subs(w_pos, s_pos), s_pos, 0, "+"),
        "f(+inf)": sp.limit(f_pos.subs(w_pos, s_pos), s_pos, sp.oo),
    }
    # (iii): E_sad - f(w) as a function of t = 2 w^2 (w < 0, so w = -sqrt(t/2))
    gap = sp.expand_log(sp.expand(E_sad - f_neg.subs(w_neg, -sp.sqrt(t_pos / 2))), force=True)
    phi = (t_pos - 1 - sp.log(t_pos)) / 2
    phi_min = sp.solve(sp.diff(phi, t_pos), t_pos)
    # separable structure used by the basins: E(e, w) = e^2 + f(w) on each half-plane
    sep = {lab: sp.expand(energy(lab) - e**2 - energy(lab).subs(e, 0)) for lab in HALF_PLANES}
    return Result(
        ref="Lemma 12",
        title="Energy on the w-axis",
        assumptions=("f(w) = E(0, w), w != 0",),
        expressions={
            "f_w<0": f_neg, "f_w>0": f_pos, "df_w<0": df_neg, "df_w>0": df_pos,
            "w_sad": w_sad, "E_sad": E_sad,
            "df_left_of_w_sad": left, "df_right_of_w_sad": right,
            **lim,
            "E_sad_minus_f_in_t": gap, "t_minus_1_minus_log_t_over_2": phi,
            "argmin_phi": sp.Matrix(phi_min), "phi_second": sp.diff(phi, t_pos, 2),
            "E_minus_e2_minus_f_w>0": sep["w>0"], "E_minus_e2_minus_f_w<0": sep["w<0"],
        },
        derivation="f = E(0, w) from the derived E; f' solved and its sign decided on each interval by "
                   "a positive reparameterisation; limits by sp.limit; (iii) by t = 2w^2.",
    )


def E_sad() -> sp.Expr:
    r"""$E_{sad} = E(0, -1/\sqrt{2})$ evaluated from the derived energy."""
    return energy_on_w_axis()["E_sad"]


def f_w_axis(branch: str) -> sp.Expr:
    """f(w) = E(0, w) on the branch "w>0" or "w<0" (in that branch's w symbol)."""
    return energy_on_w_axis()[f"f_{branch}"]


@derivation
def saddle_asymptotes() -> Result:
    r"""g(w), w < 0: the level set E(e, w) = E_sad solved for e >= 0 (the yellow curves of Fig. 1).

    g(w)^2 = E_sad - f(w) >= 0 by Lemma 12 (iii), so g is real on all of w < 0 and vanishes only at
    w = -1/sqrt(2); |e| < g(w) <=> E(e, w) < E_sad on w < 0 (E = e^2 + f).
    """
    E_neg = energy("w<0")
    y = sp.Symbol("y", nonnegative=True)                      # y = e^2 (E depends on e only through e^2)
    if sp.expand(E_neg.subs(e, sp.sqrt(y)) - E_neg.subs(e, -sp.sqrt(y))) != 0:
        raise AssertionError("E is not even in e")
    roots = sp.solve(sp.Eq(E_neg.subs(e, sp.sqrt(y)), E_sad()), y)
    if len(roots) != 1:
        raise AssertionError(f"E = E_sad should fix e^2 uniquely: {roots}")
    g = sp.sqrt(roots[0])                                     # e = +-g(w)
    return Result(
        ref="Thm 2 (ii) / Thm 8 (ii)",
        title="Saddle asymptotes e = +-g(w)",
        assumptions=("w < 0",),
        expressions={"g": g, "g_squared_minus_gap": sp.expand(g**2 - (E_sad() - f_w_axis("w<0"))),
                     "g_at_w_sad": sp.simplify(g.subs(w_neg, energy_on_w_axis()["w_sad"]))},
        derivation="E is even in e; sp.solve(E(e, w) = E_sad) for y = e^2 on w < 0 (linear, one root), g = sqrt(y).",
    )


def g_of_w() -> sp.Expr:
    """g(w) in the negative symbol w (see `saddle_asymptotes`)."""
    return saddle_asymptotes()["g"]
