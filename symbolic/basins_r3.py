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
# the Airy functions beyond a compact part: DLMF's asymptotic expansions with their error bounds
# ---------------------------------------------------------------------------------------------

#: the tail z >= Z_TAIL is covered by the bounds of `airy_tail` (DLMF §9.7(iv)); arb covers [a_1, Z_TAIL]
Z_TAIL = sp.Integer(1)
#: the references the tail rests on (cited steps of `r3.airy_facts`)
DLMF_AIRY = {
    "expansions": "DLMF 9.7.1-9.7.3, 9.7.5-9.7.7",
    "bounds": "DLMF §9.7(iv)",
}


def _dlmf_u(k: int) -> sp.Rational:
    """u_k of DLMF 9.7.2: (2k+1)(2k+3)...(6k-1)/(216^k k!), u_0 = 1."""
    return sp.Mul(*range(2 * k + 1, 6 * k, 2)) / (sp.Integer(216) ** k * sp.factorial(k)) if k else sp.Integer(1)


def _dlmf_v(k: int) -> sp.Rational:
    """v_k of DLMF 9.7.2: (6k+1)/(1-6k) u_k, v_0 = 1."""
    return sp.Rational(6 * k + 1, 1 - 6 * k) * _dlmf_u(k) if k else sp.Integer(1)


def _dlmf_chi(n: int) -> sp.Expr:
    """χ(n) of DLMF 9.7.3: π^(1/2) Γ(n/2 + 1)/Γ(n/2 + 1/2)."""
    return sp.simplify(sp.sqrt(sp.pi) * sp.gamma(sp.Rational(n, 2) + 1) / sp.gamma(sp.Rational(n, 2) + sp.Rational(1, 2)))


def positive_on_ray(expr, s, start) -> bool:
    """expr > 0 for every s >= start, decided exactly: with s = start + t (t >= 0) the numerator and the
    denominator of expr (together) are polynomials in t with nonnegative coefficients and positive constant terms."""
    t = sp.Symbol("t_", nonnegative=True)
    num, den = sp.fraction(sp.together(sp.sympify(expr).subs(s, start + t)))
    out = []
    for part in (num, den):
        try:
            P = sp.Poly(sp.expand(part), t)
        except sp.PolynomialError:
            return False
        cs = P.all_coeffs()
        out.append(all(c.is_nonnegative for c in cs) and bool(P.eval(0).is_positive))
    return all(out)


@derivation
def airy_tail() -> Result:
    r"""Ai, Ai' and Bi on z >= Z_TAIL from the expansions DLMF 9.7.5-9.7.7 truncated after their first term and the
    error bounds of DLMF §9.7(iv) (for real z > 0: the remainder of 9.7.5 after n >= 0 terms, and of 9.7.6 after
    n >= 1 terms, is bounded in magnitude by the first neglected term and has its sign; the remainder of 9.7.7
    after n >= 1 terms is bounded in magnitude by the first neglected term times 2χ(n) exp(5π/(72ζ))). With
    ζ = 2z^(3/2)/3 (9.7.1) and u_1, v_1, χ(1) computed from 9.7.2, 9.7.3 (z = s^2, s >= 1):

    e^-ζ/(2√π z^(1/4)) (1 - u_1/ζ) <= Ai(z) <= e^-ζ/(2√π z^(1/4)),
    z^(1/4) e^-ζ/(2√π) <= -Ai'(z) <= z^(1/4) e^-ζ/(2√π) (1 - v_1/ζ),
    Bi(z) >= e^ζ/(√π z^(1/4)) (1 - ρ(ζ)), ρ(ζ) = 2χ(1) e^(5π/(72ζ)) u_1/ζ.

    Consequences derived here, exactly: 1 - u_1/ζ > 0 on the tail (so Ai > 0); ρ decreases in ζ (so 1 - ρ > 0 on the
    tail once ρ(ζ(Z_TAIL)) < 1, an arb comparison left to the caller); Bi/Ai >= 2e^(2ζ)(1 - ρ) -> oo; |q_S| =
    |Ai'^2 - zAi^2| <= Ai'^2 + zAi^2 <= z^(1/2) e^(-2ζ) ((1 - v_1/ζ)^2 + 1)/(4π) -> 0; Ai'/Ai <= -z^(1/2) -> -oo;
    the lower bound L(z) of Bi increases on the tail, and (Bi'^2 - zBi^2)' = -Bi^2, so Bi'^2 - zBi^2 <=
    Q_1 - (z - Z_TAIL) L_1^2 -> -oo with Q_1, L_1 > 0 its value and L at Z_TAIL."""
    s = sp.Symbol("s", positive=True)
    zz = s**2
    zeta = 2 * s**3 / 3
    u1, v1, chi1 = _dlmf_u(1), _dlmf_v(1), _dlmf_chi(1)
    zt = sp.Symbol("zeta", positive=True)
    rho_zt = 2 * chi1 * sp.exp(5 * sp.pi / (72 * zt)) * u1 / zt
    rho = rho_zt.subs(zt, zeta)
    pref_A = sp.exp(-zeta) / (2 * sp.sqrt(sp.pi) * sp.sqrt(s))
    pref_Ap = sp.sqrt(s) * sp.exp(-zeta) / (2 * sp.sqrt(sp.pi))
    pref_B = sp.exp(zeta) / (sp.sqrt(sp.pi) * sp.sqrt(s))
    Ai_lo_factor = 1 - u1 / zeta
    Aip_hi_factor = 1 - v1 / zeta                     # v_1 < 0: the bracket of -Ai' lies in [1, 1 - v_1/ζ]
    ratio_lo = sp.simplify(pref_B * (1 - rho) / pref_A)
    qS_bound = sp.simplify(pref_Ap**2 * Aip_hi_factor**2 + zz * pref_A**2)
    log_ratio_hi = sp.simplify(-pref_Ap / pref_A)
    L = pref_B * (1 - rho)
    dlogpref_B = sp.diff(sp.expand_log(sp.log(pref_B), force=True), s)
    Q1, L1 = sp.Symbol("Q_1", real=True), sp.Symbol("L_1", positive=True)
    QB_bound = Q1 - (zz - Z_TAIL) * L1**2
    zs = sp.Symbol("z", real=True)
    QB = sp.airybiprime(zs) ** 2 - zs * sp.airybi(zs) ** 2
    checks = {
        "u1": u1 == sp.Rational(5, 72), "v1": v1 == -sp.Rational(7, 72), "chi1": sp.simplify(chi1 - sp.pi / 2) == 0,
        "Ai_tail_positive": positive_on_ray(Ai_lo_factor, s, sp.sqrt(Z_TAIL)),
        "rho_decreasing": bool(sp.diff(rho_zt, zt).is_negative),
        "pref_B_increasing": positive_on_ray(dlogpref_B, s, sp.sqrt(Z_TAIL)),
        "ratio_to_oo": sp.limit(ratio_lo, s, sp.oo) == sp.oo,
        "qS_to_0": sp.limit(qS_bound, s, sp.oo) == 0,
        "log_derivative_to_-oo": sp.limit(log_ratio_hi, s, sp.oo) == -sp.oo,
        "QB_to_-oo": sp.limit(QB_bound, s, sp.oo) == -sp.oo,
        "QB_prime": is_zero(sp.diff(QB, zs) + sp.airybi(zs) ** 2),
    }
    return Result(
        ref="Sec. 4.1 (R^3 basins, our result)", title="Ai, Ai', Bi beyond Z_TAIL (DLMF 9.7.5-9.7.7, §9.7(iv))",
        assumptions=(f"z >= {Z_TAIL} (s = sqrt(z) >= {sp.sqrt(Z_TAIL)})",),
        expressions={"s": s, "zeta": zeta, "u1": u1, "v1": v1, "chi1": chi1, "rho": rho, "rho_of_zeta": rho_zt,
                     "zeta_symbol": zt, "rho_at_tail": rho.subs(s, sp.sqrt(Z_TAIL)),
                     "Ai_upper": pref_A, "Ai_lower": pref_A * Ai_lo_factor, "Ai_lower_factor": Ai_lo_factor,
                     "minus_Aip_lower": pref_Ap, "minus_Aip_upper": pref_Ap * Aip_hi_factor, "Bi_lower": L,
                     "Bi_lower_at_tail": L.subs(s, sp.sqrt(Z_TAIL)), "ratio_lower": ratio_lo, "qS_bound": qS_bound,
                     "log_derivative_upper": log_ratio_hi, "QB_bound": QB_bound, "Q_1": Q1, "L_1": L1,
                     "dlog_Bi_prefactor_ds": dlogpref_B, "checks": checks},
        derivation="u_1, v_1, χ(1) from DLMF 9.7.2-9.7.3; the bounds of §9.7(iv) with n = 1; signs on the ray by "
                   "polynomials in s - 1 with nonnegative coefficients; limits by SymPy.")


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


#: Lemma C's parameters with the signs its hypotheses give them (Y > 0, m >= 0): the derivation decides signs
#: with these, and returns its expressions in the real symbols Y, m (those `prob_r3` evaluates)
_Y_POS, _M_NONNEG = sp.Symbol("Y", positive=True), sp.Symbol("m", nonnegative=True)
_D_POS = sp.Symbol("D", positive=True)        # the drop of a bound of Lemma C, as a symbol


def _slack(box) -> dict:
    """Each variable of the box [(v, lo, hi), ...] as lo + g (g >= 0) where lo is finite, else hi - g, and an
    upper end that is a symbol (Y, D) as lo + g + h (h >= 0): the points of the box are the nonnegative values of
    the slack symbols g, h."""
    out = {}
    for k, (v, lo, hi) in enumerate(box):
        g = sp.Symbol(f"g_{k}", nonnegative=True)
        if lo == -sp.oo:
            out[v] = hi - g
            continue
        out[v] = lo + g
        if isinstance(hi, sp.Symbol):
            out[hi] = lo + g + sp.Symbol(f"h_{k}", nonnegative=True)
    return out


def nonneg_on_box(expr, box) -> bool:
    """expr >= 0 on the box, decided exactly: in the slack symbols (`_slack`) its expansion is a polynomial
    whose coefficients are all nonnegative (SymPy's is_nonnegative on the expanded sum). False means not shown."""
    ex = sp.expand(sp.sympify(expr).xreplace(_slack(box)))
    return ex == 0 or bool(ex.is_nonnegative)


def _sign_on_box(expr, box) -> int | None:
    """+1 if expr >= 0 on the box, -1 if <= 0 (both: 0), None if neither is shown (`nonneg_on_box`)."""
    up, down = nonneg_on_box(expr, box), nonneg_on_box(-expr, box)
    return 0 if up and down else (1 if up else (-1 if down else None))


def _max0(expr):
    """max(0, expr) with the positive factors of expr taken out: max(0, -4 D a) = 4 D max(0, -a)."""
    c, rest = sp.factor(expr).as_coeff_Mul()
    pos = [f for f in sp.Mul.make_args(rest) if f.is_positive]
    other = sp.Mul(*[f for f in sp.Mul.make_args(rest) if not f.is_positive])
    return abs(c) * sp.Mul(*pos) * sp.Max(0, sp.sign(c) * other)


def box_extremum(expr, box, sense: str):
    """The supremum (sense "max") or infimum ("min") of expr over the box [(v, lo, hi), ...], derived one
    variable at a time in the order given: where the partial derivative has a sign on the box (`_sign_on_box`,
    over all the variables not yet fixed) the extremum lies at the corresponding end (an infinite end is refused);
    where it has none and expr is linear in the variable, it is the larger (smaller) of the two end values.
    Returns (the extremum, the ends chosen); raises ValueError where neither applies."""
    want = 1 if sense == "max" else -1
    ex, chosen = sp.sympify(expr), []
    for i, (v, lo, hi) in enumerate(box):
        rest = box[i:]
        s = _sign_on_box(sp.diff(ex, v), rest)
        if s is not None:
            end = hi if s * want >= 0 else lo
            if end in (sp.oo, -sp.oo):
                raise ValueError(f"the extremum in {v} is at an infinite end")
            ex, chosen = ex.subs(v, end), chosen + [(v, end)]
        elif sp.diff(ex, v, 2) == 0 and lo not in (sp.oo, -sp.oo) and hi not in (sp.oo, -sp.oo):
            at_lo, at_hi = ex.subs(v, lo), ex.subs(v, hi)
            if at_lo == 0 and want > 0:
                ex = _max0(at_hi)
            else:
                ex = sp.Max(at_lo, at_hi) if want > 0 else sp.Min(at_lo, at_hi)
            chosen.append((v, "both ends"))
        else:
            raise ValueError(f"no sign of d/d{v} on the box and not linear in {v}")
    return ex, tuple(chosen)


def _max_cases(expr):
    """The cases that resolve every max(0, c x) of expr (x one symbol): x = A and x = -A with A >= 0, as
    (label, substitution, expr substituted)."""
    atoms = sorted(expr.atoms(sp.Max), key=sp.default_sort_key)
    cases = [("", {})]
    for k, mx in enumerate(atoms):
        inner = [x for x in mx.args if x != 0]
        syms = sp.sympify(inner[0]).free_symbols if len(inner) == 1 and len(mx.args) == 2 else set()
        if len(syms) != 1:
            raise ValueError(f"cannot split {mx}")
        (s,) = syms
        A = sp.Symbol(f"A_{k}", nonnegative=True)
        cases = [(f"{lab}{', ' if lab else ''}{s} >= 0", {**sub, s: A}) for lab, sub in cases] + \
                [(f"{lab}{', ' if lab else ''}{s} <= 0", {**sub, s: -A}) for lab, sub in cases]
    return [(lab, sub, sp.sympify(expr).subs(sub)) for lab, sub in cases]


def lemma_c_gaps(Dbar_in_D, Delta_in_d) -> list[tuple]:
    """Dbar - Δ >= 0 on the box of Lemma C, {0 < y0 <= Y, a0 >= a_lo, 0 <= d <= D}, decided on the expression
    given: per case of each max(0, ·) of Dbar (`_max_cases`), the gap in the slack symbols of the box must
    be a polynomial with nonnegative coefficients. Returns (case, gap as polynomial, shown >= 0, the gap at the
    corner y0 = Y, a0 = a_lo, d = D with the case's A = 0, D = 1: a negative number refutes the bound)."""
    gap = sp.sympify(Dbar_in_D) - sp.sympify(Delta_in_d)
    out = []
    for lab, sub, g in _max_cases(gap):
        box = [(y0, 0, _Y_POS), (a0, a_lo.subs(sub), sp.oo), (d_, 0, _D_POS)]
        g_ = g.subs({Y: _Y_POS})
        poly = sp.expand(g_.xreplace(_slack(box)))
        shown = poly == 0 or bool(poly.is_nonnegative)
        corner = g_.subs({y0: _Y_POS, a0: box[1][1], d_: _D_POS})
        corner = corner.subs({s: 0 for s in corner.free_symbols if s.name.startswith("A_")}).subs(_D_POS, 1)
        out.append((lab or "every a_lo", poly, shown, sp.simplify(corner)))
    return out


@derivation
def lemma_c() -> Result:
    r"""Lemma C (comparison), derived. Along the lines y y' = 8ay + 4, so d(y^2)/da = 8 + 16ay (from the Abel
    field). Its infimum over {a >= -m, 0 < y <= Y} (m >= 0, Y > 0) is derived by monotonicity
    (`box_extremum`): the worst rate 8 - 16mY. D solves Y^2 = (worst rate) D: at that rate y^2 <= Y^2 is used
    up before a drops by D, so (with a_lo - D > -m) the descending line from any (a0, y0) with 0 < y0 <= Y,
    a0 >= a_lo reaches the axis with d = a0 - a_inf in (0, D]. Δ (`race`) in d is y0 - 4 a0 d + 2d^2; Dbar is
    the sum over its terms of their suprema over {0 < y0 <= Y, a0 >= a_lo, 0 <= d <= D} (`box_extremum`), and
    Dbar - Δ >= 0 there is decided on that derived expression (`lemma_c_gaps`). w_c increases with Δ
    (dw_c/dΔ = -1/f'(w_c) > 0 on B_mid). Nothing here raises on a failed check: `checks` says what holds."""
    ar = airy_reduction()
    Xa, Xy = ar["X"]
    dy2_da = sp.cancel(2 * y * Xy / Xa)
    Yp, mp_ = _Y_POS, _M_NONNEG
    region = [(a, -mp_, sp.oo), (y, 0, Yp)]
    rate, rate_at = box_extremum(dy2_da, region, "min")
    rate_gap = dy2_da - rate                                     # >= 0 on the region
    dd = sp.Symbol("dd", positive=True)
    Dsol = sp.solve(Yp**2 - rate * dd, dd)
    # the unique solution, written as Y^2/(worst rate) (the form the statement prints)
    D = Yp**2 / rate if len(Dsol) == 1 and sp.cancel(Dsol[0] - Yp**2 / rate) == 0 else sp.nan
    Delta_d = sp.expand(race()["Delta"].subs({e: sp.sqrt(y0), a: a0, a_inf: a0 - d_}))
    box = [(y0, 0, Yp), (a0, a_lo, sp.oo), (d_, 0, _D_POS)]
    sups = []
    for term in sp.Add.make_args(Delta_d):
        used = [bx for bx in box if bx[0] in term.free_symbols]
        sups.append((term, box_extremum(term, used, "max")[0]))
    Dbar_in_D = sp.Add(*[s for _, s in sups])
    gaps = lemma_c_gaps(Dbar_in_D, Delta_d)
    back = {Yp: Y, mp_: m_}
    D_real = D.subs(back)
    Dbar = Dbar_in_D.subs(_D_POS, D).subs(back)
    lower = y0**2 / (8 + 16 * sp.Max(0, a0) * y0)
    ew = _energy.energy_on_w_axis()
    mono = sp.factor(ew["df_right_of_w_sad"])
    checks = {"dy2_da": sp.expand(dy2_da - (8 + 16 * a * y)) == 0,
              "rate_floor": nonneg_on_box(rate_gap, region),
              "D_unique": len(Dsol) == 1,
              "Dbar_bounds_Delta": all(shown for _, _, shown, _ in gaps),
              "w_c_increasing_in_Delta": bool(mono.is_negative)}
    return Result(
        ref="Thm 11 (precise; our result)", title="Lemma C: comparison bounds for a_inf and Δ",
        assumptions=("0 < y0 <= Y", "a0 >= a_lo", "m >= 0, 16 m Y < 8, a_lo - D > -m"),
        expressions={"dy2_da": dy2_da, "rate": rate.subs(back), "rate_at": rate_at, "rate_gap": rate_gap,
                     "D": D_real, "Dbar": Dbar, "Dbar_in_D": Dbar_in_D.subs(back), "D_symbol": _D_POS,
                     "term_suprema": tuple((t, s_.subs(back)) for t, s_ in sups), "lower_bound_d": lower, "Delta_in_d": Delta_d,
                     "hypothesis_rate": rate.subs(back), "hypothesis_reach": a_lo - D_real + m_,
                     "gaps": tuple(gaps), "w_c_slope_factor": mono, "checks": checks},
        derivation="d(y^2)/da from the Abel field; its infimum over the region derived by monotonicity; D solved "
                   "from the worst rate; Δ in d = a0 - a_inf expanded; Dbar the sum of the suprema of Δ's terms over "
                   "the box; Dbar - Δ >= 0 decided on the derived expression with slack variables.")


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
    zeros = canonical_model(True).grad_A_zeros
    facts = {
        "A_is_UV": sp.expand(U * V - canonical_model(True).A) == 0, "V_same_as_R2": same_V,
        "V_sign": cf["V_sign"], "f_sign": cf["f_sign"], "E_sad_minus_f_sign": cf["E_sad_minus_f_sign"],
        "E_sad_minus_f_at_w_sad": cf["E_sad_minus_f_at_w_sad"], "f(0+)": ew["f(0+)"],
        "dlambda_dt": fs["dlambda_dt"], "w_dot": fs["w_dot"], "df_dt": fs["df_dt"], "dU_dt": fs["dU_dt"],
        "dh_dlambda": fs["dh_dlambda"], "G_sign_rule": fs["G_convex_and_G1_at_A_star_zero"],
        "A_star_sign_is_minus_regime": sp.expand(fs["A_star_numerator_minus_denominator"] - (1 - sp.Symbol("p", positive=True)
                                                                                          - sp.Symbol("q", positive=True))) == 0,
        "critical_off_star_have_A_zero": all(x == 0 for x in crit),
        # the families of ∇A = 0 (Thm 10): the plane e = 0 (every branch of w) and Θ_station = {U = V = 0}
        "e0_plane_critical": {f.get("w_branch") for f in zeros if f.get("e") == 0 and "w" not in f} >= {"1", "-1"},
        "station_critical": any(f.get("e") != 0 and "a" in f and sp.simplify(U.subs(a, f["a"])) == 0
                                and sp.simplify(V.subs(w, f["w"])) == 0 for f in zeros),
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

    def describe(self) -> str:
        """The datum as a reader writes it: "e0 != 0, U0 > 0, below S, w0 in (w_sad, 0), race < 0"."""
        rel = {1: "> 0", 0: "= 0", -1: "< 0"}
        piece = {"w>0": "w0 > 0", "w=0": "w0 = 0", "(w_sad,0)": "w0 in (w_sad, 0)", "w_sad": "w0 = w_sad",
                 "(-inf,w_sad)": "w0 < w_sad"}[self.w_side]
        if self.e_zero:
            return f"e0 = 0, {piece}"
        parts = ["e0 != 0", f"U0 {rel[self.U]}", {-1: "below S", 0: "on S", 1: "above S"}[self.S_side], piece]
        if self.race is not None:
            parts.append(f"race {rel[self.race]}")
        if self.c_race is not None:
            parts.append(f"C-race {rel[self.c_race]}")
        return ", ".join(parts)


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


#: The arguments of the proof of Thms A, B, C that no computation here replaces, written out in full: argued steps
#: of the claims `r3.basins_A`, `r3.basins_B` and `r3.lemma15_thm3` (each lists the ones its sign data use).
#: `derive_limit_r3` decides which of them applies to a sign datum and computes the rest (signs, the fate of the
#: line, the class of the end point); each argument names the derived facts it rests on.
ARGUMENTS = {
    "critical_start": (
        "A start on a critical set is its own limit",
        "The flow field -G'(A)∇A is locally Lipschitz (A is C^1 with a locally Lipschitz gradient: w|w| has the "
        "Lipschitz derivative 2|w|; G is analytic), so solutions are unique and a start where the field vanishes "
        "stays there. ∇A = 0 on the plane e = 0 and on Θ_station = {e != 0, U = V = 0} (S19 of r3.exact_facts), "
        "so G'(A)∇A = 0 there: the limit is θ0 itself, of the class the critical sets give it (Thm 10)."),
    "good_phase": (
        "Once A is on the side of A*, the flow ends on Θ*",
        "Let ϱ = sign(p + q - 1); sign A* = -ϱ, because the numerator of (1-p)(1-q)/(pq) minus its denominator is "
        "1 - p - q. Along the flow dA/dt = -G'(A)|∇A|^2, and G'(A) has the sign of A - A* (G strictly convex, "
        "G'(A*) = 0), so A(t) moves monotonically towards A* and never crosses it. In this phase sign A0 = -ϱ (A0 "
        "strictly on the side of A*), or A0 = 0 at a regular point (∇A != 0), from which A leaves 0 at once "
        "towards A* (dA/dt = -G'(0)|∇A|^2 has the sign of A*). So for every t1 > 0, A(t) lies between A(t1) != 0 "
        "and A* for t >= t1, and never returns to 0. The trajectory is bounded (the step 'the phase is bounded'), "
        "w keeps its sign (w = 0 is invariant and w' = -4G'U|w|), and f(w) = E0 - h(e, a) stays bounded, which "
        "keeps w away from 0 where w != 0 (f -> +oo as w -> 0+, f -> -oo as w -> 0-): the trajectory stays in a "
        "compact part of an open half-space (or of the plane w = 0) where the loss is real analytic, so by "
        "Łojasiewicz's gradient inequality it converges to a critical point θ_lim, with A(θ_lim) between A(t1) "
        "and A*, hence A(θ_lim) != 0. Every critical point off Θ* has A = 0 (S19 of r3.exact_facts): θ_lim lies on "
        "Θ*, a global minimum."),
    "bounded_phase": (
        "The phase that ends on Θ* is bounded (Thm C (i))",
        "By the flow structure (S2-S4, S6) the point (e, a) moves along one gradient line of U and "
        "E = h(e, a) + f(w) = E0 is conserved. In the Airy coordinates a gradient line of U leaves every compact "
        "part of the (e, a)-plane only towards one of its ends: a pole of φ (ℓ -> +oo or ℓ -> -oo at a finite z) "
        "or the end of S (z -> +oo); if (e, a) were unbounded, (e(t_k), a(t_k)) would tend to such an end along "
        "a sequence of times. At an ascending end (ℓ -> +oo) U -> +oo and h -> +oo (derived limits): then "
        "|V| = |A|/U -> 0 because A stays between its value at t_1 and A*, so w -> w_sad and f(w) -> E_sad, "
        "while f = E0 - h -> -oo: impossible. At a descending end through a pole (ℓ -> -oo, where U < 0) "
        "U -> -oo and h -> +oo (derived limits): the same contradiction. Along the end of S, U -> 0 (y -> 0 and "
        "1 + ay -> 1/2) while f = E0 - h -> +oo forces w -> 0+ and V -> 1, so A -> 0, but A moves away from 0 "
        "towards A*: impossible. So (e, a) stays bounded, h is bounded, f(w) = E0 - h is bounded below, and "
        "f -> -oo as |w| -> oo keeps w bounded."),
    "bad_phase": (
        "While A0 and A* lie on opposite sides of 0, the motion is monotone",
        "Let ϱ = sign(p + q - 1). If sign A0 = ϱ (A0 and A* = on opposite sides of 0), then while A keeps its sign, "
        "sign G'(A) = sign(A - A*) = ϱ. By the flow structure (S2-S4) (e, a) runs along its gradient line of U "
        "with dλ/dt = -G'V, of the sign -ϱV0 while V keeps its sign: descending (U decreasing) when U0 > 0 and "
        "ascending when U0 < 0, since sign(U0 V0) = ϱ; w moves monotonically (w' = -4G'U|w|) and f(w(t)) "
        "increases strictly (df/dt = 4G'UV > 0). w never crosses 0: the plane w = 0 is invariant (w' = 0 there), "
        "and on w > 0, f -> +oo as w -> 0+ while f(w(t)) = E0 - h(e(t), a(t)) is finite at every finite time. The "
        "phase lasts until U or V vanishes (A = 0) or the line reaches the a-axis; where exactly one of U, V "
        "vanishes the point is regular (∇A = (U_e V, U V', e^4 V) with V' = 4|w| != 0 at w_sad and e^4 != 0), so "
        "A leaves 0 towards A* and the phase that ends on Θ* follows."),
    "axis_end": (
        "Below S with w0 >= 0 the flow ends on the critical plane e = 0",
        "Below S with U0 > 0 in the phase of opposite signs, the descending line reaches the a-axis at (0, a_inf) "
        "(the trichotomy, r3.trichotomy) and stays in U > 0 on the way (the lines below S lie below the nullcline N, "
        "where U > 0, and N lies below C for a < 0: U = -1/(4a) > 0 on N, derived). With w0 >= 0, V > 0 "
        "throughout (w stays >= 0), so no event intervenes: (e, a) -> (0, a_inf), and w converges monotonically to "
        "w_lim with f(w_lim) = E0 - h(0, a_inf), on the piece of w0 (w_lim > 0 for w0 > 0, since f -> +oo at 0+; "
        "w = 0 for w0 = 0). The limit (0, w_lim, a_inf) is a point of the critical plane e = 0, of the class Thm 10 "
        "gives it."),
    "race": (
        "Below S with w0 < 0, the race of V -> 0 against the axis",
        "Below S with U0 > 0 and w0 < 0 in the phase of opposite signs, the descending line reaches the a-axis at "
        "(0, a_inf) staying in U > 0 (as in 'below S with w0 >= 0'), and w heads to w_sad with f(w(t)) increasing "
        "towards E_sad (f < E_sad on w < 0 except f(w_sad) = E_sad, Lemma 12). c(t) := f(w(t)) = E0 - h(e(t), a(t)) "
        "tends to c_end = E0 - h(0, a_inf) at the axis, and c_end - E_sad = f(w0) - (E_sad - Δ) with "
        "Δ = e0^2 - 2a0^2 + 2a_inf^2 (the race identity, derived); its sign is the race datum. If c_end < E_sad, "
        "c(t) < E_sad throughout: V keeps its sign and the trajectory converges to (0, w_lim, a_inf) with "
        "f(w_lim) = c_end and w_lim on the piece of w0, a point of the critical plane e = 0 of the class Thm 10 "
        "gives it. If c_end = E_sad, w_lim = w_sad: the saddle (0, w_sad, a_inf). If c_end > E_sad, c(t) passes "
        "E_sad before the axis: w reaches w_sad (V = 0) while U > 0, a regular point with A = 0, and the phase that "
        "ends on Θ* follows."),
    "unbounded_on_S": (
        "On S with w0 >= 0 the trajectory is unbounded",
        "On S with U0 > 0 and w0 >= 0 in the phase of opposite signs, the line is S itself, whose descending end "
        "runs to a -> -oo with y -> 0 and h -> -oo (derived). V > 0 throughout (w stays >= 0), U > 0 on S, and A = UV "
        "keeps the sign ϱ = -sign A*, so no event ends the phase and no point of S is critical (critical points off "
        "Θ* have A = 0, S19). The motion along S is monotone (dλ/dt = -G'V < 0): if the trajectory stopped at or "
        "converged to a point of S, that point would be critical. So it runs along the whole descending end of S: "
        "a(t) -> -oo, and f(w) = E0 - h -> +oo sends w -> 0+. The trajectory is unbounded and has no limit."),
    "S_negative_w": (
        "On S with w0 < 0, V vanishes first",
        "On S with U0 > 0 and w0 < 0 in the phase of opposite signs, the motion runs monotonically along S (no point "
        "of S is critical, as in 'on S with w0 >= 0'), and along its descending end h -> -oo, so f(w(t)) = E0 - h "
        "would grow without bound; but f <= E_sad on w < 0 (Lemma 12). So f reaches E_sad first: w = w_sad (V = 0) "
        "while U > 0, a regular point with A = 0, and the phase that ends on Θ* follows."),
    "c_race": (
        "Above S, or with U0 < 0, the race of U -> 0 at C against V -> 0",
        "Above S with U0 > 0 the descending line crosses C (U = 0) before its pole (U -> -oo at the pole, derived), "
        "and with U0 < 0 the ascending line crosses C before its pole (U -> +oo there, derived); by the trichotomy "
        "(r3.trichotomy) the line above S meets a zero of φ. The phase ends at the first of U = 0 (at C) and V = 0. "
        "With w0 >= 0, V never vanishes (w stays >= 0), so the trajectory reaches C with V != 0, a regular point "
        "with A = 0, and the phase that ends on Θ* follows. With w0 < 0 the C-race datum says which comes first: if "
        "U and V vanish together (w = w_st when the line reaches C) the trajectory tends to a point of Θ_station "
        "(U = V = 0, e != 0), a critical point; otherwise the first to vanish leaves A = 0 at a regular point and "
        "the phase that ends on Θ* follows."),
}


@dataclass(frozen=True)
class LimitDerivation:
    """How `derive_limit_r3` reached the class of a sign datum: the class, where the limit lies (in words), the keys
    of `r3_facts` it consulted, and the `ARGUMENTS` it applied, in order."""

    cls: str
    end: str
    facts: tuple[str, ...]
    arguments: tuple[str, ...]


def _family_class(name: str) -> str:
    """The class the derived critical sets (Thm 10, `canonical_model(True).critical_sets`) give the family `name`;
    Θ_station is reported by its name ("station"), as the theorems list it."""
    fams = {f.name: f for f in canonical_model(True).critical_sets()}
    return "station" if name == "Theta_station" else fams[name].classification


def e0_plane_class(regime: int, piece: str, V_sign: dict) -> str:
    """The class of a point (0, w, a) with w on `piece`, for the regime ϱ = sign(p + q - 1): the derived family of
    Thm 10 on e = 0 whose equations and condition hold there. The condition of each family is read exactly: it is
    a relation in (p + q - 1)(1 + 2w|w|) times a positive number, whose sign on the piece is ϱ times the sign of V."""
    import operator
    from ._symbols import p, q
    model = canonical_model(True)
    cond = model._classes["sign"]
    V = slope_factors()["V"]
    rho = sp.cancel(cond / ((p + q - 1) * V))
    if not (rho.is_number and rho.is_positive):
        raise ValueError(f"the condition of the e = 0 families is not (p+q-1) V times a positive number: {cond}")
    sgn = regime * V_sign[piece]
    ops = {sp.StrictGreaterThan: operator.gt, sp.StrictLessThan: operator.lt, sp.GreaterThan: operator.ge,
           sp.LessThan: operator.le, sp.Equality: operator.eq}
    found = []
    for fam in model.critical_sets():
        eqs = [x for x in fam.equations if isinstance(x, sp.Eq)]
        if sp.Eq(e, 0) not in eqs or any(isinstance(x, sp.Ne) for x in fam.equations):
            continue
        others = [x for x in eqs if x != sp.Eq(e, 0)]
        if any(not (x.lhs == w and piece == "w_sad" and sp.simplify(V.subs(w, x.rhs)) == 0) for x in others):
            continue
        if fam.condition is sp.true:
            holds = True
        else:
            r = sp.cancel((fam.condition.lhs - fam.condition.rhs) / cond)
            if not r.is_number or r == 0:
                raise ValueError(f"cannot read the condition of {fam.name}")
            holds = bool(ops[type(fam.condition)](r * sgn, 0))
        if holds:
            found.append(fam.name)
    if len(found) != 1:
        raise ValueError(f"the point on e = 0, {piece}, lies in {len(found)} derived families: {found}")
    return _family_class(found[0])


def derive_limit_r3(regime: int, d: Datum, facts: dict | None = None, fates: dict | None = None) -> LimitDerivation:
    r"""The class of the limit of the flow from a start with sign datum d (regime ϱ = sign(p+q-1)), derived: the
    phase (good, bad) from the signs of U, V and ϱ; in the bad phase the direction of motion (dλ/dt = -G'V) and of
    f (df/dt = 4G'UV) from the derived flow identities; the fate of the line from the side of S (`fates`: side ->
    fate, derived by `side_fates` from the Airy facts the claim `r3.airy_facts` established); which argument of
    `ARGUMENTS` applies; and the class of the end point from the derived critical sets (`e0_plane_class`,
    `_family_class`). Consults only `r3_facts` (pass `facts` to try other facts) and raises ValueError when they
    do not decide a case (a gap in the argument, never a guess)."""
    F = facts if facts is not None else r3_facts().expressions
    if fates is None:
        raise ValueError("the fates of the descending lines are not established (`side_fates`)")
    used, args = [], []

    def need(*keys):
        used.extend(k for k in keys if k not in used)

    def apply(*keys):
        args.extend(k for k in keys if k not in args)

    def out(cls, end):
        return LimitDerivation(cls, end, tuple(used), tuple(args))

    need("A_is_UV", "V_same_as_R2", "G_sign_rule", "A_star_sign_is_minus_regime")
    if not (F["A_is_UV"] and F["V_same_as_R2"] and F["G_sign_rule"] and F["A_star_sign_is_minus_regime"]):
        raise ValueError("A = U V, the sign rule of G' or the sign of A* is not established")
    Vs, fs = F["V_sign"], F["f_sign"]
    need("V_sign")
    if d.e_zero:
        need("e0_plane_critical")
        if not F["e0_plane_critical"]:
            raise ValueError("the plane e = 0 is not shown to be critical")
        apply("critical_start")
        return out(e0_plane_class(regime, d.w_side, Vs), "θ0 itself, on the critical plane e = 0")
    V = Vs[d.w_side]
    if d.U == 0 and V == 0:
        need("station_critical")
        if not F["station_critical"]:
            raise ValueError("Θ_station is not shown to be critical")
        apply("critical_start")
        return out(_family_class("Theta_station"), "θ0 itself, on Θ_station")

    def good(end):
        need("critical_off_star_have_A_zero", "limits", "E_sad_minus_f_at_w_sad")
        if not (F["critical_off_star_have_A_zero"] and _bounded_phase(F)):
            raise ValueError("the phase that ends on Θ* is not shown to")
        apply("good_phase", "bounded_phase")
        return out(_family_class("Theta_star"), end)

    if d.U * V != regime:
        return good("on Θ*: A0 on the side of A* (or A0 = 0 at a regular point)")
    # A0 and A* on opposite sides of 0: sign G' = ϱ while A keeps its sign
    need("dlambda_dt", "df_dt")
    U_expr, V_expr = _U_V()
    if sp.expand(F["dlambda_dt"] + Gp * V_expr) != 0 or sp.expand(F["df_dt"] - 4 * Gp * U_expr * V_expr) != 0:
        raise ValueError("dλ/dt is not -G'V or df/dt is not 4G'UV")
    lam_dot, f_dot = -regime * V, regime * d.U * V        # signs, with sign G' = ϱ
    if f_dot <= 0:
        raise ValueError("f does not increase in this phase")
    apply("bad_phase")
    if d.w_side == "w>0":
        need("f(0+)")
        if F["f(0+)"] != sp.oo:
            raise ValueError("w > 0 is not shown to stay positive")
    neg = d.w_side in ("(w_sad,0)", "(-inf,w_sad)")

    def c_race():
        apply("c_race")
        if not neg:
            return good("on Θ*: U vanishes at C first (V != 0 for w0 >= 0)")
        if d.c_race is None:
            raise ValueError("the C-race datum is missing")
        if d.c_race == 0:
            return out(_family_class("Theta_station"), "a point of Θ_station (U and V vanish together)")
        return good("on Θ*: one of U, V vanishes first")

    if d.U > 0:
        if lam_dot >= 0:
            raise ValueError("a start with U0 > 0 in this phase does not descend U")
        fate = fates.get(d.S_side)
        if fate == "axis":
            need("U_on_N_for_a<0", "yN_minus_yC_for_a<0")
            if not (F["U_on_N_for_a<0"].is_positive and F["yN_minus_yC_for_a<0"].is_negative):
                raise ValueError("the lines below S are not shown to stay in U > 0")
            if not neg:
                apply("axis_end")
                return out(e0_plane_class(regime, d.w_side, Vs), "(0, w_lim, a_inf), w_lim on the piece of w0")
            need("E_sad_minus_f_sign", "E_sad_minus_f_at_w_sad", "f_sign")
            if not (F["E_sad_minus_f_sign"][d.w_side] > 0 and F["E_sad_minus_f_at_w_sad"] == 0):
                raise ValueError("f does not rise to E_sad only at w_sad")
            if d.race is None:
                raise ValueError("the race datum is missing")
            apply("race")
            if d.race < 0:
                return out(e0_plane_class(regime, d.w_side, Vs), "(0, w_lim, a_inf), w_lim on the piece of w0")
            if d.race == 0:
                return out(e0_plane_class(regime, "w_sad", Vs), "(0, w_sad, a_inf)")
            return good("on Θ*: V vanishes before the axis")
        if fate == "S":
            need("h_on_S_end", "S_a_end")
            if F["h_on_S_end"] != -sp.oo or F["S_a_end"] != -sp.oo:
                raise ValueError("the end of S is not shown")
            if not neg:
                need("critical_off_star_have_A_zero")
                if not F["critical_off_star_have_A_zero"]:
                    raise ValueError("a stall on S is not excluded")
                apply("unbounded_on_S")
                return out("unbounded", "none: a(t) -> -oo along S")
            need("E_sad_minus_f_sign", "E_sad_minus_f_at_w_sad")
            apply("S_negative_w")
            return good("on Θ*: V vanishes on the way along S")
        if fate == "C":
            need("limits")
            if F["limits"]["U(ell->-oo)"] != -sp.oo:
                raise ValueError("the descending line is not shown to cross C")
            return c_race()
        raise ValueError(f"no fate is established for the side {d.S_side} of S")
    # U0 < 0 in this phase: the motion ascends U and the line crosses C before its pole
    need("limits")
    if lam_dot <= 0 or F["limits"]["U(ell->+oo)"] != sp.oo:
        raise ValueError("a start with U0 < 0 in this phase is not shown to reach C")
    return c_race()


def limit_rule_r3(regime: int, d: Datum, facts: dict | None = None, fates: dict | None = None) -> str:
    """The class alone (`derive_limit_r3`)."""
    return derive_limit_r3(regime, d, facts, fates).cls


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

#: the Airy facts the trichotomy uses, established (or not) by the claim `r3.airy_facts`
AIRY_FACTS = ("Ai>0 on (a1,oo)", "Ai'(a1)>0", "Bi(a1)<0", "Bi/Ai->oo", "q_S->0", "Bi'^2-zBi^2->-oo", "Ai'/Ai->-oo")

#: the trichotomy as stated (Prop. 3): (z0 > a_1, sign β) -> fate of the descending line. A statement: the claim
#: `r3.trichotomy` compares it with the fates `fate_derivation` derives
TRICHOTOMY = {(True, 1): "axis", (True, 0): "S", (True, -1): "C",
              (False, 1): "C", (False, 0): "C", (False, -1): "C"}

#: the argument behind the fates, written out (an argued step of `r3.trichotomy`): what `fate_derivation` computes
#: is which of its cases applies
FIRST_EVENT_ARGUMENT = (
    "Along the descending gradient line of U the Airy variable z increases (dz/dλ < 0, derived) and the line is "
    "ℓ = φ'/φ with φ = αAi + βBi, φ(z0) = 1, φ'(z0) = ℓ0 (derived). The line meets the a-axis exactly where "
    "q = φ'^2 - zφ^2 vanishes (y φ^2 = 2^(2/3) q with φ != 0), and it meets a pole (ℓ -> -oo; the line leaves through "
    "U -> -oo, crossing C when U0 > 0) exactly where φ vanishes. q is strictly decreasing (q' = -φ^2) and q(z0) > 0 "
    "(y0 > 0). At a zero z_p of φ, φ'(z_p) != 0 (otherwise φ = 0 identically, by uniqueness for φ'' = zφ), so "
    "q(z_p) = φ'(z_p)^2 > 0 and q has no root before the first zero of φ. Hence: if φ has a zero in (z0, oo) "
    "the line meets it first (fate C); otherwise it reaches the axis iff q has a root, i.e. iff lim q < 0; and if "
    "lim q >= 0, q > 0 for every z (q strictly decreasing), so the line runs to z -> oo with y > 0 and φ ∝ Ai "
    "(β = 0): the separatrix S. Zeros of φ are found by intermediate values: a continuous function with a "
    "positive value at one point and a negative value (or limit) further on has a zero in between; a "
    "nondecreasing function with a positive start has none. For β != 0, φ/Bi -> β (because Ai/Bi -> 0), so "
    "φ^2 >= β^2 Bi^2/4 for large z, and ∫^oo Bi^2 = oo (since (Bi'^2 - zBi^2)' = -Bi^2 and Bi'^2 - zBi^2 -> -oo): "
    "then ∫^oo φ^2 = oo and q = q(z0) - ∫ φ^2 -> -oo. For β = 0, φ = Ai/Ai(z0) and q = q_S/Ai(z0)^2 -> 0.")


_SIGN_WORD = {1: "positive", 0: "zero", -1: "negative"}


def _limit_text(x) -> str:
    """A limit as a reader writes it: +oo, -oo, 0, or the expression."""
    return {sp.oo: "+oo", -sp.oo: "-oo"}.get(x, sp.sstr(x))


_RELATION = {1: "> 0", 0: "== 0", -1: "< 0"}


def fate_derivation(z0_right_of_a1: bool, beta_sign: int, airy: dict, facts: dict | None = None) -> tuple[str, tuple, tuple]:
    r"""The fate of the descending line (z increasing) from (z0, ℓ0), e0 != 0, in the case (z0 > a_1 or not, sign β),
    derived from the linearisation identities (`linearisation`: φ/Ai has derivative βW/Ai^2 with W = 1/π > 0,
    q' = -φ^2, y φ^2 = 2^(2/3) q) and the Airy facts `airy` (keys AIRY_FACTS, True where `r3.airy_facts`
    established them), by the first-event argument (`FIRST_EVENT_ARGUMENT`): the signs and limits it needs are
    computed here with SymPy (sign of (φ/Ai)' and φ/Ai at z0, lim φ/Ai, lim φ/Bi, lim q, sign of φ(a_1)).
    Returns (fate, the computed facts as sentences, the signs decided as (relation, expression, label) with the
    symbols' sign assumptions); raises ValueError when a needed fact is missing."""
    li = (facts or linearisation().expressions)["checks"]
    need = ("phi_over_Ai", "q_prime", "y_phi2", "W_prime", "W_at_0")
    if not all(li.get(k) for k in need):
        raise ValueError("the linearisation identities are not established")

    def has(*keys):
        if not all(airy.get(k) for k in keys):
            raise ValueError(f"Airy facts missing: {[k for k in keys if not airy.get(k)]}")

    R = sp.Symbol("R", positive=True)                           # Bi/Ai (on z > a_1), -> oo
    alpha_ = sp.Symbol("alpha", real=True)
    beta_ = {1: sp.Symbol("beta", positive=True), -1: sp.Symbol("beta", negative=True), 0: sp.Integer(0)}[beta_sign]
    Ai0 = sp.Symbol("Ai_0", positive=True)                      # Ai(z0) > 0 for z0 > a_1
    W = 1 / sp.pi                                               # W(Ai, Bi) (linearisation: W' = 0, W(0) = 1/π)
    said, decided = [], []
    if z0_right_of_a1:
        has("Ai>0 on (a1,oo)", "Bi/Ai->oo")
        slope = sp.sign(beta_ * W / Ai0**2)                     # sign of (φ/Ai)' on [z0, oo)
        start = sp.sign(1 / Ai0)                                # φ/Ai at z0, φ(z0) = 1
        decided += [(_RELATION[int(slope)], beta_ * W / Ai0**2, "(phi/Ai)'"), (_RELATION[int(start)], 1 / Ai0, "phi/Ai(z0)")]
        alpha_at = 1 / Ai0 if beta_sign == 0 else alpha_        # β = 0: φ = αAi with αAi(z0) = 1
        lim_ratio = sp.limit(alpha_at + beta_ * R, R, sp.oo)    # lim φ/Ai = α + β lim Bi/Ai
        said += [f"(phi/Ai)' is {_SIGN_WORD[int(slope)]} on [z0, oo), phi/Ai(z0) = 1/Ai(z0) is {_SIGN_WORD[int(start)]}",
                 f"lim phi/Ai = {_limit_text(lim_ratio)}"]
        negative_end = bool((lim_ratio < 0) == sp.true)
        if start > 0 and negative_end:
            said.append("phi/Ai changes sign on (z0, oo): phi has a zero there")
            return "C", tuple(said), tuple(decided)
        if not (start > 0 and slope >= 0):
            raise ValueError("the sign of φ on (z0, oo) is not decided")
        said.append("phi/Ai >= phi/Ai(z0) > 0: phi has no zero on (z0, oo)")
        if beta_sign != 0:
            has("Bi'^2-zBi^2->-oo")
            lim_phi_Bi = sp.limit(alpha_ / R + beta_, R, sp.oo)   # φ/Bi = α Ai/Bi + β
            said.append(f"lim phi/Bi = beta, {_SIGN_WORD[beta_sign]}, and the integral of Bi^2 diverges: lim q = -oo, "
                        "q has a root")
            if lim_phi_Bi == 0:
                raise ValueError("φ/Bi does not keep away from 0")
            return "axis", tuple(said), tuple(decided)
        has("q_S->0")
        qS = sp.Symbol("q_S", real=True)
        lim_q = sp.limit((alpha_at**2 * qS), qS, 0)              # q = α^2 q_S with q_S -> 0
        said.append(f"q = q_S/Ai(z0)^2 -> {_limit_text(lim_q)}, strictly decreasing: q > 0 throughout, no root")
        if lim_q != 0:
            raise ValueError("lim q is not 0 on S")
        return "S", tuple(said), tuple(decided)
    # z0 <= a_1 < ... : φ(a_1) = β Bi(a_1) (Ai(a_1) = 0), and beyond a_1 as above
    has("Bi(a1)<0", "Bi/Ai->oo", "Ai>0 on (a1,oo)")
    Bi_a1 = sp.Symbol("Bi_a1", negative=True)
    at_a1 = sp.sign(beta_ * Bi_a1)
    decided.append((_RELATION[int(at_a1)], beta_ * Bi_a1, "phi(a_1)"))
    said.append(f"phi(a_1) = beta Bi(a_1) is {_SIGN_WORD[int(at_a1)]}, phi(z0) = 1 is positive")
    if at_a1 < 0:
        said.append("phi changes sign on (z0, a_1): a zero")
        return "C", tuple(said), tuple(decided)
    if at_a1 == 0:
        said.append("phi(a_1) = 0 with a_1 > z0 (as phi(z0) = 1): a zero")
        return "C", tuple(said), tuple(decided)
    lim_ratio = sp.limit(alpha_ + beta_ * R, R, sp.oo)
    said.append(f"on (a_1, oo) phi/Ai is positive just right of a_1 and tends to {_limit_text(lim_ratio)}: a zero")
    if not bool((lim_ratio < 0) == sp.true):
        raise ValueError("no zero of φ is found beyond a_1")
    return "C", tuple(said), tuple(decided)


def fate_rule(z0_right_of_a1: bool, beta_sign: int, airy: dict, facts: dict | None = None) -> str:
    """The fate alone (`fate_derivation`)."""
    return fate_derivation(z0_right_of_a1, beta_sign, airy, facts)[0]


def S_side_derivation(z0_right_of_a1: bool, beta_sign: int, airy: dict, facts: dict | None = None) -> tuple[int, tuple, tuple]:
    r"""sign(e0^2 - y_S(a0)) in the case (z0 > a_1 or not, sign β), derived (G3): β = π Ai(z)(ℓ - ℓ_S(z)) exactly
    (`separatrix`), ℓ_S' = -q_S/Ai^2 with q_S > 0 (q_S' = -Ai^2 and q_S -> 0) and Ai > 0 on (a_1, oo): ℓ_S
    decreases, from +oo at a_1+ (Ai(a_1) = 0, Ai'(a_1) > 0) to -oo (Ai'/Ai -> -oo), so S is the graph of y_S over
    every a; at fixed a (fixed ℓ), z = ℓ^2 - 2^(-2/3) y decreases as y increases. Returns (side, sentences, the signs
    decided as (relation, expression, label))."""
    F = facts or separatrix().expressions
    if not (F["checks"]["slope"] and F["checks"]["qS_prime"]):
        raise ValueError("ℓ_S' = -q_S/Ai^2 or q_S' = -Ai^2 is not established")
    if not all(airy.get(k) for k in ("q_S->0", "Ai>0 on (a1,oo)", "Ai'(a1)>0", "Ai'/Ai->-oo")):
        raise ValueError("the Airy facts behind the monotonicity of ℓ_S are missing")
    beta_factored = sp.factor(F["beta_zl"] / sp.airyai(z))
    if sp.cancel(beta_factored - sp.pi * (ell - F["ell_S"])) != 0:
        raise ValueError("β is not π Ai (ℓ - ℓ_S)")
    qS, Ai_ = sp.Symbol("q_S", positive=True), sp.Symbol("Ai", positive=True)
    slope = sp.sign(-qS / Ai_**2)                               # sign of ℓ_S'
    dz = sp.diff(airy_reduction()["z_of"].subs(e, sp.sqrt(y)), y)
    dz_dy = sp.sign(dz)
    decided = ((_RELATION[int(slope)], -qS / Ai_**2, "ell_S'"), (_RELATION[int(dz_dy)], dz, "dz/dy"))
    said = [f"ell_S' = -q_S/Ai^2 is {_SIGN_WORD[int(slope)]}, dz/dy at fixed a is {_SIGN_WORD[int(dz_dy)]}"]
    if not z0_right_of_a1:
        said.append("z0 <= a_1 < z_S(ell0): the start lies above S")
        return -dz_dy, tuple(said), decided
    # sign β = sign(ℓ0 - ℓ_S(z0)) = sign(ℓ_S(z_S) - ℓ_S(z0)) = slope * sign(z_S - z0); z_S - z0 has the sign of
    # dz/dy * (y_S - y0) = -dz/dy * side
    side = int(beta_sign * slope * (-dz_dy))
    said.append(f"beta {_SIGN_WORD[beta_sign]}: e0^2 - y_S(a0) is {_SIGN_WORD[side]}")
    return side, tuple(said), decided


def S_side_rule(z0_right_of_a1: bool, beta_sign: int, airy: dict, facts: dict | None = None) -> int:
    """The side of S alone (`S_side_derivation`)."""
    return S_side_derivation(z0_right_of_a1, beta_sign, airy, facts)[0]


#: the cases of the trichotomy: (z0 > a_1, sign β)
TRICHOTOMY_CASES = tuple((r, b) for r in (True, False) for b in (1, 0, -1))


def side_fates(airy: dict) -> dict:
    """The fate of the descending line by the side of S of its start (-1 below, 0 on, +1 above), derived from the
    6 cases (`fate_derivation`, `S_side_derivation`); ValueError if two cases on one side have different fates."""
    out = {}
    for case in TRICHOTOMY_CASES:
        side, fate = S_side_rule(*case, airy), fate_rule(*case, airy)
        if out.setdefault(side, fate) != fate:
            raise ValueError(f"the side {side} of S has two fates: {out[side]} and {fate}")
    return out
