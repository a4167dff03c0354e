r"""Claims of our R^3 result (issue 16; Sec. 4.1, App. G): the basins of GF-Attention in R^3 (Thms A, B), the
erratum to Lemma 15 / Thm 3 (a measure-zero set of starts diverges for p+q > 1) and Thm 11 made precise (a
certified lower bound on P(local minimum) under Gaussian initialisation).

The proof runs as steps with `uses` edges: the exact identities the characterisation rests on (S1-S18 of the
research note, every one compared with the object derived from `canonical_model(True)` in
`symbolic.basins_r3`), the classical Airy facts (certified on a compact part with arb, cited beyond), the
trichotomy of the descending gradient lines of U (Prop. 3), Lemma C, and the limit rule
(`basins_r3.limit_rule_r3`) against which the stated sets are compared on every sign datum. Integrated
flows (the repository integrator, `basins_r3.compare_R3`) are corroboration only; the module stays small
(a few boundary and random starts per regime) so that it runs in well under a minute.
"""
from __future__ import annotations

import random
import zlib
from fractions import Fraction
from functools import lru_cache

import mpmath as mp
import sympy as sp

from local2global.numeric.dynamics import basins_r3 as nr3
from local2global.numeric.dynamics import prob_r3 as pr3
from local2global.proofs._registry import Outcome, claim
from local2global.symbolic import basins_r3 as sr3
from local2global.symbolic import symbols as S
from local2global.symbolic.model import canonical_model

SECTION = "attention"
REF = "Sec. 4.1 (R^3 basins, our result)"
REF_A = "Sec. 4.1 (R^3 basins, our result: Thm A)"
REF_B = "Sec. 4.1 (R^3 basins, our result: Thm B)"
REF_ERR = "Lemma 15 / Thm 3 (erratum, our result)"
REF_11 = "Thm 11 (precise; our result)"
D_R3 = "(p, q) in (0,1)^2, p + q != 1; theta_0 = (e, w, a) in R^3"

e, w, a, w_pos, w_neg = S.e, S.w, S.a, S.w_pos, S.w_neg
y, z, ell, G1 = sr3.y, sr3.z, sr3.ell, sr3.Gp
Ai, Aip, Bi, Bip = sr3.AIRY
C23, CM23 = 2 ** sp.Rational(2, 3), 2 ** sp.Rational(-2, 3)
HALF = {"w>0": (w_pos, 1), "w<0": (w_neg, -1)}

# --- (a) the exact facts S1..S18, as the note prints them --------------------------------------------

def _printed_facts() -> dict:
    """The research note's closed forms (NOTE.md §1-§3), typed in: each is compared with the derived object."""
    c0, l0, ast, c = sp.symbols("z_0 ell_0 a_star c", real=True)
    return {
        "U": e**2 * (1 + a * e**2), "V": 1 + 2 * w * sp.Abs(w),
        "f": -(w**2 + sp.sign(w) * sp.log(sp.Abs(w))), "h": e**2 - 2 * a**2,
        "f_prime": -(2 * w + 1 / sp.Abs(w)),
        "grad_U": (2 * e * (1 + 2 * a * e**2), e**4),
        "abel_field": (y, 8 * a * y + 4),                       # X = y d_a + (8ay + 4) d_y
        "dy2_da": 8 + 16 * a * y,
        "ell": C23 * a, "z": C23**2 * a**2 - CM23 * e**2,
        "dz_dlambda": -2 ** sp.Rational(4, 3) * e**2, "dell_dlambda": C23 * e**4, "riccati": z - ell**2,
        "h_zl": (ell**2 - 2 * z) / sp.cbrt(2), "C_zl": 1 + ell * (ell**2 - z), "N_zl": 1 + 2 * ell * (ell**2 - z),
        "first_integral": (ell * Ai - Aip) / (ell * Bi - Bip),
        "q_prime": -sr3.Phi**2, "y_phi": C23 * (sr3.dPhi**2 - z * sr3.Phi**2) / sr3.Phi**2,
        "U_phi": C23 * (sr3.dPhi**2 - z * sr3.Phi**2) * (sr3.Phi**3 + sr3.dPhi * (sr3.dPhi**2 - z * sr3.Phi**2)) / sr3.Phi**5,
        "alpha": sp.pi * (sp.airybiprime(sr3.z0) - sr3.ell0 * sp.airybi(sr3.z0)),
        "beta": sp.pi * (sr3.ell0 * sp.airyai(sr3.z0) - sp.airyaiprime(sr3.z0)),
        "wronskian": 1 / sp.pi,
        "cross_at_axis": sp.pi**2 * C23 * (Ai * Bip - Aip * Bi).subs(z, C23**2 * sr3.a_inf**2),
        "lambert_x_pos": 2 * sp.exp(-2 * sr3.c_lev),
        "lambert_x_neg": -sp.exp(-1 + 2 * (sr3.c_lev + (1 + sp.log(2)) / 2)),
        "E_sad": -(1 + sp.log(2)) / 2,
        "y_S_asymptotic": -1 / (2 * a) - 1 / (32 * a**4),
        "dy2_da_axis": sp.Integer(8),
        "station": {"w": -1 / sp.sqrt(2), "a": -1 / e**2},
    }


def _mutant_facts() -> dict:
    f = _printed_facts()
    f["abel_field"] = (y, 8 * a * y + 2)               # the Abel equation y y' = 8ay + 2
    return f


def _fact_residuals(F: dict) -> dict:
    """S-id -> (residuals that must be exactly 0, booleans that must hold), the printed form against the derived."""
    M = canonical_model(True)
    sf, fs, ar, li = sr3.slope_factors(), sr3.flow_structure(), sr3.airy_reduction(), sr3.linearisation()
    se, lw, lc = sr3.separatrix(), sr3.lambert_inverse(), sr3.lemma_c()
    U, V, f, h = (sp.sympify(F[k]) for k in ("U", "V", "f", "h"))
    gU = sp.Matrix([sp.diff(U, e), sp.diff(U, a)])
    out = {}
    for lab, (wb, sg) in HALF.items():
        sub = {w: wb}
        A = M.A.subs(sub)
        Ub, Vb, fb = U, V.subs(sub), f.subs(sub)
        E = e**2 - 2 * a**2 + fb
        flow = [-G1 * sp.diff(A, v) for v in (e, wb, a)]
        out[f"S1[{lab}]"] = [sum(sp.diff(E, v) * fv for v, fv in zip((e, wb, a), flow)), E - M.energy_result[f"E_{lab}"]]
        out[f"S2[{lab}]"] = [Ub * Vb - A] + list(sp.Matrix([flow[0], flow[2]]) + G1 * Vb * gU)
        out[f"S3[{lab}]"] = [flow[1] + 4 * G1 * Ub * sg * wb]
        out[f"S4[{lab}]"] = [sp.diff(fb, wb) * flow[1] - 4 * G1 * Ub * Vb]
        out[f"S5[{lab}]"] = [sp.diff(fb, wb) - sp.sympify(F["f_prime"]).subs(sub)]
    out["S6"] = [gU.dot(sp.Matrix([sp.diff(h, e), sp.diff(h, a)])) - 4 * U, h - fs["h"]]
    out["S7"] = [gU[0] - F["grad_U"][0], gU[1] - F["grad_U"][1], U - sf["U"]]
    out["S8"] = [F["abel_field"][0] - ar["X"][0], F["abel_field"][1] - ar["X"][1]]
    out["S9"] = [F["dy2_da"] - lc["dy2_da"]]
    out["S10"] = [F["ell"] - ar["ell_of"], F["z"] - ar["z_of"], F["dz_dlambda"] - ar["dz_dlambda"],
                  F["dell_dlambda"] - ar["dell_dlambda"], F["riccati"] - ar["dl_dz"]]
    out["S11"] = [F["h_zl"] - ar["h_zl"], F["C_zl"] - ar["C_zl"], F["N_zl"] - ar["N_zl"],
                  ar["axis_h"] + 2 * a**2]
    out["S12"] = [F["first_integral"] - li["I"], F["q_prime"] - li["q_prime_in_phi"], F["y_phi"] - li["y_in_phi"],
                  F["U_phi"] - li["U_in_phi"],
                  sp.diff(F["first_integral"], z) + (z - ell**2) * sp.diff(F["first_integral"], ell)]
    out["S13"] = [F["alpha"] - li["alpha0"], F["beta"] - li["beta0"], li["W_at_0"] - F["wronskian"], li["W_prime"]]
    out["S14"] = [li["cross_at_axis"] - F["cross_at_axis"]]
    out["S15"] = [F["lambert_x_pos"] - lw["x_pos"], F["lambert_x_neg"] - lw["x_neg"],
                  F["E_sad"] - sr3.race()["E_sad"]]
    ys = sp.sympify(F["y_S_asymptotic"])
    resid = ys * sp.diff(ys, a) - ar["X"][1].subs(y, ys)
    lead = sp.limit(sp.expand(resid) * a**5, a, -sp.oo)
    out["S16"] = [ys - se["y_S_asymptotic"], sp.Integer(0) if lead.is_finite else sp.Integer(1)]
    out["S17"] = [F["dy2_da_axis"] - lc["dy2_da"].subs(y, 0)]
    st = F["station"]
    out["S18"] = [sf["V"].subs(w, st["w"]), sp.expand(sf["U"].subs(a, st["a"]))]
    # S19: the critical points of A. ∇A = (U_e V, U V', U_a V) with U_a = e^4 and V' = 4|w|: e != 0 forces V = 0,
    # whose only root is w = -1/√2 where V' != 0, so U = 0: ∇A = 0 iff e = 0 or U = V = 0 (both give A = 0, so
    # Θ* = {A = A*} is the only critical set with A != 0, since G' vanishes only at A*)
    rs = []
    for lab, (wb, sg) in HALF.items():
        Vb = V.subs(w, wb)
        A = (U * V).subs(w, wb)
        rs += [sp.diff(A, e) - sp.diff(U, e) * Vb, sp.diff(A, wb) - U * sp.diff(Vb, wb), sp.diff(A, a) - e**4 * Vb,
               sp.diff(Vb, wb) - 4 * sg * wb]
    roots = sp.solve(V.subs(w, w_neg), w_neg) + sp.solve(V.subs(w, w_pos), w_pos)
    rs.append(sp.Integer(0) if [sp.nsimplify(r) for r in roots] == [-1 / sp.sqrt(2)] else sp.Integer(1))
    fams_ok = all((fam.get("e") == 0) or (sp.simplify(U.subs({a: fam["a"]})) == 0 and
                                          sp.simplify(V.subs(w, fam["w"])) == 0) for fam in M.grad_A_zeros)
    rs.append(sp.Integer(0) if fams_ok else sp.Integer(1))
    out["S19"] = rs
    return out


def _nonzero(r) -> bool:
    return _nonzero_expr(sp.sympify(r))


# a function of the residual alone: the printed facts and the negative control (which alters one of them) share
# the zero tests of every residual they have in common
@lru_cache(maxsize=None)
def _nonzero_expr(r) -> bool:
    if r.has(sp.airyai, sp.airyaiprime, sp.airybi, sp.airybiprime):
        return not (sr3.is_zero(r) or sr3.is_zero(r, wronskian=True))
    return not (sr3.is_zero(r) or sp.simplify(sp.expand_log(r, force=True)) == 0)


@claim("r3.exact_facts", ref=REF, title="The exact identities the R^3 characterisation rests on",
       statement=r"With $U = e^2(1+ae^2)$, $V = 1 + 2w|w|$ ($A = UV$), $f(w) = -(w^2 + \mathrm{sign}(w)\log|w|)$, "
                 r"$h = e^2 - 2a^2$: $E = h + f$ is conserved; $(\dot e, \dot a) = -G'V\nabla U$, $\dot w = -4G'U|w|$, "
                 r"$\tfrac{d}{dt}f(w) = 4G'UV$, $\nabla h\cdot\nabla U = 4U$; the gradient lines of $U$ in $(a, y = e^2)$ solve "
                 r"$yy' = 8ay + 4$ ($d(y^2)/da = 8 + 16ay$); with $\ell = 2^{2/3}a$, $z = \ell^2 - 2^{-2/3}e^2$ they solve "
                 r"$d\ell/dz = z - \ell^2$, $\ell = \varphi'/\varphi$, $\varphi = \alpha\mathrm{Ai} + \beta\mathrm{Bi}$ with "
                 r"$\alpha = \pi(\mathrm{Bi}' - \ell_0\mathrm{Bi})$, $\beta = \pi(\ell_0\mathrm{Ai} - \mathrm{Ai}')$, "
                 r"$W(\mathrm{Ai}, \mathrm{Bi}) = 1/\pi$, $q = \varphi'^2 - z\varphi^2$, $q' = -\varphi^2$, $y\varphi^2 = 2^{2/3}q$; "
                 r"first integral $I = (\ell\mathrm{Ai} - \mathrm{Ai}')/(\ell\mathrm{Bi} - \mathrm{Bi}')$; $f^{-1}$ by Lambert $W$; "
                 r"$y_S = -1/(2a) - 1/(32a^4) + o(a^{-5})$ on the separatrix; $\nabla A = 0$ iff $e = 0$ or $U = V = 0$ "
                 r"(so every critical point off $\Theta^\star$ has $A = 0$).",
       printed=_printed_facts, mutant=_mutant_facts, uses=("lemma14.energy", "lemma13.reduced_gradient"),
       section=SECTION, domain="theta in R^3 (each identity on its stated branch: w > 0 / w < 0, e != 0 for the "
                               "Airy coordinates)")
def _exact_facts(form, ctx):
    """Each printed identity against the object derived from the model (exact: rational functions after
    replacing Ai, Ai', Bi, Bi' by symbols, with the Wronskian where it is needed; S16 by an exact limit)."""
    res = _fact_residuals(form)
    bad = [k for k, rs in res.items() if any(_nonzero(r) for r in rs)]
    n = sum(len(v) for v in res.values())
    return Outcome(not bad, "symbolic (exact identities against the derived objects)",
                   f"{len(res) - len(bad)}/{len(res)} facts ({n} identities) exact" + (f"; failing: {bad}" if bad else ""),
                   strength="proved", checked_domain="both half-spaces w > 0, w < 0; e != 0 for the Airy coordinates "
                   "(exact, whole domain)")


# --- the classical Airy facts ---------------------------------------------------------------------

A1_BALL = (Fraction(-233811, 100000), Fraction(-233810, 100000))


def _airy_printed():
    return {"a1_in": A1_BALL, "Bi(a1)_sign": -1, "Ai_positive_on": (A1_BALL[1], Fraction(0))}


def _airy_mutant():
    return {"a1_in": A1_BALL, "Bi(a1)_sign": 1, "Ai_positive_on": (A1_BALL[1], Fraction(0))}


def _positive_on(fn, lo: Fraction, hi: Fraction, depth: int = 40) -> tuple[bool, int]:
    """fn > 0 certified on [lo, hi] by adaptive bisection of arb balls (fn: arb ball -> arb ball); (ok, boxes)."""
    import flint
    todo, boxes = [(lo, hi, 0)], 0
    while todo:
        l_, h_, d = todo.pop()
        mid, rad = (l_ + h_) / 2, (h_ - l_) / 2
        ball = flint.arb(flint.fmpq(mid.numerator, mid.denominator)) + flint.arb(0, 1) * flint.arb(flint.fmpq(rad.numerator, rad.denominator))
        v = fn(ball)
        boxes += 1
        if v > 0:
            continue
        if v < 0 or d >= depth:
            return False, boxes
        todo += [(l_, mid, d + 1), (mid, h_, d + 1)]
    return True, boxes


@claim("r3.airy_facts", ref=REF, title="The Airy facts the trichotomy uses",
       statement=r"$a_1 \in [-2.33811, -2.33810]$ is the largest zero of $\mathrm{Ai}$: $\mathrm{Ai} > 0$ on $(a_1, \infty)$; "
                 r"$\mathrm{Bi}(a_1) < 0$; as $z \to \infty$: $\mathrm{Bi}/\mathrm{Ai} \to \infty$, $q_S = \mathrm{Ai}'^2 - z\mathrm{Ai}^2 "
                 r"\to 0$, $\mathrm{Bi}'^2 - z\mathrm{Bi}^2 \to -\infty$.",
       printed=_airy_printed, mutant=_airy_mutant, section=SECTION, domain="z in R")
def _airy_facts(form, ctx):
    """arb (python-flint): Ai(lo) < 0 < Ai(hi) and Ai' > 0 on [lo, hi] (one zero there); Ai > 0 on [hi, 0] by
    adaptive boxes; Bi < 0 on [lo, hi] with the stated sign. Beyond the compact part the facts are classical
    and cited, not checked: Ai > 0 on (0, oo) (Ai = π^-1 sqrt(z/3) K_{1/3}(2z^{3/2}/3), K_ν > 0; DLMF 9.6.1,
    10.32.9), the limits (DLMF 9.7.5-9.7.8; (Bi'^2 - zBi^2)' = -Bi^2 is exact)."""
    import flint
    old = flint.ctx.prec
    flint.ctx.prec = 128
    try:
        lo, hi = (flint.arb(flint.fmpq(x.numerator, x.denominator)) for x in form["a1_in"])
        blo, bhi = form["a1_in"]
        ball = flint.arb(flint.fmpq((blo + bhi).numerator, (blo + bhi).denominator * 2)) + \
            flint.arb(0, 1) * flint.arb(flint.fmpq((bhi - blo).numerator, (bhi - blo).denominator * 2))
        zero = bool(lo.airy()[0] < 0 < hi.airy()[0] and ball.airy()[1] > 0)
        sign_ok = (ball.airy()[2] < 0) if form["Bi(a1)_sign"] < 0 else (ball.airy()[2] > 0)
        pl, ph = form["Ai_positive_on"]
        pos, boxes = _positive_on(lambda b: b.airy()[0], pl, ph)
        bi = ball.airy()[2]
    finally:
        flint.ctx.prec = old
    ok = zero and sign_ok and pos and ph >= 0 and pl <= blo + (bhi - blo)
    return Outcome(ok, "certified (arb balls, python-flint) + classical", f"one zero of Ai in [{blo}, {bhi}] (sign change, "
                   f"Ai' > 0 there): {zero}; Bi on that ball = {bi.str(6)} (stated sign {form['Bi(a1)_sign']:+d}): {sign_ok}; "
                   f"Ai > 0 on [{pl}, {ph}]: {pos} ({boxes} boxes)",
                   strength="certified", checked_domain=f"z in [{blo}, 0] (arb, 128 bits); z > 0 and the limits z -> oo are "
                   "classical (DLMF 9.6.1, 10.32.9, 9.7.5-9.7.8), cited, not checked")


# --- Prop. 3: the trichotomy of the descending line -----------------------------------------------

#: the fate of the descending line as the side of S it starts on: -1 below S (reaches the axis), 0 on S, +1 above
#: (meets a zero of φ, crossing C)
_SIDE = {"axis": -1, "S": 0, "C": 1}
_FATE = {v: k for k, v in _SIDE.items()}


def _trich_printed():
    return {key: _SIDE[fate] for key, fate in sr3.TRICHOTOMY.items()}


def _trich_mutant():
    t = _trich_printed()
    t[(True, -1)] = -1                   # beta < 0 would reach the axis
    return t


@claim("r3.trichotomy", ref=REF, title="The descending gradient line of U: axis, separatrix or C (Prop. 3)",
       statement=r"For $e_0 \neq 0$ the descending line ($z$ increasing) from $(z_0, \ell_0)$ reaches the $a$-axis iff "
                 r"$z_0 > a_1$ and $\beta > 0$, is the separatrix $S$ ($\varphi \propto \mathrm{Ai}$, $a \to -\infty$, $y \to 0$) "
                 r"iff $z_0 > a_1$ and $\beta = 0$, and otherwise meets a zero of $\varphi$ (crossing $C$ first when $U_0 > 0$); "
                 r"$S$ is the graph $e^2 = y_S(a)$ over all $a$ and the lines below it reach the axis.",
       printed=_trich_printed, mutant=_trich_mutant, uses=("r3.exact_facts", "r3.airy_facts"),
       section=SECTION, domain="(e_0, a_0) in R^2, e_0 != 0")
def _trichotomy(form, ctx):
    """Proof: `basins_r3.fate_rule` (the argument of Prop. 3 from the derived linearisation identities and the
    Airy facts) and `S_side_rule` (β = π Ai (ℓ - ℓ_S), ℓ_S decreasing) on all 6 cases (z0 > a_1 or not, sign β),
    against the stated table. Corroboration: the numeric fate (sign of β at high precision) at 12 points
    e^2 = y_S(a)(1 ± 1/10) is 'axis' exactly below S."""
    airy = {k: True for k in sr3.AIRY_FACTS}
    diff = []
    for key, stated in form.items():
        rule = sr3.fate_rule(*key, airy)
        side = sr3.S_side_rule(*key, airy)
        fate = _FATE.get(stated, f"side {stated}")
        if rule != fate or side != stated:
            diff.append(f"{key}: stated {fate}, rule {rule} (S side {side})")
    bad = []
    for a0 in (Fraction(-1), Fraction(-1, 2), Fraction(0), Fraction(1, 2), Fraction(1), Fraction(3, 2)):
        with mp.workdps(40):
            yS = nr3.sep_y(a0, dps=30)
            for fac, want in ((Fraction(9, 10), "axis"), (Fraction(11, 10), "crosses C")):
                e0 = nr3.frac_of(mp.sqrt(yS * fac.numerator / fac.denominator))
                got = nr3.descent_fate(e0, a0, dps=30)["fate"]
                if (got == "axis") != (want == "axis"):
                    bad.append((str(a0), str(fac), got))
    return Outcome(not diff and not bad, "symbolic (exhaustive case analysis over proved steps)",
                   f"the stated table and the rule agree on {len(form) - len(diff)}/{len(form)} cases"
                   + (f"; differ: {diff}" if diff else ""), strength="proved",
                   checked_domain="every (z0, ℓ0) with e0 != 0 (6 cases of z0 vs a_1 and sign β)",
                   corroboration=f"12 points e^2 = y_S(a)(1 ± 1/10), a in [-1, 3/2]: numeric fate 'axis' exactly below S: "
                                 f"{not bad}" + (f" (failures {bad})" if bad else ""))


@claim("r3.lemma_c", ref=REF_11, title="Lemma C: comparison bounds along the gradient lines of U",
       statement=r"Along the lines $d(y^2)/da = 8 + 16ay$. If $0 < y_0 \le Y$, $a_0 \ge a_{lo}$, $m \ge 0$, $16mY < 8$ and "
                 r"$a_{lo} - D > -m$ with $D = Y^2/(8 - 16mY)$, the descending line from $(a_0, y_0)$ reaches the axis and "
                 r"$\Delta = e_0^2 - 2a_0^2 + 2a_\infty^2 \le \bar D = Y + 2D^2 + 4\max(0, -a_{lo})D$.",
       printed=lambda: {"D": sr3.Y**2 / (8 - 16 * sr3.m_ * sr3.Y),
                        "Dbar": sr3.Y + 2 * sp.Symbol("D")**2 + 4 * sp.Max(0, -sr3.a_lo) * sp.Symbol("D")},
       mutant=lambda: {"D": sr3.Y**2 / (8 - 16 * sr3.m_ * sr3.Y),
                       "Dbar": sr3.Y + sp.Symbol("D")**2 + 4 * sp.Max(0, -sr3.a_lo) * sp.Symbol("D")},
       uses=("r3.exact_facts",), section=SECTION, domain="the hypotheses of the statement")
def _lemma_c(form, ctx):
    """The printed D and Dbar against `basins_r3.lemma_c` (D solved from the worst rate; Δ <= Dbar from three
    gaps that are nonnegative for nonnegative parameters, exact); Δ in d = a0 - a_inf expanded exactly."""
    lc = sr3.lemma_c()
    Dp = sp.sympify(form["D"])
    Dbar = sp.sympify(form["Dbar"]).subs(sp.Symbol("D"), Dp)
    same = sp.simplify(Dp - lc["D"]) == 0 and sp.simplify(Dbar - lc["Dbar"]) == 0
    ok = same and all(lc["checks"].values())
    return Outcome(ok, "symbolic (exact)", f"D, Dbar equal the derived ones: {same}; the gaps of Dbar - Δ nonnegative "
                   f"and the rate floor: {all(lc['checks'].values())}", strength="proved",
                   checked_domain="all parameters satisfying the hypotheses (exact)")


# --- Theorems A and B ---------------------------------------------------------------------------------

def _mutate_sets(sets, cls, atom_from, atom_to):
    out = []
    for c, pieces in sets:
        if c == cls and pieces is not None:
            pieces = tuple(tuple(atom_to if at == atom_from else at for at in pc) for pc in pieces)
        out.append((c, pieces))
    return tuple(out)


_CHAINS = {1: (Fraction(9, 10), Fraction(9, 10)), -1: (Fraction(1, 10), Fraction(1, 10))}


@lru_cache(maxsize=None)
def _corroboration(regime: int) -> tuple:
    """Predicted (characterisation) against integrated (repository integrator, 30 digits) classes on a small
    start set: both sides of each boundary part at distance 10^-4 and 4 random exact starts in [-2, 2]^3."""
    p, q = _CHAINS[regime]
    rows = []
    for r in nr3.boundary_starts(regime, ks=(4,)):
        if r["part"] == "S" and r["theta"][1] != 0:
            continue                                 # one w0 per side of S keeps the module fast
        rows.append((f"{r['part']} {r['side']}", r["theta"]))
    rng = random.Random(zlib.crc32(f"r3.basins/{regime}".encode()))
    for _ in range(4):
        rows.append(("random", tuple(Fraction(rng.randint(-2000, 2000), 1000) for _ in range(3))))
    out = []
    for label, th in rows:
        c = nr3.compare_R3(p, q, th, dps=30, limit=False)
        out.append((label, c["predicted"], c["integrated"]))
    return tuple(out)


def _basins_check(form, ctx, regime):
    """Proof: the stated sets (read on a sign datum: e0 = 0 or not, sign U, the side of S, the piece of the
    w-line, the race and C-race signs) give the class of `limit_rule_r3` (the proof of Thms A, B, C from the
    derived facts) on every sign datum (exhaustive). Corroboration: predicted vs integrated classes."""
    facts = sr3.r3_facts().expressions
    data = sr3.sign_data()
    diff = []
    for d in data:
        try:
            rule = sr3.limit_rule_r3(regime, d, facts)
        except ValueError as ex:
            diff.append(f"{d}: rule undecided ({ex})")
            continue
        got = sr3.set_class_r3(regime, d, sets=form, facts=facts)
        if got != rule:
            diff.append(f"{d}: sets say {got}, the rule {rule}")
    rows = _corroboration(regime)
    mism = [r for r in rows if r[1] != r[2]]
    p, q = _CHAINS[regime]
    return Outcome(not diff and not mism, "symbolic (exhaustive case analysis over proved steps)",
                   f"the stated sets and the limit rule agree on {len(data) - len(diff)}/{len(data)} sign data"
                   + (f"; first differences: {diff[:2]}" if diff else ""), strength="proved",
                   checked_domain="every start in R^3, every (p, q) of the regime (the rule and the sets depend on (p, q) "
                                  "only through sign(p+q-1))",
                   corroboration=f"(p, q) = ({p}, {q}): {len(rows)} starts (both sides of each boundary part at 10^-4: "
                                 f"{', '.join(sorted({r[0].split()[0] for r in rows if r[0] != 'random'}))}; 4 random in "
                                 f"[-2, 2]^3), predicted class == integrated class (30 digits): {len(rows) - len(mism)}/{len(rows)}"
                                 + (f"; mismatches {mism}" if mism else "")
                                 + "; classes " + ", ".join(f"{lab}: {pc}" for lab, pc, _ in rows))


# the critical points enter through S19 of r3.exact_facts (∇A = 0 iff e = 0 or U = V = 0, exact), not through
# thm10.critical_points (whose comparison with the printed sets is sampled)
_USES_AB = ("r3.exact_facts", "r3.trichotomy", "lemma14.energy", "structure.G_convex", "structure.G_prime")


@claim("r3.basins_A", ref=REF_A, title="Basins of GF-Attention in R^3 for p+q > 1 (Thm A)",
       statement=r"$p+q>1$: the limit is a local minimum iff $\theta_0 \in I_{\min} = \{e \neq 0, e^2 < y_S(a), w > w_c(e, a)\} "
                 r"\cup \{e = 0, w > -1/\sqrt2\}$; a saddle on $\{e^2 < y_S, w = w_c\} \cup \{e = 0, w = -1/\sqrt2\}$; a station "
                 r"on the C-race ties ($U > 0$ above $S$ with $w = w_{st} \in B_{mid}$, $U < 0$ with $w = w_{st} \in B_{low}$, "
                 r"$\Theta_{station}$); a local maximum iff $e = 0$, $w < -1/\sqrt2$; the trajectory is unbounded on "
                 r"$\mathcal U = \{e \neq 0, e^2 = y_S(a), w \ge 0\}$; a global minimum otherwise. Here $w_c \in (-1/\sqrt2, 0)$ "
                 r"solves $f(w_c) = E_{sad} - \Delta$, $\Delta = e^2 - 2a^2 + 2a_\infty^2$.",
       printed=lambda: sr3.THEOREM_A, mutant=lambda: _mutate_sets(sr3.THEOREM_A, "local_min", ("w-w_c", ">0"), ("w-w_c", "<0")),
       uses=_USES_AB, section=SECTION, domain="every (p, q) in (0,1)^2 with p+q > 1; every theta_0 in R^3")
def _thm_a(form, ctx):
    return _basins_check(form, ctx, 1)


@claim("r3.basins_B", ref=REF_B, title="Basins of GF-Attention in R^3 for p+q < 1 (Thm B)",
       statement=r"$p+q<1$: every trajectory converges; the limit is a local minimum iff $\theta_0 \in \{e \neq 0, e^2 < y_S(a), "
                 r"w < w_c'(e, a)\} \cup \{e = 0, w < -1/\sqrt2\}$ ($w_c' < -1/\sqrt2$ solves $f(w_c') = E_{sad} - \Delta$); a "
                 r"saddle on the tie $w = w_c'$ (and $e = 0$, $w = -1/\sqrt2$); a station on the C-race ties ($U > 0$ above $S$ "
                 r"with $w_{st} \in B_{low}$, $U < 0$ with $w_{st} \in B_{mid}$, $\Theta_{station}$); a local maximum iff $e = 0$, "
                 r"$w > -1/\sqrt2$; a global minimum otherwise.",
       printed=lambda: sr3.THEOREM_B, mutant=lambda: _mutate_sets(sr3.THEOREM_B, "local_min", ("w-w_c'", "<0"), ("w-w_c'", ">0")),
       uses=_USES_AB, section=SECTION, domain="every (p, q) in (0,1)^2 with p+q < 1; every theta_0 in R^3")
def _thm_b(form, ctx):
    return _basins_check(form, ctx, -1)


# --- the erratum to Lemma 15 / Thm 3 ------------------------------------------------------------------

#: "every trajectory converges, except from the starts on S (e != 0, e^2 = y_S(a)) whose w0 lies on these pieces of
#: the w-line (`basins.W_SIDES`)", per regime
_PRINTED_EXEMPT = {"p+q>1": frozenset(), "p+q<1": frozenset()}
_CORRECTED_EXEMPT = {"p+q>1": frozenset({"w>0", "w=0"}), "p+q<1": frozenset()}
_MUTANT_EXEMPT = {"p+q>1": frozenset(sr3.W_SIDES), "p+q<1": frozenset()}      # S x R: w0 < 0 on S converges


def _exempt(form, regime, d) -> bool:
    return (not d.e_zero) and d.S_side == 0 and d.w_side in form["p+q>1" if regime > 0 else "p+q<1"]


@lru_cache(maxsize=None)
def _divergent_flow(dps: int = 40, t_max: int = 30):
    """The flow from a start on S (e0 = sqrt(y_S(0)) to dps + 15 digits, w0 = 1/2, a0 = 0; p = q = 9/10) to t_max."""
    from local2global.numeric.dynamics.flow import ReducedFlow
    from local2global.numeric.evaluate.landscape import Landscape
    p, q = _CHAINS[1]
    with mp.workdps(dps + 20):
        e0 = nr3.frac_of(mp.sqrt(nr3.sep_y(Fraction(0), dps=dps + 15)))
    th0 = (e0, Fraction(1, 2), Fraction(0))
    res = ReducedFlow(p, q, attention=True).run(th0, dps=dps, t_max=t_max, max_steps=20000)
    ls = Landscape(p, q, attention=True)
    with mp.workdps(dps + 10):
        ee, ww, aa = res.theta
        gap = ee**2 - nr3.sep_y(nr3.frac_of(aa), dps=dps - 5)
        G0 = ls.G_prime(mp.mpf(0))
        law = -mp.cbrt(3 * G0 * res.t / 4)
        off = mp.nstr((mp.mpf(e0.numerator) / e0.denominator) ** 2 - nr3.sep_y(Fraction(0), dps=dps + 15), 2)
        out = {"status": res.status, "t": mp.nstr(res.t, 4), "a": mp.nstr(aa, 6), "w": mp.nstr(ww, 4), "e": mp.nstr(ee, 6),
               "gap": mp.nstr(gap, 2), "law": mp.nstr(law, 4), "off": off,
               "grad": mp.nstr(max(abs(x) for x in ls.grad(res.theta)), 3),
               # what the corroboration requires: not converged by t_max, a below -3/2, still within 10^-6 of S
               "follows_S": res.status == "t_max" and aa < mp.mpf(-3) / 2 and abs(gap) < mp.mpf(10) ** -6}
    # inside S at e-distance 10^-k the limit is a local minimum (0, w_lim, a_inf) with a_inf -> -oo as k grows
    ainf = []
    for k in (10, 20, 40):
        with mp.workdps(k + 40):
            ek = nr3.frac_of(mp.sqrt(nr3.sep_y(Fraction(0), dps=k + 30))) - Fraction(1, 10**k)
        ainf.append((k, nr3.a_inf(ek, Fraction(0), dps=k + 20)))
    out["a_inf_decreasing"] = all(x[1] > y[1] for x, y in zip(ainf, ainf[1:]))
    out["a_inf"] = [(k, mp.nstr(v, 4)) for k, v in ainf]
    return out


def _convergence_check(form, ctx):
    """form: regime -> the pieces of the w-line whose starts on S are exempt from 'converges'. Proof: the sign data on which the limit rule
    says 'unbounded' (and only those) must be the exempt ones, in both regimes. Evidence: a flow started on S."""
    facts = sr3.r3_facts().expressions
    diff = []
    for regime in (1, -1):
        for d in sr3.sign_data():
            unb = sr3.limit_rule_r3(regime, d, facts) == "unbounded"
            if unb != _exempt(form, regime, d):
                diff.append(f"regime {regime:+d}, {d}: rule {'unbounded' if unb else 'converges'}, statement "
                            f"{'exempt' if _exempt(form, regime, d) else 'converges'}")
    fl = _divergent_flow()
    ev = (f"flow from the rational start (e_0, 1/2, 0) with e_0^2 - y_S(0) = {fl['off']} (p = q = 9/10, 40 digits): "
          f"at t = {fl['t']} (status {fl['status']}) it still follows S: a = {fl['a']} (the law -(3G'(0)t/4)^(1/3) = "
          f"{fl['law']}), w = {fl['w']}, e^2 - y_S(a) = {fl['gap']}, |grad L| = {fl['grad']}; inside S at e-distance "
          f"10^-k (a_0 = 0) the limit (0, w_lim, a_inf) has a_inf = " + ", ".join(f"{v} (k = {k})" for k, v in fl["a_inf"]))
    num_ok = fl["follows_S"] and fl["a_inf_decreasing"]
    return Outcome(not diff and num_ok, "symbolic (exhaustive case analysis over proved steps)",
                   ("the statement and the limit rule agree on every sign datum of both regimes" if not diff else
                    f"{len(diff)} sign data differ, e.g. {diff[0]}") + "; " + ev, strength="proved",
                   checked_domain="every start in R^3, both regimes",
                   corroboration=ev + ("" if num_ok else " -- FAILED: the flow does not follow S or a_inf does not decrease"))


@claim("r3.lemma15_thm3", ref=REF_ERR, title="Not every GF-Attention trajectory converges",
       statement=r"Printed (Lemma 15, Thm 3): for every $\theta_0 \in \mathbb{R}^3$ the flow converges to a critical point. "
                 r"Corrected: it converges iff $\theta_0 \notin \mathcal U = S \times [0, \infty) = \{e \neq 0, e^2 = y_S(a), "
                 r"w \ge 0\}$ for $p+q>1$ (always for $p+q<1$); on $\mathcal U$, $a(t) \to -\infty$, $e \to 0$, $w \to 0^+$, "
                 r"$L \downarrow G(0)$.",
       printed=lambda: dict(_PRINTED_EXEMPT), corrected=lambda: dict(_CORRECTED_EXEMPT), mutant=lambda: dict(_MUTANT_EXEMPT),
       erratum=r"For p+q > 1 the flow from every start on the measure-zero surface S x [0, oo) (S the separatrix "
               r"e^2 = y_S(a), given by Airy functions) is unbounded: a -> -oo like t^(1/3), e -> 0, w -> 0+. "
               r"Lojasiewicz's inequality gives convergence only of bounded trajectories.",
       uses=("r3.basins_A", "r3.basins_B"), section=SECTION, domain=D_R3)
def _lemma15_thm3(form, ctx):
    return _convergence_check(form, ctx)


# --- Thm 11, precise ----------------------------------------------------------------------------------

def _thm11_printed():
    return {"uniform": (Fraction(1, 10), Fraction(29, 10**9)), "at": (Fraction(1, 10), Fraction(4451, 10**12)),
            "below1_at": (Fraction(1, 10), Fraction(1, 10**12))}


def _thm11_mutant():
    f = _thm11_printed()
    f["at"] = (Fraction(1, 10), Fraction(1, 10**10))    # false: 1 - P_min(1/10) = 3.72...e-9 (quadrature, NOTE §7)
    return f


@claim("thm11.precise", ref=REF_11, title="Small Gaussian initialisation: certified P(local minimum)",
       statement=r"$\theta_0 \sim N(0, \sigma^2 I_3)$. For $p+q>1$: $P(\theta_{\lim}\text{ is a local minimum}) \ge 1 - 2.9\cdot"
                 r"10^{-8}$ for every $\sigma \le 1/10$, and $\ge 1 - 4.451\cdot10^{-9}$ at $\sigma = 1/10$. For $p+q<1$: "
                 r"$P \le \tfrac12\mathrm{erfc}(1/(2\sigma)) \le 10^{-12}$ at $\sigma = 1/10$.",
       printed=_thm11_printed, mutant=_thm11_mutant, uses=("r3.basins_A", "r3.basins_B", "r3.lemma_c"),
       section=SECTION, domain="sigma <= 1/10 (uniform bound), sigma = 1/10 (pointwise); every (p, q) of the regime")
def _thm11(form, ctx):
    """arb (128 bits): the certified cells of Lemma C (`prob_r3.design_cells`: |e| <= 4/5 in steps 1/100, a in
    [-2, 2] in steps 1/20), each weighted by P(w0 > w_c(Dbar)) (w_c increasing in Δ); mass outside the cells
    counts as failure. ε_mono(σ0) bounds 1 - P_min(σ) for all σ <= σ0 (each term increases in σ). For p+q < 1,
    I_min ⊂ {w < -1/√2}. A bound holds if its arb ball lies on the right side of the stated number."""
    s0, eps0 = form["uniform"]
    s1, eps1 = form["at"]
    s2, ub2 = form["below1_at"]
    mono = pr3.monotone_bound(s0)
    lb = pr3.lower_bound(s1)
    ub = pr3.upper_bound_below1(s2)
    q = lambda x: pr3._ball(x)                                       # noqa: E731
    ok_mono = bool(mono["eps_mono"] < q(eps0))
    ok_lb = bool(lb["LB"] > 1 - q(eps1))
    ok_ub = bool(ub["UB"] < q(ub2))
    # corroboration: the corners of 3 seeded cells reach the axis (numeric fate), as Lemma C certifies
    rng = random.Random(zlib.crc32(b"thm11.precise"))
    cells = pr3.design_cells()
    corners_ok = all(nr3.descent_fate(c[1], c[2], dps=30)["fate"] == "axis" and
                     nr3.descent_fate(c[1], c[3], dps=30)["fate"] == "axis"
                     for c in (cells[rng.randrange(len(cells))] for _ in range(3)) if c[0] >= 0)
    return Outcome(ok_mono and ok_lb and ok_ub and corners_ok, "certified (arb balls, python-flint, 128 bits)",
                   f"p+q>1: eps_mono({s0}) in {mono['eps_mono'].str(5)} < {float(eps0):.3g}: {ok_mono}; LB({s1}) in "
                   f"{lb['LB'].str(20)} (1 - LB in {lb['eps'].str(5)}; outside the cells {lb['eps_uncovered'].str(3)}, race "
                   f"{lb['eps_race'].str(3)}) > 1 - {float(eps1):.4g}: {ok_lb}; p+q<1: P(w0 < -1/sqrt2) at sigma = {s2} in "
                   f"{ub['UB'].str(5)} < {float(ub2):.3g}: {ok_ub}",
                   strength="certified",
                   checked_domain=f"{lb['cells']} Lemma C cells (|e| <= 4/5 in steps 1/100, a in [-2, 2] in steps 1/20) and "
                                  f"{mono['slabs']} symmetric slabs (|a| <= A_i <= 6/5); sigma <= {s0}; the rest of R^3 counted "
                                  "as failure",
                   corroboration=f"the upper corners of 3 seeded cells reach the axis (numeric fate, 30 digits): {corners_ok}"
                   if corners_ok else "FAILED: a certified cell corner does not reach the axis")
