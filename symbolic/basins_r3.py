r"""Basins of the gradient flow with attention in R^3 (Sec. 4.1, App. G; our result): the derived objects.

The paper leaves the basins of GF-Attention in R^3 open (Sec. 4.1), states Thm 11 informally and claims
convergence from every start (Lemma 15, Thm 3). Everything below is derived from the model object
`canonical_model(True)`; nothing of the characterisation is typed in:

* `slope_factors`: A = U(e, a) V(w), U and V read off the model's A (U = A at w = 0, V = A/U);
* `flow_structure`: along θ' = -G'(A)∇A the (e, a)-part follows a gradient line of U, reparametrised
  (dλ/dt = -G'V), w' = -4G'U|w|, d f(w)/dt = 4G'UV, dh/dλ = 4U with h = E - f = e^2 - 2a^2 (read off the
  derived energy); every critical point off Θ* has A = 0;
* `airy_reduction`: the gradient lines of U in (a, y = e^2) solve the Abel equation y y' = 8ay + 4; the
  polynomial J with X(J) constant is *solved* (J = y - 4a^2), it is a time along the lines and turns them
  into the Riccati equation da/ds = 4a^2 + 4s, which the scaling a = κℓ, s = μz (κ, μ *solved*) makes the
  Airy Riccati equation dℓ/dz = z - ℓ^2: the Airy coordinates ℓ = 2^(2/3) a, z = ℓ^2 - 2^(-2/3) e^2;
* `linearisation`: ℓ = φ'/φ with φ'' = zφ, φ = αAi + βBi; q = φ'^2 - zφ^2 has q' = -φ^2 and
  y φ^2 = 2^(2/3) q on the line; (α, β) of the line through (z0, ℓ0) *solved* from φ(z0) = 1, φ'(z0) = ℓ0;
  the Wronskian W(Ai, Bi) = 1/π proved exactly (W' = 0 and W(0) by the reflection formula); the first
  integral I = -β/α = (ℓAi - Ai')/(ℓBi - Bi') with X(I) = 0 in both coordinate systems; the Jacobian of
  the line coordinates (z, a_inf) used by the quadrature of Thm 11;
* `separatrix`: β = 0 solved for ℓ: S = {ℓ = Ai'(z)/Ai(z), z > a_1}, its slope, y_S = 2^(2/3) q_S/Ai^2,
  its asymptotics as a -> -oo;
* `lambert_inverse`: f(w) = c solved on each monotone branch of f (the derived f of `energy`): Lambert W;
* `race`: Δ = h(e, a) - h(0, a_inf) = e^2 - 2a^2 + 2a_inf^2, the race identity c_end - E_sad =
  f(w0) - (E_sad - Δ), the thresholds w_c, w_c' (and w_st of the C-race) as Lambert-W expressions;
* `lemma_c`: the comparison inequalities (elementary, from d(y^2)/da = 8 + 16ay);
* `r3_facts`, `limit_rule_r3`, `sign_data`, `theorem_sets`, `set_class_r3`: the proof of Theorems A, B, C
  as a decision procedure over derived facts, and the stated sets read on every sign datum (as
  `basins.limit_rule` does for R^2).

Conventions: y = e^2 > 0 off the a-axis; λ is the parameter of the gradient lines of U (dθ/dλ = ∇U);
"descending" means U decreasing (z increasing).
"""
from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from . import energy as _energy
from . import landscape as _land
from ._cache import derivation
from ._result import Result
from ._symbols import a, e, w, w_neg, w_pos
from .basins import W_SIDES, contour_facts
from .model import canonical_model

y = sp.Symbol("y", positive=True)             # y = e^2 off the a-axis
z, ell = sp.symbols("z ell", real=True)       # Airy coordinates
s_time = sp.Symbol("s", real=True)            # the time J/X(J) along the Abel field
Gp = sp.Symbol("G1", real=True)               # a value of G'(A)
Phi, dPhi = sp.symbols("Phi dPhi", real=True)  # phi(z), phi'(z) on one line
alpha, beta = sp.symbols("alpha beta", real=True)
z0, ell0 = sp.symbols("z_0 ell_0", real=True)
a_inf = sp.Symbol("a_inf", real=True)         # the end point (0, a_inf) of a line on the a-axis
a0, y0 = sp.Symbol("a_0", real=True), sp.Symbol("y_0", positive=True)
c_lev = sp.Symbol("c", real=True)             # a level of f
Delta = sp.Symbol("Delta", nonnegative=True)  # the energy consumed along a line, h(start) - h(end)
h_C = sp.Symbol("h_C", real=True)             # h where a line crosses C = {1 + a e^2 = 0}
Wv = sp.Symbol("W", real=True)                # a value of the Lambert W function
t_W = sp.Symbol("t", negative=True)           # a value of W on w < 0 (W(x) e^W(x) = x)
t_Wp = sp.Symbol("t", positive=True)          # ... on w > 0
Y, m_, a_lo, d_ = sp.symbols("Y m a_lo d", real=True)   # Lemma C: e^2 <= Y, a >= a_lo, a - a_inf = d

TWO13 = sp.cbrt(2)


def _airy_free(expr: sp.Expr, wronskian: bool = False) -> sp.Expr:
    """expr with every Ai, Ai', Bi, Bi' (of whatever argument) replaced by a symbol, derivatives done
    (SymPy: Ai'' = z Ai), optionally Bi' eliminated by the Wronskian W(Ai, Bi) = 1/π (`linearisation`
    proves it), and the result cancelled: an exact zero test for identities between Airy functions."""
    ex = sp.sympify(expr).doit()
    args = sorted({f.args[0] for f in ex.atoms(sp.airyai, sp.airyaiprime, sp.airybi, sp.airybiprime)}, key=sp.srepr)
    reps = {}
    for k, x in enumerate(args):
        A0, A1, B0, B1 = sp.symbols(f"Ai{k} Aip{k} Bi{k} Bip{k}", real=True)
        reps.update({sp.airyai(x): A0, sp.airyaiprime(x): A1, sp.airybi(x): B0,
                     sp.airybiprime(x): (1 / sp.pi + A1 * B0) / A0 if wronskian else B1})
    return sp.cancel(sp.together(ex.xreplace(reps)))


def is_zero(expr, wronskian: bool = False) -> bool:
    """Exact zero test for the identities of this module (matrices: every entry)."""
    if isinstance(expr, (sp.MatrixBase, list, tuple)):
        return all(is_zero(x, wronskian) for x in expr)
    ex = sp.sympify(expr)
    if ex.has(sp.airyai, sp.airyaiprime, sp.airybi, sp.airybiprime):
        return _airy_free(ex, wronskian) == 0
    return sp.cancel(sp.expand(ex)) == 0


# ---------------------------------------------------------------------------------------------
# the slope and the flow
# ---------------------------------------------------------------------------------------------

@derivation
def slope_factors() -> Result:
    r"""A(e, w, a) = U(e, a) V(w), read off the attention model's A: U = A at w = 0 (V(0) = 1 is then a
    consequence), V = A/U; ∇U and its zeros (∇U = 0 only on e = 0)."""
    A = canonical_model(True).A
    U = sp.expand(A.subs(w, 0))
    V = sp.cancel(A / U)
    if U.free_symbols - {e, a} or V.free_symbols - {w} or sp.expand(U * V - A) != 0:
        raise AssertionError(f"A does not factor as U(e, a) V(w): {A}")
    gU = sp.Matrix([sp.diff(U, e), sp.diff(U, a)])
    zeros = sp.solve(list(gU), [e, a], dict=True)
    return Result(
        ref="Sec. 4.1 (R^3 basins, our result)", title="The slope factors: A = U(e, a) V(w)",
        assumptions=("(e, w, a) in R^3",),
        expressions={"A": A, "U": U, "V": V, "grad_U": gU, "grad_U_zeros": zeros,
                     "U_at_e2_y": sp.expand(U.subs(e, sp.sqrt(y)))},
        derivation="U = A(e, 0, a), V = A/U (cancelled); U free of w, V free of e and a, U V = A checked; "
                   "∇U = 0 solved.")


def _U_V():
    r = slope_factors()
    return r["U"], r["V"]


@derivation
def flow_structure() -> Result:
    r"""The flow θ' = -G'(A)∇A (G' a free value G1) in terms of U and V, on both half-spaces of w:

    (e', a') = -G1 V ∇U, so (e, a) moves on a gradient line of U with dλ/dt = -G1 V (dλ = dU/|∇U|^2);
    w' = -4 G1 U |w|; d f(w)/dt = 4 G1 U V; dU/dt = -G1 V |∇U|^2; h := E - f(w) = e^2 - 2a^2 (read off the
    derived energy) with dh/dλ = ∇h·∇U = 4U. Every family of ∇A = 0 (Thm 10) has A = 0, so Θ* is the only
    critical set with A != 0. All returned residuals are exactly 0 (checked here)."""
    model = canonical_model(True)
    U, V = _U_V()
    gU = slope_factors()["grad_U"]
    ew = _energy.energy_on_w_axis()
    out, res = {}, {}
    for lab, wb in (("w>0", w_pos), ("w<0", w_neg)):
        sub = {w: wb}
        gA = model.grad_A.subs(sub)
        flow = -Gp * gA                          # (e', w', a')
        Vb = V.subs(sub)
        res[f"ea_velocity_{lab}"] = sp.Matrix([flow[0], flow[2]]) + Gp * Vb * gU
        res[f"w_velocity_{lab}"] = flow[1] + 4 * Gp * U * sp.Abs(wb)
        f = ew[f"f_{lab}"]
        res[f"df_dt_{lab}"] = sp.diff(f, wb) * flow[1] - 4 * Gp * U * Vb
        E = model.energy_result[f"E_{lab}"]
        f_att = E.subs({e: 0, a: 0})
        res[f"f_is_R2_f_{lab}"] = f_att - f
        h = sp.expand(E - f_att)
        if h.free_symbols - {e, a}:
            raise AssertionError(f"the energy is not h(e, a) + f(w) on {lab}: {E}")
        out[f"h_{lab}"] = h
        res[f"dlambda_dt_{lab}"] = (gU.dot(sp.Matrix([flow[0], flow[2]]))) / gU.dot(gU) + Gp * Vb
        res[f"dU_dt_{lab}"] = gU.dot(sp.Matrix([flow[0], flow[2]])) + Gp * Vb * gU.dot(gU)
    if sp.expand(out["h_w>0"] - out["h_w<0"]) != 0:
        raise AssertionError("h differs between the half-spaces")
    h = out["h_w>0"]
    res["dh_dlambda"] = gU.dot(sp.Matrix([sp.diff(h, e), sp.diff(h, a)])) - 4 * U
    if not all(is_zero(r) for r in res.values()):
        bad = [k for k, r in res.items() if not is_zero(r)]
        raise AssertionError(f"flow identities fail: {bad}")
    names = {"e": e, "w": w, "a": a}
    A_on_crit = [sp.simplify(model.A.subs({names[k]: v for k, v in fam.items() if k in names}))
                 for fam in model.grad_A_zeros]
    st = _land.structure()
    p_, q_ = sp.symbols("p q", positive=True)
    # sign A* = sign(1 - p - q): A* = log(N/D) with N - D = (1-p)(1-q) - pq = 1 - p - q
    Astar_num_minus_den = sp.expand((1 - p_) * (1 - q_) - p_ * q_)
    return Result(
        ref="Sec. 4.1 (R^3 basins, our result)", title="The flow with attention in terms of U and V",
        assumptions=("theta_0 in R^3", "w != 0 for f and E"),
        expressions={"h": h, "dlambda_dt": -Gp * V, "w_dot": -4 * Gp * U * sp.Abs(w), "df_dt": 4 * Gp * U * V,
                     "dU_dt": -Gp * V * gU.dot(gU), "dh_dlambda": 4 * U, "residuals": res,
                     "A_on_critical_families": A_on_crit,
                     "G_convex_and_G1_at_A_star_zero": bool(st["G_second_positive"] == sp.true
                                                             and st["G_prime_at_A_star"] == 0),
                     "A_star": st["A_star"], "A_star_numerator_minus_denominator": Astar_num_minus_den},
        derivation="∇A of the model with G'(A) a free value; (e', a') compared with -G1 V ∇U, w' with "
                   "-4 G1 U |w| on each half-space; h = E - E(0, w, 0) from the derived energy.")


# ---------------------------------------------------------------------------------------------
# the Airy-Riccati reduction of the gradient lines of U
# ---------------------------------------------------------------------------------------------

@derivation
def airy_reduction() -> Result:
    r"""The gradient lines of U in (a, y), y = e^2: da/dλ = U_a, dy/dλ = 2e U_e, so y dy/da = 8ay + 4
    (Abel), i.e. the field X = y ∂_a + (8ay + 4) ∂_y (the line field divided by y > 0). The ansatz
    J = y + k a^2 with X(J) constant is solved (k = -4, X(J) = 4), s = J/X(J) is a time along X, and
    da/ds = 4a^2 + 4s (Riccati). a = κℓ, s = μz with κ, μ solved so that dℓ/dz = z - ℓ^2 (Airy Riccati):
    κ = 2^(-2/3), μ = -2^(-4/3), i.e. ℓ = 2^(2/3) a, z = ℓ^2 - 2^(-2/3) y. The inverse, h, U, 1 + ay
    (the curve C), 1 + 2ay (the e-nullcline N) and the axis y = 0 in these coordinates; dz/dλ < 0."""
    U, _ = _U_V()
    Ue, Ua = sp.diff(U, e), sp.diff(U, a)
    da = sp.expand(Ua.subs(e, sp.sqrt(y)))
    dy = sp.expand((2 * e * Ue).subs(e, sp.sqrt(y)))
    X = (sp.cancel(da / y), sp.cancel(dy / y))               # (X^a, X^y)
    k = sp.Symbol("k", real=True)
    J = y + k * a**2
    XJ = sp.expand(X[0] * sp.diff(J, a) + X[1] * sp.diff(J, y))
    ksol = sp.solve(sp.Poly(XJ, a, y).coeff_monomial(a * y), k)
    if len(ksol) != 1:
        raise AssertionError(f"no unique J: {ksol}")
    J = J.subs(k, ksol[0])
    XJ = sp.expand(XJ.subs(k, ksol[0]))
    if XJ.free_symbols:
        raise AssertionError(f"X(J) is not constant: {XJ}")
    s_of = J / XJ
    riccati_rhs = sp.expand((X[0] / (X[0] * sp.diff(s_of, a) + X[1] * sp.diff(s_of, y))).subs(y, sp.solve(s_of - s_time, y)[0]))
    kap, mu = sp.symbols("kappa mu", real=True)
    lhs = sp.expand(riccati_rhs.subs({a: kap * ell, s_time: mu * z}) * mu / kap)   # dℓ/dz
    eqs = [sp.Poly(lhs, ell, z).coeff_monomial(ell**2) + 1, sp.Poly(lhs, ell, z).coeff_monomial(z) - 1]
    sols = [s for s in sp.solve(eqs, [kap, mu], dict=True) if s[kap].is_real and s[mu].is_real]
    if len(sols) != 1:
        raise AssertionError(f"no unique real scaling: {sols}")
    kappa, muv = sp.nsimplify(sols[0][kap]), sp.nsimplify(sols[0][mu])
    ell_of = a / kappa
    z_of = sp.expand(s_of.subs(y, e**2) / muv)
    a_of = kappa * ell
    y_of = sp.solve(sp.expand(s_of / muv).subs(a, a_of) - z, y)[0]
    roundtrip = sp.Matrix([sp.expand(z_of.subs(e, sp.sqrt(y)).subs({y: y_of}).subs(a, a_of) - z),
                           sp.expand(ell_of.subs(a, a_of) - ell)])
    dz_dl = sp.expand(sp.diff(z_of, e) * Ue + sp.diff(z_of, a) * Ua)
    dl_dl = sp.expand(sp.diff(ell_of, a) * Ua)
    h = flow_structure()["h"]
    to_zl = {e: sp.sqrt(y_of), a: a_of}
    h_zl = sp.expand(h.subs(to_zl))
    U_zl = sp.factor(sp.expand(U.subs(to_zl)))
    C_zl = sp.expand((1 + a * e**2).subs(to_zl))
    N_zl = sp.expand((1 + 2 * a * e**2).subs(to_zl))
    axis = {"z": sp.expand(z_of.subs(e, 0)), "h": sp.expand(h.subs(e, 0))}
    res = {"roundtrip": roundtrip, "dz_dlambda": dz_dl - sp.expand(muv**-1 * e**2),
           "dl_dz": sp.cancel(dl_dl / dz_dl).subs({a: a_of}).subs(e, sp.sqrt(y_of)) - (z - ell**2)}
    if not all(is_zero(v) for v in res.values()):
        raise AssertionError("the Airy coordinates do not give dℓ/dz = z - ℓ^2")
    return Result(
        ref="Sec. 4.1 (R^3 basins, our result)", title="The gradient lines of U are Airy-Riccati curves",
        assumptions=("e != 0 (y = e^2 > 0)",),
        expressions={"X": sp.Matrix(X), "J": J, "X_of_J": XJ, "s_of": s_of, "riccati_a_s": riccati_rhs,
                     "kappa": kappa, "mu": muv, "ell_of": ell_of, "z_of": z_of, "a_of": a_of, "y_of": y_of,
                     "dz_dlambda": dz_dl, "dell_dlambda": dl_dl, "dl_dz": z - ell**2,
                     "h_zl": h_zl, "U_zl": U_zl, "C_zl": C_zl, "N_zl": N_zl, "axis_z": axis["z"],
                     "axis_h": axis["h"], "roundtrip": roundtrip},
        derivation="Abel field from ∇U in (a, y); J = y + k a^2 with X(J) constant solved for k; a = κℓ, s = μz "
                   "solved for dℓ/dz = z - ℓ^2; inverse solved; h, U, 1 + ay, 1 + 2ay substituted.")


# ---------------------------------------------------------------------------------------------
# linearisation: φ'' = zφ, the line through a point, the first integral
# ---------------------------------------------------------------------------------------------

AIRY = (sp.airyai(z), sp.airyaiprime(z), sp.airybi(z), sp.airybiprime(z))


@derivation
def linearisation() -> Result:
    r"""ℓ = φ'/φ linearises the Riccati equation to φ'' = zφ (φ = αAi + βBi); on a line q := φ'^2 - zφ^2
    has q' = -φ^2 and y φ^2 = 2^(2/3) q, U φ^5 = 2^(2/3) q (φ^3 + φ' q) (so sign U = sign(φ^3 + φ'q) where
    q > 0, φ != 0); the line through (z0, ℓ0), φ(z0) = 1, φ'(z0) = ℓ0, has (α, β) solved from that
    linear system, = (π(Bi' - ℓ0 Bi), π(ℓ0 Ai - Ai')) with W(Ai, Bi) = Ai Bi' - Ai' Bi = 1/π, proved here
    (W' = 0 exactly, W(0) = 1/π by Γ(1/3)Γ(2/3) = 2π/√3); (φ/Ai)' = βW/Ai^2; the first integral
    I = -β/α at the point itself, constant along the Riccati field (X(I) = 0 in (z, ℓ) and in (a, y));
    the Jacobian |∂(e, a)/∂(z, a_inf)| = 2^(-2/3)/(|φ| sqrt q) of the line coordinates (for Thm 11)."""
    ar = airy_reduction()
    Ai, Aip, Bi, Bip = AIRY
    phi_f = sp.Function("phi")(z)
    lin = sp.diff(phi_f, z) / phi_f
    riccati_res = sp.simplify((sp.diff(lin, z) - (z - lin**2)).subs(sp.Derivative(phi_f, (z, 2)), z * phi_f).doit())
    phi = alpha * Ai + beta * Bi
    dphi = sp.diff(phi, z)
    q = dphi**2 - z * phi**2
    ys = ar["y_of"].subs(ell, dphi / phi)
    Uz = ar["U_zl"].subs(ell, dphi / phi)
    res = {"riccati_generic": riccati_res,
           "airy_ode": sp.diff(phi, z, 2) - z * phi,
           "q_prime": sp.diff(q, z) + phi**2,
           "y_phi2": ys * phi**2 - TWO13**2 * q,
           "U_phi5": Uz * phi**5 - TWO13**2 * q * (phi**3 + dphi * q)}
    Wr = Ai * Bip - Aip * Bi
    W_prime = sp.diff(Wr, z)
    W_at_0 = sp.gammasimp(Wr.subs(z, 0))
    sol = sp.solve([(alpha * Ai + beta * Bi).subs(z, z0) - 1, (alpha * Aip + beta * Bip).subs(z, z0) - ell0],
                   [alpha, beta], dict=True)[0]
    W0 = Wr.subs(z, z0)
    al0 = sp.factor(sp.cancel(sol[alpha] * W0)) * sp.pi          # the solution with W(z0) = 1/π
    be0 = sp.factor(sp.cancel(sol[beta] * W0)) * sp.pi
    res["alpha_beta_solve"] = sp.Matrix([sol[alpha] - al0 / (sp.pi * W0), sol[beta] - be0 / (sp.pi * W0)])
    res["phi_over_Ai"] = sp.diff(phi / Ai, z) - beta * Wr / Ai**2
    # first integral: I(z, ℓ) = -β/α of the line normalised at (z, ℓ)
    I = sp.cancel(-be0 / al0).subs({z0: z, ell0: ell})
    res["R_of_I"] = sp.diff(I, z) + (z - ell**2) * sp.diff(I, ell)
    I_ay = I.subs({z: ar["z_of"].subs(e, sp.sqrt(y)), ell: ar["ell_of"]})
    Xa, Xy = ar["X"]
    res["X_of_I"] = Xa * sp.diff(I_ay, a) + Xy * sp.diff(I_ay, y)
    # the line ending on the axis at (0, a_inf): z* = ℓ*^2, ℓ* = ℓ(a_inf); Jacobian of (z, a_inf) -> (e, a)
    ls = ar["ell_of"].subs(a, a_inf)
    zs = sp.expand(ls**2)
    al_s, be_s = al0.subs({z0: zs, ell0: ls}), be0.subs({z0: zs, ell0: ls})
    cross = sp.diff(be_s, a_inf) * al_s - sp.diff(al_s, a_inf) * be_s
    res["cross_at_axis"] = cross - sp.pi**2 * TWO13**2 * Wr.subs(z, zs)
    ell_line = (al_s * Aip + be_s * Bip) / (al_s * Ai + be_s * Bi)
    res["dell_da_inf"] = sp.diff(ell_line, a_inf) - cross * Wr / (al_s * Ai + be_s * Bi)**2
    # generic Jacobian: a = κℓ, y = y(z, ℓ), e = sqrt(y): ∂(e, a)/∂(z, t) = -(∂ℓ/∂t)/(2e) with ∂ℓ/∂z = z - ℓ^2
    Lt = sp.Symbol("L_t", real=True)
    yz = ar["y_of"]
    ee = sp.sqrt(yz)
    de_dz = sp.diff(ee, z) + sp.diff(ee, ell) * (z - ell**2)
    de_dt = sp.diff(ee, ell) * Lt
    da_dz, da_dt = ar["kappa"] * (z - ell**2), ar["kappa"] * Lt
    jac = sp.simplify(de_dz * da_dt - de_dt * da_dz)
    res["jacobian_generic"] = jac + Lt / (2 * ee)
    # |jac| = |∂ℓ/∂a_inf|/(2e) with ∂ℓ/∂a_inf = cross W(z)/φ^2 (dell_da_inf), cross = π^2 2^(2/3) W(z*)
    # (cross_at_axis), W = 1/π, and e = 2^(1/3) sqrt(q)/|φ| (y_phi2)
    Wpi = 1 / sp.pi
    jac_phi = sp.Abs(-(sp.pi**2 * TWO13**2 * Wpi) * Wpi / Phi**2) / (2 * TWO13 * sp.sqrt(dPhi**2 - z * Phi**2) / sp.Abs(Phi))
    ok = {k: is_zero(v, wronskian=k in ("alpha_beta_solve",)) for k, v in res.items()}
    ok["W_prime"] = is_zero(W_prime)
    ok["W_at_0"] = sp.simplify(W_at_0 - 1 / sp.pi) == 0
    if not all(ok.values()):
        raise AssertionError(f"linearisation identities fail: {[k for k, v in ok.items() if not v]}")
    qP = dPhi**2 - z * Phi**2
    return Result(
        ref="Sec. 4.1 (R^3 basins, our result)", title="Linearisation: φ'' = zφ, the lines, the first integral",
        assumptions=("e != 0", "φ(z) != 0 on the physical segment"),
        expressions={"phi": phi, "q": q, "wronskian": Wr, "W_prime": W_prime, "W_at_0": W_at_0,
                     "alpha0": al0, "beta0": be0, "I": I, "residuals": res, "checks": ok,
                     "cross_at_axis": cross, "jacobian": sp.simplify(jac_phi),
                     # the same objects in terms of the values Phi = φ(z), dPhi = φ'(z) (numerics)
                     "q_in_phi": qP, "ell_in_phi": dPhi / Phi, "y_in_phi": TWO13**2 * qP / Phi**2,
                     "e_abs_in_phi": TWO13 * sp.sqrt(qP) / sp.Abs(Phi), "a_in_phi": ar["kappa"] * dPhi / Phi,
                     "q_prime_in_phi": -Phi**2, "C_function": Phi**3 + dPhi * qP, "h_in_phi": ar["h_zl"].subs(ell, dPhi / Phi),
                     "U_in_phi": TWO13**2 * qP * (Phi**3 + dPhi * qP) / Phi**5,
                     "phi_values": sp.Matrix([alpha * Ai + beta * Bi, alpha * Aip + beta * Bip]),
                     "axis_point": sp.Matrix([zs, ls])},
        derivation="φ = αAi + βBi substituted; (α, β) solved from φ(z0) = 1, φ'(z0) = ℓ0; W' and W(0) exact "
                   "(gammasimp); identities tested with Ai, Ai', Bi, Bi' as symbols after differentiation.")


# ---------------------------------------------------------------------------------------------
# the separatrix S (β = 0)
# ---------------------------------------------------------------------------------------------

@derivation
def separatrix() -> Result:
    r"""S: the line with β = 0 (φ ∝ Ai). β(z, ℓ) = 0 solved for ℓ: ℓ_S = Ai'/Ai; ℓ_S' = z - ℓ_S^2 = -q_S/Ai^2
    with q_S = Ai'^2 - zAi^2, q_S' = -Ai^2; on S: a = 2^(-2/3)ℓ_S, y_S = 2^(2/3) q_S/Ai^2, da/dz =
    -2^(-4/3) y_S (the parametrisation by z used for P((e, a) not in R)); y = -1/(2a) - 1/(32a^4) solves the
    Abel equation to o(a^-5) as a -> -oo; at a = 0, ℓ = 0: Ai'(z) = 0."""
    ar, li = airy_reduction(), linearisation()
    Ai, Aip = sp.airyai(z), sp.airyaiprime(z)
    beta_zl = li["beta0"].subs({z0: z, ell0: ell})
    lS = sp.solve(beta_zl, ell)
    if len(lS) != 1:
        raise AssertionError(f"β = 0 does not fix ℓ: {lS}")
    lS = lS[0]
    qS = Aip**2 - z * Ai**2
    yS = ar["y_of"].subs(ell, lS)
    aS = ar["a_of"].subs(ell, lS)
    res = {"riccati": sp.diff(lS, z) - (z - lS**2), "slope": sp.diff(lS, z) + qS / Ai**2,
           "qS_prime": sp.diff(qS, z) + Ai**2, "y_S": yS - TWO13**2 * qS / Ai**2,
           "da_dz": sp.diff(aS, z) + yS / TWO13**4}
    ok = {k: is_zero(v) for k, v in res.items()}
    ys_asym = -1 / (2 * a) - 1 / (32 * a**4)
    Xa, Xy = ar["X"]
    resid = (ys_asym * sp.diff(ys_asym, a) - Xy.subs(y, ys_asym) / 1 * 1)   # y y' - (8ay + 4)
    lead = sp.limit(sp.expand(resid) * a**5, a, -sp.oo)
    ok["asymptotics"] = bool(lead.is_finite) and sp.expand(Xa.subs(y, ys_asym) - ys_asym) == 0
    if not all(ok.values()):
        raise AssertionError(f"separatrix identities fail: {[k for k, v in ok.items() if not v]}")
    implicit = beta_zl.subs({z: ar["z_of"], ell: ar["ell_of"]})
    return Result(
        ref="Sec. 4.1 (R^3 basins, our result)", title="The separatrix S = {β = 0}",
        assumptions=("z > a_1 (the largest zero of Ai)",),
        expressions={"ell_S": lS, "q_S": qS, "a_S": aS, "y_S": yS, "beta_zl": beta_zl, "implicit_e_a": implicit,
                     "y_S_asymptotic": ys_asym, "a5_residual_limit": lead, "residuals": res, "checks": ok,
                     "ell_S_minus_L": lS - ell, "at_a0": Aip},
        derivation="β of the line through (z, ℓ) set to 0 and solved for ℓ; identities with Ai, Ai' as symbols.")


# ---------------------------------------------------------------------------------------------
# f^-1 on each branch (Lambert W), the race thresholds, Lemma C
# ---------------------------------------------------------------------------------------------

@derivation
def lambert_inverse() -> Result:
    r"""f(w) = c solved on each monotone branch of the derived f (`energy.energy_on_w_axis`): with u = w^2,
    w > 0: u = W_0(2e^{-2c})/2; w < 0: u = -W_k(-2e^{2c})/2 (SymPy's solve gives the principal branch; the
    equation u - log(u)/2 = -c has a second real root on the branch k = -1). Proof of both, exact: with
    t = W(x) (so x = t e^t), u = -t/2 solves the equation iff -2e^{2c} = t e^t; W_0 takes the values t >= -1
    (u <= 1/2, |w| <= 1/√2: B_mid), W_{-1} the values t <= -1 (B_low, DLMF 4.13); real for c <= E_sad, the
    branch point -2e^{2E_sad} = -1/e."""
    ew = _energy.energy_on_w_axis()
    u = sp.Symbol("u", positive=True)
    f_pos, f_neg = ew["f_w>0"].subs(w_pos, sp.sqrt(u)), ew["f_w<0"].subs(w_neg, -sp.sqrt(u))
    sol_pos = sp.solve(f_pos - c_lev, u)
    sol_neg = sp.solve(f_neg - c_lev, u)
    if len(sol_pos) != 1 or len(sol_neg) != 1:
        raise AssertionError(f"f = c: {sol_pos}, {sol_neg}")
    u_pos, u_neg = sol_pos[0], sol_neg[0]
    (Wp,) = u_pos.atoms(sp.LambertW)
    (Wn,) = u_neg.atoms(sp.LambertW)
    x_pos, x_neg = Wp.args[0], Wn.args[0]
    # parametric proof: c(t) from u = (-t/2 on w<0, t/2 on w>0), then x(c(t)) = t e^t exactly
    c_neg_t = f_neg.subs(u, -t_W / 2)
    c_pos_t = f_pos.subs(u, t_Wp / 2)
    chk = {"neg": sp.simplify(sp.expand_log(x_neg.subs(c_lev, c_neg_t), force=True) - t_W * sp.exp(t_W)),
           "pos": sp.simplify(sp.expand_log(x_pos.subs(c_lev, c_pos_t), force=True) - t_Wp * sp.exp(t_Wp)),
           "u_neg_is_minus_W_over_2": sp.simplify(u_neg.subs(Wn, Wv) + Wv / 2),
           "u_pos_is_W_over_2": sp.simplify(u_pos.subs(Wp, Wv) - Wv / 2),
           "branch_point": sp.simplify(x_neg.subs(c_lev, ew["E_sad"]) + sp.exp(-1))}
    if any(v != 0 for v in chk.values()):
        raise AssertionError(f"Lambert inverse fails: {chk}")
    w_of = {"pos": sp.sqrt(u_pos), "mid": -sp.sqrt(u_neg), "low": -sp.sqrt(u_neg.subs(Wn, sp.LambertW(x_neg, -1)))}
    return Result(
        ref="Sec. 4.1 (R^3 basins, our result)", title="f^-1 on each monotone branch (Lambert W)",
        assumptions=("c <= E_sad on w < 0",),
        expressions={"x_pos": x_pos, "x_neg": x_neg, "w_pos": w_of["pos"], "w_mid": w_of["mid"], "w_low": w_of["low"],
                     "w_pos_of_W": sp.sqrt(Wv / 2), "w_neg_of_W": -sp.sqrt(-Wv / 2), "checks": chk,
                     "t_of_w": -2 * w**2, "branch_split_t": sp.Integer(-1)},
        derivation="sp.solve(f(±sqrt u) = c, u) on each half-line; the second real branch W_{-1}; checked by "
                   "substituting x = t e^t (t = W(x)).")


@derivation
def race() -> Result:
    r"""The race along a line of R (p+q > 1 on B_mid, p+q < 1 on B_low): with E0 = h0 + f(w0) and the
    end point (0, a_inf) (h = -2a_inf^2 there), the level reached is c_end = E0 - h(0, a_inf); with
    Δ := h(e, a) - h(0, a_inf) = e^2 - 2a^2 + 2a_inf^2, c_end - E_sad = f(w0) - (E_sad - Δ) exactly, so V
    vanishes before the axis iff f(w0) > E_sad - Δ. w_c, w_c' solve f = E_sad - Δ on B_mid, B_low; w_st
    (the C-race) solves f = E_sad - (h0 - h_C). The Lambert argument -2e^{2(E_sad - Δ)} = -e^{-1-2Δ}."""
    fs = flow_structure()
    h = fs["h"]
    ew = _energy.energy_on_w_axis()
    Es = ew["E_sad"]
    lw = lambert_inverse()
    f0 = sp.Symbol("f_0", real=True)                  # f(w0)
    h0 = h
    h_end = h.subs({e: 0, a: a_inf})
    E0 = h0 + f0
    c_end = E0 - h_end
    D = sp.expand(h0 - h_end)
    ident = sp.expand((c_end - Es) - (f0 - (Es - D)))
    x_at = sp.simplify(sp.expand_log(lw["x_neg"].subs(c_lev, Es - Delta), force=True))
    w_c = lw["w_mid"].subs(c_lev, Es - Delta)
    w_c2 = lw["w_low"].subs(c_lev, Es - Delta)
    w_st = {k: lw[f"w_{k}"].subs(c_lev, Es - (h0 - h_C)) for k in ("mid", "low")}
    c_race_ident = sp.expand((h0 + f0 - h_C - Es) - (f0 - (Es - (h0 - h_C))))
    if ident != 0 or c_race_ident != 0 or sp.simplify(x_at + sp.exp(-1 - 2 * Delta)) != 0:
        raise AssertionError("race identities fail")
    return Result(
        ref="Sec. 4.1 (R^3 basins, our result)", title="The race: Δ, w_c, w_c', w_st",
        assumptions=("(e, a) in R for Δ, w_c, w_c'", "the line crosses C for w_st"),
        expressions={"h_end": h_end, "Delta": D, "c_end": c_end, "race_identity": ident, "lambert_argument": x_at,
                     "w_c": w_c, "w_c_prime": w_c2, "w_st_mid": w_st["mid"], "w_st_low": w_st["low"],
                     "E_sad": Es, "c_race_identity": c_race_ident},
        derivation="c_end - E_sad expanded against f(w0) - (E_sad - Δ); the Lambert inverse at c = E_sad - Δ.")


@derivation
def lemma_c() -> Result:
    r"""Lemma C (comparison, elementary). Along the lines y y' = 8ay + 4, so d(y^2)/da = 8 + 16ay. Let
    0 < y0 <= Y, a0 >= a_lo, m >= 0 with 16mY < 8 and a_lo - D > -m, D := Y^2/(8 - 16mY) (solved from
    y0^2 <= Y^2 = (8 - 16mY) d at the worst rate). While a > -m and y <= Y, d(y^2)/da >= 8 - 16mY > 0, so y^2
    reaches 0 before a drops by D: the line reaches the axis (so (e0, a0) ∈ R), 1 + 2ay >= 1 - 2mY > 0 on
    the way (below N, off C), and with d = a0 - a_inf: y0^2/(8 + 16 a0⁺ y0) <= d <= D and
    Δ = y0 - 4 a0 d + 2d^2 <= Dbar := Y + 2D^2 + 4 max(0, -a_lo) D (each of the three gaps nonnegative,
    checked with nonnegative parameters). w_c increases with Δ (dw_c/dΔ = -1/f'(w_c) > 0 on B_mid)."""
    ar = airy_reduction()
    Xa, Xy = ar["X"]
    dy2_da = sp.cancel(2 * y * Xy / Xa)
    dd = sp.Symbol("dd", positive=True)
    Dsol = sp.solve(Y**2 - (8 - 16 * m_ * Y) * dd, dd)
    if len(Dsol) != 1:
        raise AssertionError("D is not unique")
    D = Dsol[0]
    Delta_d = sp.expand(race()["Delta"].subs({e: sp.sqrt(y0), a: a0, a_inf: a0 - d_}))
    Dbar = Y + 2 * D**2 + 4 * sp.Max(0, -a_lo) * D
    lower = y0**2 / (8 + 16 * sp.Max(0, a0) * y0)
    # the three gaps of Dbar - Δ (with D symbolic as DD >= d), written with nonnegative parameters
    g1, g2, g3, A1 = sp.symbols("g1 g2 g3 A1", nonnegative=True)
    DD = sp.Symbol("DD", nonnegative=True)
    gap_y = (Y - y0).subs(y0, Y - g1)                       # y0 <= Y
    gap_d = sp.expand((2 * DD**2 - 2 * d_**2).subs(DD, d_ + g2).subs(d_, g3))   # 0 <= d <= DD
    # the a-gap 4 max(0, -a_lo) D - (-4 a0 d): a_lo = -A1 < 0, a0 = -A1 + g1, D = d + g2; a_lo >= 0: a0 = g1 >= 0
    gap_a_neg = sp.expand((4 * A1 * DD + 4 * a0 * d_).subs({DD: d_ + g2, a0: -A1 + g1}).subs(d_, g3))
    gap_a_pos = sp.expand((0 + 4 * a0 * d_).subs({a0: g1, d_: g3}))
    checks = {"dy2_da": sp.expand(dy2_da - (8 + 16 * a * y)) == 0,
              "Delta_in_d": sp.expand(Delta_d - (y0 - 4 * a0 * d_ + 2 * d_**2)) == 0,
              "gap_y": bool(gap_y.is_nonnegative), "gap_d": bool(gap_d.is_nonnegative),
              "gap_a_neg": bool(gap_a_neg.is_nonnegative), "gap_a_pos": bool(gap_a_pos.is_nonnegative),
              "rate_floor": sp.expand((8 + 16 * a * Y).subs(a, -m_) - (8 - 16 * m_ * Y)) == 0}
    ew = _energy.energy_on_w_axis()
    mono = sp.factor(ew["df_right_of_w_sad"])
    checks["w_c_increasing_in_Delta"] = bool(mono.is_negative)
    if not all(checks.values()):
        raise AssertionError(f"Lemma C fails: {[k for k, v in checks.items() if not v]}")
    return Result(
        ref="Thm 11 (precise; our result)", title="Lemma C: comparison bounds for a_inf and Δ",
        assumptions=("0 < y0 <= Y", "a0 >= a_lo", "m >= 0, 16 m Y < 8, a_lo - D > -m"),
        expressions={"dy2_da": dy2_da, "D": D, "Dbar": Dbar, "lower_bound_d": lower, "Delta_in_d": Delta_d,
                     "hypothesis_rate": 8 - 16 * m_ * Y, "hypothesis_reach": a_lo - D + m_,
                     "gaps": {"y": gap_y, "d": gap_d, "a_lo<0": gap_a_neg, "a_lo>=0": gap_a_pos}, "checks": checks},
        derivation="d(y^2)/da from the Abel field; D solved from the worst rate; Δ in d = a0 - a_inf expanded; "
                   "the gaps of Dbar - Δ expanded with nonnegative parameters.")


# ---------------------------------------------------------------------------------------------
# the proof of Theorems A, B, C: derived facts, the limit rule, the stated sets
# ---------------------------------------------------------------------------------------------

@derivation
def r3_facts() -> Result:
    r"""The derived facts the limit of every flow in R^3 rests on (each an exact SymPy result):

    * A = U V; V = 1 + 2w|w| with the signs of `basins.contour_facts` on the pieces of the w-line, f' and
      E_sad - f there (Lemma 12), f(0+) = +oo (w > 0 never reaches 0 while f stays finite);
    * the flow: dλ/dt = -G'V, w' = -4G'U|w|, df/dt = 4G'UV, dU/dt = -G'V|∇U|^2, dh/dλ = 4U; G' has the sign of
      A - A* (G strictly convex, G'(A*) = 0) and sign A* = sign(1 - p - q) = -ϱ; every critical point off Θ*
      has A = 0;
    * the lines: dz/dλ < 0; at a pole of φ (ℓ -> ±oo at fixed z) U -> ±oo and h -> +oo; at the axis h = -2a_inf^2;
      the nullcline N lies below C for a < 0 (U = -1/(4a) > 0 on N) and along lines dy/da = 4(1 + 2ay)/y;
    * on S (descending, z -> oo): a -> -oo, y -> 0, h -> -oo (y decreases with a below N: dy/da > 0, and z -> oo).
    """
    fs, ar, sp_ = flow_structure(), airy_reduction(), separatrix()
    U, V = _U_V()
    cf = contour_facts().expressions
    ew = _energy.energy_on_w_axis()
    same_V = sp.expand(V - cf["V"]) == 0
    Uzl = ar["U_zl"]
    lim = {"U(ell->+oo)": sp.limit(Uzl, ell, sp.oo), "U(ell->-oo)": sp.limit(Uzl, ell, -sp.oo),
           "h(ell->+oo)": sp.limit(ar["h_zl"], ell, sp.oo), "h(ell->-oo)": sp.limit(ar["h_zl"], ell, -sp.oo)}
    aneg = sp.Symbol("b", positive=True)            # a = -b < 0
    U_on_N = sp.simplify(U.subs(e, sp.sqrt(-1 / (2 * a))).subs(a, -aneg))
    y_N_minus_y_C = sp.simplify((-1 / (2 * a) - (-1 / a)).subs(a, -aneg))
    dy_da = sp.cancel(ar["X"][1] / ar["X"][0])
    # on S, descending: h = 2^(-1/3)(2^(-2/3) y - z) with y bounded (decreasing as a decreases below N) and
    # z -> +oo: h -> -oo; the limit taken with y a bounded positive symbol
    yb = sp.Symbol("y_b", positive=True)
    h_S_end = sp.limit(ar["h_zl"].subs(ell, sp.sqrt(z + yb / TWO13**2)), z, sp.oo)
    crit = [sp.simplify(x) for x in fs["A_on_critical_families"]]
    facts = {
        "A_is_UV": sp.expand(U * V - canonical_model(True).A) == 0, "V_same_as_R2": same_V,
        "V_sign": cf["V_sign"], "f_sign": cf["f_sign"], "E_sad_minus_f_sign": cf["E_sad_minus_f_sign"],
        "E_sad_minus_f_at_w_sad": cf["E_sad_minus_f_at_w_sad"], "f(0+)": ew["f(0+)"],
        "dlambda_dt": fs["dlambda_dt"], "w_dot": fs["w_dot"], "df_dt": fs["df_dt"], "dU_dt": fs["dU_dt"],
        "dh_dlambda": fs["dh_dlambda"], "G_sign_rule": fs["G_convex_and_G1_at_A_star_zero"],
        "A_star_sign_is_minus_regime": sp.expand(fs["A_star_numerator_minus_denominator"] - (1 - sp.Symbol("p", positive=True)
                                                                                          - sp.Symbol("q", positive=True))) == 0,
        "critical_off_star_have_A_zero": all(x == 0 for x in crit),
        "dz_dlambda_over_y": sp.cancel(ar["dz_dlambda"].subs(e, sp.sqrt(y)) / y), "limits": lim,
        "axis_h": ar["axis_h"], "U_on_N_for_a<0": U_on_N, "yN_minus_yC_for_a<0": y_N_minus_y_C,
        "dy_da": dy_da, "h_on_S_end": h_S_end, "S_a_end": -sp.oo,
    }
    return Result(
        ref="Thms A, B, C (proof; our result)", title="Facts behind the limit of every flow in R^3",
        assumptions=("(p, q) in (0,1)^2, p + q != 1", "theta_0 in R^3"),
        expressions=facts,
        derivation="signs and limits from the derived U, V, f, h, the flow identities and the Airy coordinates.")


@dataclass(frozen=True)
class Datum:
    """The sign datum of a start that decides its limit (Thms A, B, C).

    e0 = 0 or not (the flow depends on e only through e^2); U = sign U(e0, a0); S_side = sign(e0^2 - y_S(a0))
    (< 0: the descending line reaches the axis, 0: it is S, > 0: it crosses C; G2, G3); w_side the piece of
    the w-line (`basins.W_SIDES`); race = sign(c_end - E_sad) = sign(f(w0) - (E_sad - Δ)) for starts with
    S_side < 0 and w0 < 0; c_race = sign(E0 - h_C - E_sad) for starts whose race line crosses C and w0 < 0."""

    e_zero: bool
    U: int
    S_side: int
    w_side: str
    race: int | None = None
    c_race: int | None = None


def sign_data() -> list[Datum]:
    """Every sign datum: e0 = 0 (U = 0) with each w piece; e0 != 0 with U > 0 (S_side any; race / c_race where
    defined), U = 0 (on C: above S, since N lies below C) and U < 0 (above N, so above S)."""
    out = [Datum(True, 0, 0, ws) for ws in W_SIDES]
    neg = ("(w_sad,0)", "(-inf,w_sad)")
    for U in (1, 0, -1):
        sides = (-1, 0, 1) if U > 0 else (1,)
        for S in sides:
            for ws in W_SIDES:
                if ws in neg and U != 0 and S != 0:
                    for r in (-1, 0, 1):
                        out.append(Datum(False, U, S, ws, race=r if S < 0 else None, c_race=r if S > 0 else None))
                else:
                    out.append(Datum(False, U, S, ws))
    return out


def limit_rule_r3(regime: int, d: Datum, facts: dict | None = None) -> str:
    r"""The class of the limit of the flow from a start with sign datum d (regime ϱ = sign(p+q-1)), by the
    proof of Thms A, B, C, consulting only the derived `r3_facts` (pass `facts` to try other facts).

    Returns global_min, local_min, local_max, saddle, station or unbounded. Raises ValueError if the facts
    do not decide a case (a gap in the argument, never a guess)."""
    F = facts if facts is not None else r3_facts().expressions
    Vs, fs = F["V_sign"], F["f_sign"]
    if not (F["A_is_UV"] and F["V_same_as_R2"] and F["G_sign_rule"] and F["A_star_sign_is_minus_regime"]):
        raise ValueError("A = U V, the sign rule of G' or the sign of A* is not established")

    def sgn(x):
        return 1 if x > 0 else (-1 if x < 0 else 0)

    if d.e_zero:                         # the plane e = 0 is critical: the start is its own limit
        v = Vs[d.w_side]
        return "saddle" if v == 0 else ("local_min" if regime * v > 0 else "local_max")
    V = Vs[d.w_side]
    if d.U == 0 and V == 0:
        return "station"                 # Θ_station is critical
    sA = d.U * V
    if sA != regime:
        # A0 on the side of A* (or A0 = 0 at a regular point): A moves strictly monotonically towards A* and
        # never returns to 0; the trajectory is bounded (Thm C (i)) and its limit is critical with A != 0:
        # Θ*, the only such set
        if not (F["critical_off_star_have_A_zero"] and _bounded_phase(F)):
            raise ValueError("the good phase is not shown to end on Θ*")
        return "global_min"
    # bad phase: sign G' = sign(A0 - A*) = ϱ, so dλ/dt has the sign of -ϱ V and f(w(t)) increases
    G1 = regime
    U_expr, V_expr = _U_V()
    if sp.expand(F["dlambda_dt"] + Gp * V_expr) != 0 or sp.expand(F["df_dt"] - 4 * Gp * U_expr * V_expr) != 0:
        raise ValueError("dλ/dt is not -G'V or df/dt is not 4G'UV")
    lam_dot = -G1 * V
    f_dot = G1 * d.U * V                 # sign of df/dt = 4 G' U V
    if f_dot <= 0:
        raise ValueError("f does not increase in the bad phase")
    neg = d.w_side in ("(w_sad,0)", "(-inf,w_sad)")
    # w never crosses 0: on w > 0 f -> +oo at 0+ while f(w(t)) = E0 - h stays finite; w = 0 is invariant
    if d.w_side == "w>0" and F["f(0+)"] != sp.oo:
        raise ValueError("w > 0 is not shown to stay positive")
    if d.U > 0:
        if lam_dot >= 0:
            raise ValueError("a bad start with U > 0 does not descend U")
        if d.S_side < 0:                  # the line reaches the axis; R lies in U > 0 (below N): no C event
            if not (F["U_on_N_for_a<0"].is_positive and F["yN_minus_yC_for_a<0"].is_negative):
                raise ValueError("R is not shown to lie below C")
            if not neg:
                return "local_min"       # V > 0 never vanishes: the limit is (0, w_lim, a_inf)
            if not (F["E_sad_minus_f_sign"][d.w_side] > 0 and F["E_sad_minus_f_at_w_sad"] == 0 and fs[d.w_side] != 0):
                raise ValueError("f does not rise to E_sad only at w_sad")
            if d.race is None:
                raise ValueError("the race datum is missing")
            return {-1: "local_min", 0: "saddle", 1: "global_min"}[d.race]
        if d.S_side == 0:                 # the separatrix: descending end a -> -oo, h -> -oo
            if F["h_on_S_end"] != -sp.oo or F["S_a_end"] != -sp.oo:
                raise ValueError("the end of S is not shown")
            if not neg and d.w_side != "w_sad":
                # no event (V > 0 on w >= 0), no stall (no critical point with U, V != 0), so λ -> -oo: unbounded
                if not F["critical_off_star_have_A_zero"]:
                    raise ValueError("a stall is not excluded")
                return "unbounded"
            return "global_min"          # h -> -oo forces f = E0 - h past E_sad: V = 0, then the good phase
        # the descending line crosses C (U -> -oo at its pole first)
        if F["limits"]["U(ell->-oo)"] != -sp.oo:
            raise ValueError("the descending line is not shown to cross C")
        return _c_race(d, neg)
    # U < 0, bad: the motion ascends U (lam_dot > 0) and the line crosses C before its pole (U -> +oo there)
    if lam_dot <= 0 or F["limits"]["U(ell->+oo)"] != sp.oo:
        raise ValueError("a bad start with U < 0 is not shown to reach C")
    return _c_race(d, neg)


def _c_race(d: Datum, neg: bool) -> str:
    """U -> 0 at C races V -> 0: with w0 >= 0 V cannot vanish (global); else the tie is a station."""
    if not neg:
        return "global_min"
    if d.c_race is None:
        raise ValueError("the C-race datum is missing")
    return "station" if d.c_race == 0 else "global_min"


def _bounded_phase(F) -> bool:
    """Thm C (i) in one phase: an unbounded ascending end has U -> +oo (|V| = |A|/U -> 0, f -> E_sad) while
    h -> +oo (f = E0 - h -> -oo): impossible; a descending end in U < 0 has U -> -oo, h -> +oo: the same;
    the descending end S needs f -> +oo, i.e. w -> 0+, which is 𝒰 (a bad phase)."""
    L = F["limits"]
    return (L["U(ell->+oo)"] == sp.oo and L["h(ell->+oo)"] == sp.oo and L["U(ell->-oo)"] == -sp.oo
            and L["h(ell->-oo)"] == sp.oo and F["E_sad_minus_f_at_w_sad"] == 0)


#: Theorems A (p+q > 1) and B (p+q < 1) as stated: (class, pieces), first match wins, "otherwise" last.
#: Atoms: ("e", op), ("U", op), ("S", op) = e^2 - y_S(a), ("w", op), ("w-w_sad", op), ("w-w_c", op),
#: ("w-w_c'", op), ("w_st", branch) (w = w_st on that branch), ("station",) (Θ_station).
THEOREM_A = (
    ("unbounded", ((("e", "!=0"), ("S", "==0"), ("w", ">=0")),)),
    ("local_min", ((("e", "!=0"), ("S", "<0"), ("w-w_c", ">0")), (("e", "==0"), ("w-w_sad", ">0")))),
    ("saddle", ((("e", "!=0"), ("S", "<0"), ("w-w_c", "==0")), (("e", "==0"), ("w-w_sad", "==0")))),
    ("station", ((("U", ">0"), ("S", ">0"), ("w_st", "mid")), (("U", "<0"), ("w_st", "low")), (("station",),))),
    ("local_max", ((("e", "==0"), ("w-w_sad", "<0")),)),
    ("global_min", None),
)
THEOREM_B = (
    ("local_min", ((("e", "!=0"), ("S", "<0"), ("w-w_c'", "<0")), (("e", "==0"), ("w-w_sad", "<0")))),
    ("saddle", ((("e", "!=0"), ("S", "<0"), ("w-w_c'", "==0")), (("e", "==0"), ("w-w_sad", "==0")))),
    ("station", ((("U", ">0"), ("S", ">0"), ("w_st", "low")), (("U", "<0"), ("w_st", "mid")), (("station",),))),
    ("local_max", ((("e", "==0"), ("w-w_sad", ">0")),)),
    ("global_min", None),
)


def theorem_sets(regime: int):
    """The stated basins: Theorem A for regime +1, Theorem B for -1."""
    return THEOREM_A if regime > 0 else THEOREM_B


_OPS = {"<0": lambda s: s < 0, ">0": lambda s: s > 0, "==0": lambda s: s == 0, "!=0": lambda s: s != 0,
        "<=0": lambda s: s <= 0, ">=0": lambda s: s >= 0}
_W_SIGN = {"w>0": 1, "w=0": 0, "(w_sad,0)": -1, "w_sad": -1, "(-inf,w_sad)": -1}
_SAD_SIGN = {"w>0": 1, "w=0": 1, "(w_sad,0)": 1, "w_sad": 0, "(-inf,w_sad)": -1}
_BRANCH = {"mid": "(w_sad,0)", "low": "(-inf,w_sad)"}


def _atom(atom, d: Datum, facts):
    """The sign of an atom of the stated sets on the datum d (None: undefined there). "w - w_c" is read off
    the race through the monotonicity of f on the branch of w_c (f(w_c) = E_sad - Δ < E_sad, Δ > 0 on R)."""
    name = atom[0]
    if name == "e":
        return 0 if d.e_zero else 1
    if name == "U":
        return d.U
    if name == "S":
        return None if d.e_zero else d.S_side
    if name == "w":
        return _W_SIGN[d.w_side]
    if name == "w-w_sad":
        return _SAD_SIGN[d.w_side]
    if name in ("w-w_c", "w-w_c'"):
        branch = "(w_sad,0)" if name == "w-w_c" else "(-inf,w_sad)"
        if d.e_zero or d.S_side >= 0:
            return None
        if d.w_side == branch:
            return facts["f_sign"][branch] * d.race          # f monotone there: sign(w0 - w_c) = sign f' * race
        order = list(W_SIDES)                                 # pieces from right to left
        return 1 if order.index(d.w_side) < order.index(branch) else -1
    if name == "w_st":
        return d.w_side == _BRANCH[atom[1]] and d.c_race == 0
    if name == "station":
        return (not d.e_zero) and d.U == 0 and d.w_side == "w_sad"
    raise ValueError(f"unknown atom {atom}")


def set_class_r3(regime: int, d: Datum, sets=None, facts: dict | None = None) -> str:
    """The class the stated sets (Theorem A / B, or `sets`) give to a start with the sign datum d."""
    F = facts if facts is not None else r3_facts().expressions
    for cls, pieces in (sets if sets is not None else theorem_sets(regime)):
        if pieces is None:
            return cls
        for pc in pieces:
            ok = True
            for atom in pc:
                v = _atom(atom, d, F)
                if isinstance(v, bool):
                    ok = v
                elif v is None or not _OPS[atom[1]](v):
                    ok = False
                if not ok:
                    break
            if ok:
                return cls
    raise AssertionError("the sets do not cover R^3")


def in_script_U(regime: int, d: Datum) -> bool:
    """θ_0 ∈ 𝒰 = S × [0, oo) (p+q > 1 only): e0 != 0 on the separatrix with w0 >= 0."""
    return regime > 0 and not d.e_zero and d.S_side == 0 and _W_SIGN[d.w_side] >= 0


# ---------------------------------------------------------------------------------------------
# the trichotomy of the descending line (Prop. 3) and the graph form of R (G3)
# ---------------------------------------------------------------------------------------------

#: the classical Airy facts the trichotomy uses (certified / cited by the claim `r3.airy_facts`)
AIRY_FACTS = ("Ai>0 on (a1,oo)", "Bi(a1)<0", "Bi/Ai->oo", "q_S->0", "Bi'^2-zBi^2->-oo")

#: the trichotomy as stated: (z0 > a_1, sign β) -> fate of the descending line
TRICHOTOMY = {(True, 1): "axis", (True, 0): "S", (True, -1): "C",
              (False, 1): "C", (False, 0): "C", (False, -1): "C"}


def fate_rule(z0_right_of_a1: bool, beta_sign: int, airy: dict, facts: dict | None = None) -> str:
    r"""The fate of the descending line (z increasing) from (z0, ℓ0), e0 != 0, by the argument of Prop. 3
    (NOTE G2), from the derived identities (`linearisation`: (φ/Ai)' = βW/Ai^2 with W = 1/π > 0, q' = -φ^2,
    y φ^2 = 2^(2/3) q, so q(z0) > 0 and q(z_p) = φ'(z_p)^2 > 0 at a zero z_p of φ) and the Airy facts `airy`
    (keys AIRY_FACTS, True when established). "axis": q has a root before any zero of φ; "S": φ ∝ Ai
    stays positive with q > 0 for all z > z0; "C": φ has a zero first (ℓ -> -oo, a pole: the line
    leaves through U -> -oo, crossing C). Raises ValueError when a needed fact is missing."""
    li = (facts or linearisation().expressions)["checks"]
    need = ("phi_over_Ai", "q_prime", "y_phi2", "W_prime", "W_at_0")
    if not all(li.get(k) for k in need):
        raise ValueError("the linearisation identities are not established")

    def has(*keys):
        if not all(airy.get(k) for k in keys):
            raise ValueError(f"Airy facts missing: {[k for k in keys if not airy.get(k)]}")

    if z0_right_of_a1:
        has("Ai>0 on (a1,oo)")
        if beta_sign > 0:
            # φ/Ai increases from 1/Ai(z0) > 0: φ > 0 on [z0, oo); φ ~ βBi so q -> -oo: q (decreasing) has a root
            has("Bi'^2-zBi^2->-oo")
            return "axis"
        if beta_sign == 0:
            has("q_S->0")               # q_S decreases to 0, so q_S > 0: y > 0 for all z, never the axis
            return "S"
        has("Bi/Ai->oo")                # φ/Ai decreases to -oo: a first zero, before any root of q
        return "C"
    # z0 <= a_1: φ(a_1) = βBi(a_1) has the sign of -β (or β = 0 and a_1 is a zero), φ/Ai -> sign(β) oo on
    # (a_1, oo): a zero of φ in [z0, oo) in every case, reached while q > 0
    has("Bi(a1)<0", "Bi/Ai->oo")
    return "C"


def S_side_rule(z0_right_of_a1: bool, beta_sign: int, airy: dict, facts: dict | None = None) -> int:
    r"""sign(e0^2 - y_S(a0)) from (z0 > a_1, sign β), by G3: for z > a_1, β = π Ai(z)(ℓ - ℓ_S(z)) with Ai > 0,
    and ℓ_S' = -q_S/Ai^2 < 0 (q_S' = -Ai^2, q_S -> 0: q_S > 0), so at fixed a (fixed ℓ) β > 0 iff z > z_S(ℓ)
    iff y < y_S(a) (z decreases as y increases); z0 <= a_1 < z_S lies above S."""
    F = facts or separatrix().expressions
    if not (F["checks"]["slope"] and F["checks"]["qS_prime"] and airy.get("q_S->0") and airy.get("Ai>0 on (a1,oo)")):
        raise ValueError("the monotonicity of ℓ_S is not established")
    beta_factored = sp.factor(F["beta_zl"] / sp.airyai(z))
    if sp.cancel(beta_factored - sp.pi * (ell - F["ell_S"])) != 0:
        raise ValueError("β is not π Ai (ℓ - ℓ_S)")
    if not z0_right_of_a1:
        return 1
    return -beta_sign
