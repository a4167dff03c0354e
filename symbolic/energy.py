r"""The conserved energy of the gradient flow in R^2 (Sec. 4, App. F, M: Lemmas 1/9, 12; Eq. 11/48).

Derivation, not transcription. The reduced loss is L(e, w) = G(A(e, w)) (`landscape.structure`), so
by the chain rule $\nabla L = G'(A)\,\nabla A$ and, wherever $G'(A) \ne 0$ and $\partial_w A \ne 0$,
a gradient-flow trajectory, written as a curve e(w), solves

    de/dw = (dL/de) / (dL/dw) = (dA/de) / (dA/dw),          A = symbolic.canonical.slope_A().

On each side of the e-axis (w > 0 and w < 0, where |w| is w or -w) this ODE is separable; we split
it with `sp.separatevars`, integrate both sides with `sp.integrate` and normalise the first integral so
that its e^2 coefficient is 1 (an additive constant per half-plane is a free choice; `sp.integrate`
returns the one without a constant, which is the paper's). `sp.dsolve` on the same ODE is a second
route: E is constant on every solution it returns (recorded in the Result).

Everything downstream (E_sad, f(w) = E(0, w), g(w), the basin sets) is computed from this E.
"""
from __future__ import annotations

from functools import lru_cache

import sympy as sp

from . import canonical
from ._result import Result
from ._symbols import e, w, w_neg, w_pos

s_pos = sp.Symbol("s", positive=True)       # auxiliary parameter for intervals of w
t_pos = sp.Symbol("t", positive=True)       # t = 2 w^2 in the proof of Lemma 12 (iii)
E0 = sp.Symbol("E_0", real=True)            # a contour level

HALF_PLANES = {"w>0": w_pos, "w<0": w_neg}


def _first_integral(wb: sp.Symbol) -> tuple[sp.Expr, sp.Expr, dict]:
    """(E on the half-plane of the branch symbol wb, the ODE ratio, the dsolve check)."""
    Ab = canonical.slope_A().subs(w, wb)
    ratio = sp.cancel(sp.diff(Ab, e) / sp.diff(Ab, wb))          # de/dw along the flow
    parts = sp.separatevars(ratio, symbols=[e, wb], dict=True)
    if parts is None:
        raise AssertionError(f"trajectory ODE de/dw = {ratio} is not separable")
    phi, psi = parts[e], parts["coeff"] * parts[wb]                # ratio = phi(e) * psi(w)
    H = sp.integrate(1 / phi, e) - sp.integrate(psi, wb)           # d/dw H(e(w), w) = e'/phi - psi = 0
    # sp.integrate returns log(w) for 1/w; on w < 0 that is log|w| + i*pi. Take the real antiderivative
    # log|w| (same derivative on the half-line), and check it kept the derivative.
    H_real = H.replace(sp.log, lambda arg: sp.log(sp.Abs(arg)))
    if sp.expand(sp.diff(H_real - H, wb)) != 0 or not H_real.is_real:
        raise AssertionError(f"real antiderivative changed the first integral: {H} -> {H_real}")
    H = H_real
    lead = sp.diff(H, e, 2) / 2
    if lead.free_symbols or not lead.is_positive:
        raise AssertionError(f"first integral has no constant positive e^2 coefficient: {H}")
    Eb = sp.expand(H / lead)
    # second route: dsolve the same ODE and check E is constant on its solutions
    ef = sp.Function("e_of_w")
    sols = sp.dsolve(sp.Eq(ef(wb).diff(wb), ratio.subs(e, ef(wb))), ef(wb), hint="separable")
    sols = sols if isinstance(sols, list) else [sols]
    residues = [sp.cancel(sp.expand(sp.diff(Eb.subs(e, s.rhs), wb))) for s in sols]
    return Eb, ratio, {"dsolve_solutions": len(sols), "dE_dw_on_dsolve_solutions": residues}


@lru_cache(maxsize=None)
def derive_energy() -> Result:
    r"""Eq. 11/48: the energy $E(e, w)$ on $\mathbb{R}^2 \setminus$ e-axis, derived from the flow.

    Returns a Result with the branch expressions "E_w>0" (in the positive symbol w), "E_w<0" (in
    the negative symbol w), the unified Piecewise "E" (undefined on w = 0), the trajectory ODE
    ratios and the dsolve residues (all zero). Assumption: (p, q) in (0,1)^2, any regime.
    """
    branch, ratios, dsolve_info = {}, {}, {}
    for label, wb in HALF_PLANES.items():
        branch[label], ratios[label], dsolve_info[label] = _first_integral(wb)
    for label, info in dsolve_info.items():
        if any(r != 0 for r in info["dE_dw_on_dsolve_solutions"]):
            raise AssertionError(f"E is not constant on the dsolve solutions ({label}): {info}")
    E = sp.Piecewise((branch["w<0"].subs(w_neg, w), w < 0), (branch["w>0"].subs(w_pos, w), w > 0))
    return Result(
        ref="Eq. 11 / Eq. 48",
        title="Energy of the gradient flow in R^2",
        assumptions=("(p, q) in (0,1)^2", "w != 0 (undefined on the e-axis)"),
        expressions={
            "E_w>0": branch["w>0"], "E_w<0": branch["w<0"], "E": E,
            "de_dw_w>0": ratios["w>0"], "de_dw_w<0": ratios["w<0"],
            "dsolve_residues": sp.Matrix(dsolve_info["w>0"]["dE_dw_on_dsolve_solutions"]
                                         + dsolve_info["w<0"]["dE_dw_on_dsolve_solutions"]),
        },
        derivation="grad L = G'(A) grad A, so trajectories solve de/dw = (dA/de)/(dA/dw); separated and "
                   "integrated on w > 0 and w < 0 (sp.separatevars + sp.integrate), normalised to e^2 "
                   "coefficient 1; sp.dsolve solutions of the same ODE keep E constant.",
    )


def energy(branch: str | None = None) -> sp.Expr:
    """E(e, w): the Piecewise over both half-planes, or one branch ("w>0" / "w<0", in that branch's w symbol)."""
    r = derive_energy()
    return r["E"] if branch is None else r[f"E_{branch}"]


@lru_cache(maxsize=None)
def conservation() -> Result:
    r"""Lemma 1 / Lemma 9: $\nabla E \cdot \nabla L \equiv 0$ off the e-axis; the e-axis is invariant.

    grad L = G'(A) grad A (chain rule), so grad E . grad L = G'(A) (grad E . grad A); the bracket
    is expanded to 0 on each half-plane. On w = 0, dL/dw = G'(A) dA/dw and dA/dw = 4e^2|w| vanishes,
    and grad L is locally Lipschitz (w|w| is C^{1,1}), so by uniqueness w_t = 0 for all t. Likewise
    dA/de = 0 on the w-axis (e = 0): every point there is critical, so a trajectory never crosses
    e = 0 and the sign of e is preserved.
    """
    Aexpr = canonical.slope_A()
    dots, barrier = {}, {}
    for label, wb in HALF_PLANES.items():
        Eb, Ab = energy(label), Aexpr.subs(w, wb)
        dots[label] = sp.expand(sp.diff(Eb, e) * sp.diff(Ab, e) + sp.diff(Eb, wb) * sp.diff(Ab, wb))
    # energy barrier at the e-axis: limits of E for fixed e as w -> 0^- and w -> 0^+
    barrier["w->0-"] = sp.limit(energy("w<0").subs(w_neg, -s_pos), s_pos, 0, "+")
    barrier["w->0+"] = sp.limit(energy("w>0").subs(w_pos, s_pos), s_pos, 0, "+")
    dA_dw = sp.diff(Aexpr, w)
    return Result(
        ref="Lemma 1 / Lemma 9",
        title="Energy is constant along the flow; the e-axis is invariant",
        assumptions=("(p, q) in (0,1)^2", "w_0 != 0 for the energy statement"),
        expressions={
            "gradE_dot_gradA_w>0": dots["w>0"], "gradE_dot_gradA_w<0": dots["w<0"],
            "dA_dw": dA_dw, "dA_dw_at_w0": dA_dw.subs(w, 0),
            "dA_de_at_e0": sp.diff(Aexpr, e).subs(e, 0),
            "E_limit_w_to_0-": barrier["w->0-"], "E_limit_w_to_0+": barrier["w->0+"],
        },
        derivation="grad E . grad A expanded on each half-plane; dA/dw substituted at w = 0; limits of E.",
    )


@lru_cache(maxsize=None)
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


@lru_cache(maxsize=None)
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
