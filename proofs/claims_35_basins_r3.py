r"""Claims of our R^3 result (issue 16; Sec. 4.1, App. G): the basins of GF-Attention in R^3 (Thms A, B), the
erratum to Lemma 15 / Thm 3 (a measure-zero set of starts diverges for p+q > 1) and Thm 11 made precise (a
certified lower bound on P(local minimum) under Gaussian initialisation).

The proof runs as steps with `uses` edges: the exact identities the characterisation rests on (S1-S19 of the
research note, every one compared with the object derived from `canonical_model(True)` in
`symbolic.basins_r3`), the Airy facts (arb on a compact part, DLMF's error bounds for the asymptotic expansions
beyond it, cited), the trichotomy of the descending gradient lines of U (Prop. 3: the fate of each case derived
from the established facts), Lemma C (its bound derived), and the derivation of the limit of every flow
(`basins_r3.derive_limit_r3`: computed facts, the arguments it applies written out as argued steps, the classes of
the derived critical sets), against which the stated sets are compared on every sign datum. Integrated
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

from local2global.numeric.precision import working
from local2global.numeric.dynamics import basins_r3 as nr3
from local2global.numeric.dynamics import prob_r3 as pr3
from local2global.proofs import _steps as steps
from local2global.proofs._registry import Outcome, claim
from local2global.symbolic import basins_r3 as sr3
from local2global.symbolic import symbols as S
from local2global.symbolic.model import canonical_model
from local2global.symbolic.sets import replace_condition

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


#: what each fact of `_fact_residuals` states (the step's sentence; mathematics in LaTeX)
_FACT_STATES = {
    "S1": r"$E = h + f$ with $h = e^2 - 2a^2$, $f(w) = -(w^2 + \mathrm{sign}(w)\log|w|)$ is the derived energy and is "
          r"conserved: $\nabla E\cdot\dot\theta = 0$",
    "S2": r"$A = UV$ and $(\dot e, \dot a) = -G'(A)\,V\,\nabla U$",
    "S3": r"$\dot w = -4G'(A)\,U|w|$",
    "S4": r"$\tfrac{d}{dt}f(w) = 4G'(A)\,UV$",
    "S5": r"$f'(w) = -(2w + 1/|w|)$",
    "S6": r"$\nabla h\cdot\nabla U = 4U$ and $h$ is the derived $E - f$",
    "S7": r"$\nabla U = (2e(1 + 2ae^2),\ e^4)$ and $U$ is the derived slope factor",
    "S8": r"the gradient lines of $U$ in $(a, y = e^2)$ are those of the field $y\,\partial_a + (8ay + 4)\,\partial_y$",
    "S9": r"along the lines $d(y^2)/da = 8 + 16ay$",
    "S10": r"$\ell = 2^{2/3}a$, $z = \ell^2 - 2^{-2/3}e^2$ turn the lines into $d\ell/dz = z - \ell^2$",
    "S11": r"$h$, $1 + ae^2$ (the curve $C$) and $1 + 2ae^2$ (the nullcline $N$) in $(z, \ell)$; $h = -2a^2$ on the axis",
    "S12": r"the first integral $I = (\ell\mathrm{Ai} - \mathrm{Ai}')/(\ell\mathrm{Bi} - \mathrm{Bi}')$; $q' = -\varphi^2$, "
           r"$y\varphi^2 = 2^{2/3}q$ and $U$ in terms of $\varphi$",
    "S13": r"$\alpha = \pi(\mathrm{Bi}' - \ell_0\mathrm{Bi})$, $\beta = \pi(\ell_0\mathrm{Ai} - \mathrm{Ai}')$ and "
           r"$W(\mathrm{Ai}, \mathrm{Bi}) = 1/\pi$, $W' = 0$",
    "S14": r"the cross term of the line coordinates at the axis (the Jacobian of Thm 11's quadrature)",
    "S15": r"$f^{-1}$ on each branch by Lambert $W$, and $E_{\mathrm{sad}} = -(1 + \log 2)/2$",
    "S16": r"$y_S = -1/(2a) - 1/(32a^4) + o(a^{-5})$ solves the Abel equation as $a \to -\infty$",
    "S17": r"$d(y^2)/da = 8$ on the axis",
    "S18": r"$\Theta_{\mathrm{station}}$: $V(-1/\sqrt2) = 0$ and $U = 0$ at $a = -1/e^2$",
    "S19": r"$\nabla A = 0$ iff $e = 0$ or $U = V = 0$ (so every critical point off $\Theta^\star$ has $A = 0$)",
}
_AIRY_FUNCS = (sp.airyai, sp.airyaiprime, sp.airybi, sp.airybiprime)


def _obligations(rs, label: str) -> list:
    """An `== 0` obligation per residual that is an expression (numbers 0/1 encode decided booleans: none)."""
    out = []
    for k, r in enumerate(rs):
        r = sp.sympify(r)
        if r.free_symbols:
            out.append(steps.Obligation("== 0", r, label=f"{label}#{k}"))
    return out


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
    replacing Ai, Ai', Bi, Bi' by symbols, with the Wronskian where it is needed; S16 by an exact limit), one
    step per fact (both half-spaces of w in one step where the fact has two)."""
    res = _fact_residuals(form)
    groups: dict[str, list] = {}
    for key, rs in res.items():
        groups.setdefault(key.split("[")[0], []).append((key, rs))
    out = []
    for sid, parts in groups.items():
        rs = [r for _, r_list in parts for r in r_list]
        bad = [key for key, r_list in parts if any(_nonzero(r) for r in r_list)]
        airy = any(sp.sympify(r).has(*_AIRY_FUNCS) for r in rs)
        halves = [key.split("[")[1].rstrip("]") for key, _ in parts if "[" in key]
        method = ("SymPy: the residuals with Ai, Ai', Bi, Bi' replaced by symbols after differentiation (Ai'' = z Ai), "
                  "the Wronskian where needed, cancelled to 0" if airy else
                  "SymPy: the residuals expanded and cancelled (logarithms expanded) to 0")
        if sid == "S16":
            method += "; the Abel residual of y_S times a^5 has a finite limit as a -> -oo"
        if sid == "S19":
            method += "; the roots of V solved on both half-lines; the families of grad A = 0 substituted"
        vals = [("identities", str(len(rs)))] + ([("failing", ", ".join(bad))] if bad else [])
        out.append(steps.exact(
            _FACT_STATES[sid] + (f" (on {' and '.join(halves)})" if halves else ""), not bad, method=method,
            domain="both half-spaces w > 0, w < 0" if halves else "the whole stated domain (e != 0 for the Airy "
                   "coordinates)", values=vals, obligations=_obligations(rs, sid)))
    return Outcome.of(*out)


# --- the classical Airy facts ---------------------------------------------------------------------

A1_BALL = (Fraction(-233811, 100000), Fraction(-233810, 100000))
#: the limits as z -> +oo the statement gives (what `airy_tail` derives for them)
AIRY_LIMITS = {"Bi/Ai": "+oo", "q_S": "0", "Bi'^2-zBi^2": "-oo", "Ai'/Ai": "-oo"}
_AIRY_BITS = 128


def _airy_printed():
    return {"a1_in": A1_BALL, "Bi(a1)_sign": -1, "limits": dict(AIRY_LIMITS)}


def _airy_mutant():
    return {"a1_in": A1_BALL, "Bi(a1)_sign": 1, "limits": dict(AIRY_LIMITS)}


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


def _arb_of(x: Fraction):
    import flint
    return flint.arb(flint.fmpq(x.numerator, x.denominator))


def _ball_text(x, digits: int = 6) -> str:
    """An arb ball as its outward-rounded decimal interval."""
    lo, hi = pr3.ball_interval(x, digits)
    return f"[{lo}, {hi}]"


def _frac_text(x: Fraction) -> str:
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def _tex(x) -> str:
    """An expression for a reader: LaTeX in $...$ (the printers render it)."""
    return f"${sp.latex(sp.sympify(x))}$"


@lru_cache(maxsize=None)
def _airy_check(ball: tuple, bi_sign: int, limits: tuple) -> tuple:
    """The steps that establish the Airy facts for the statement (a_1 in `ball`, sign Bi(a_1) = bi_sign, the limits
    `limits`), and the facts established (`sr3.AIRY_FACTS` -> bool, whatever the statement claims). arb (128 bits) on
    [lo, 1]; on z >= 1 the bounds of `sr3.airy_tail` (DLMF §9.7(iv), cited) with their exact consequences."""
    import flint
    tail = sr3.airy_tail()
    chk = tail["checks"]
    Z = Fraction(int(sr3.Z_TAIL))
    blo, bhi = ball
    out = []
    old = flint.ctx.prec
    flint.ctx.prec = _AIRY_BITS
    try:
        lo, hi = _arb_of(blo), _arb_of(bhi)
        mid, rad = (blo + bhi) / 2, (bhi - blo) / 2
        b = _arb_of(mid) + flint.arb(0, 1) * _arb_of(rad)
        ai_lo, ai_hi = lo.airy()[0], hi.airy()[0]
        aip_ball, bi_ball = b.airy()[1], b.airy()[2]
        zero = bool(ai_lo < 0 < ai_hi)
        aip_pos = bool(aip_ball > 0)
        bi_neg, bi_pos = bool(bi_ball < 0), bool(bi_ball > 0)
        pos, boxes = _positive_on(lambda x: x.airy()[0], bhi, Z)
        rho1 = flint.arb(5) * flint.arb.pi() / 48 * (flint.arb(5) * flint.arb.pi() / 48).exp()
        rho_ok = bool(rho1 < 1) and chk["rho_decreasing"]
        one = flint.arb(1)
        ai1 = one.airy()
        L1 = (flint.arb(2) / 3).exp() / flint.arb.pi().sqrt() * (1 - rho1)        # L(1) = e^(2/3)/sqrt(pi) (1 - rho)
        QB1 = ai1[3] ** 2 - ai1[2] ** 2
        L1_pos = bool(L1 > 0)
    finally:
        flint.ctx.prec = old
    dom_ball = f"[{_frac_text(blo)}, {_frac_text(bhi)}]"
    out.append(steps.interval(
        r"$\mathrm{Ai}$ has exactly one zero $a_1$ in the stated ball: $\mathrm{Ai}$ changes sign across it and "
        r"$\mathrm{Ai}' > 0$ on it", zero and aip_pos, method="arb balls (python-flint), 128 bits", domain=dom_ball,
        count=3, bits=_AIRY_BITS,
        values={"Ai at the left end": _ball_text(ai_lo), "Ai at the right end": _ball_text(ai_hi),
                "Ai' on the ball": _ball_text(aip_ball)}))
    out.append(steps.interval(
        r"$\mathrm{Bi}(a_1) " + ("< 0" if bi_sign < 0 else "> 0") + r"$: $\mathrm{Bi}$ has that sign on the ball",
        bi_neg if bi_sign < 0 else bi_pos, method="arb balls (python-flint), 128 bits", domain=dom_ball, count=1,
        bits=_AIRY_BITS, values={"Bi on the ball": _ball_text(bi_ball)}))
    out.append(steps.interval(
        rf"$\mathrm{{Ai}} > 0$ on $[{_frac_text(bhi)}, {_frac_text(Z)}]$", pos,
        method="arb balls (python-flint), 128 bits, adaptive bisection", domain=f"[{_frac_text(bhi)}, {_frac_text(Z)}]",
        count=boxes, bits=_AIRY_BITS, values={"boxes": str(boxes)}))
    out.append(steps.cited(
        r"$\mathrm{Ai}(z) \sim \frac{e^{-\zeta}}{2\sqrt\pi z^{1/4}}\sum_k (-1)^k\frac{u_k}{\zeta^k}$, "
        r"$\mathrm{Ai}'(z) \sim -\frac{z^{1/4}e^{-\zeta}}{2\sqrt\pi}\sum_k (-1)^k\frac{v_k}{\zeta^k}$, "
        r"$\mathrm{Bi}(z) \sim \frac{e^{\zeta}}{\sqrt\pi z^{1/4}}\sum_k \frac{u_k}{\zeta^k}$ with "
        r"$\zeta = \tfrac23 z^{3/2}$, $u_k = \frac{(2k+1)(2k+3)\cdots(6k-1)}{216^k k!}$, $v_k = \frac{6k+1}{1-6k}u_k$, "
        r"$\chi(n) = \sqrt\pi\,\Gamma(\tfrac n2 + 1)/\Gamma(\tfrac n2 + \tfrac12)$", sr3.DLMF_AIRY["expansions"]))
    out.append(steps.cited(
        r"For real $z > 0$ the remainder of the expansion of $\mathrm{Ai}$ after $n \ge 0$ terms, and of "
        r"$\mathrm{Ai}'$ after $n \ge 1$ terms, is bounded in magnitude by the first neglected term and has its sign; "
        r"the remainder of the expansion of $\mathrm{Bi}$ after $n \ge 1$ terms is bounded in magnitude by the first "
        r"neglected term times $2\chi(n)e^{5\pi/(72\zeta)}$", sr3.DLMF_AIRY["bounds"]))
    s_, t_ = tail["s"], sp.Symbol("t", nonnegative=True)
    at = {s_: sp.sqrt(sr3.Z_TAIL) + t_}
    out.append(steps.exact(
        r"$u_1 = 5/72$, $v_1 = -7/72$, $\chi(1) = \pi/2$, and for $z = s^2 \ge 1$: $1 - u_1/\zeta > 0$, so "
        r"$\mathrm{Ai}(z) \ge \frac{e^{-\zeta}}{2\sqrt\pi z^{1/4}}(1 - u_1/\zeta) > 0$ (the remainder after one term)",
        chk["u1"] and chk["v1"] and chk["chi1"] and chk["Ai_tail_positive"],
        method="SymPy: the coefficients from DLMF 9.7.2-9.7.3; the sign as a polynomial in s - 1 with nonnegative "
               "coefficients and a positive constant", domain=f"z >= {_frac_text(Z)}",
        values={"u_1": _tex(tail["u1"]), "v_1": _tex(tail["v1"]), "chi(1)": _tex(tail["chi1"]),
                "1 - u_1/zeta": _tex(tail["Ai_lower_factor"])},
        obligations=[steps.Obligation("> 0", sp.together(tail["Ai_lower_factor"].subs(at)), label="1 - u1/zeta")]))
    out.append(steps.interval(
        r"$\rho(\zeta) = 2\chi(1)e^{5\pi/(72\zeta)}u_1/\zeta$ decreases in $\zeta$ and $\rho(\zeta(1)) = "
        r"\tfrac{5\pi}{48}e^{5\pi/48} < 1$, so $\mathrm{Bi}(z) \ge L(z) = \frac{e^\zeta}{\sqrt\pi z^{1/4}}(1 - \rho(\zeta)) > 0$ "
        r"for $z \ge 1$", rho_ok, method="SymPy: the sign of d rho/d zeta; arb (128 bits) at zeta(1) = 2/3",
        domain="the point z = 1; the sign of the derivative for every zeta > 0", count=1, bits=_AIRY_BITS,
        values={"rho(zeta(1))": _ball_text(rho1)}))
    derived = {"Bi/Ai": "+oo" if chk["ratio_to_oo"] else "not shown", "q_S": "0" if chk["qS_to_0"] else "not shown",
               "Bi'^2-zBi^2": "-oo" if chk["QB_to_-oo"] and chk["QB_prime"] and chk["pref_B_increasing"] else "not shown",
               "Ai'/Ai": "-oo" if chk["log_derivative_to_-oo"] else "not shown"}
    stated = dict(limits)
    zt = tail["zeta_symbol"]
    lim_steps = [
        ("Bi/Ai", r"$\mathrm{Bi}/\mathrm{Ai} \ge 2e^{2\zeta}(1 - \rho(\zeta)) \to +\infty$ as $z \to \infty$ "
                  r"(the two bounds above)", tail["ratio_lower"], rho_ok,
         [steps.Obligation("< 0", sp.diff(tail["rho_of_zeta"], zt), label="d rho/d zeta")]),
        ("q_S", r"$|q_S| = |\mathrm{Ai}'^2 - z\mathrm{Ai}^2| \le \mathrm{Ai}'^2 + z\mathrm{Ai}^2 \le "
                r"\frac{z^{1/2}e^{-2\zeta}}{4\pi}\big((1 - v_1/\zeta)^2 + 1\big) \to 0$ (the remainders after one term)",
         tail["qS_bound"], True, []),
        ("Ai'/Ai", r"$\mathrm{Ai}'/\mathrm{Ai} \le -\frac{z^{1/4}e^{-\zeta}}{2\sqrt\pi}\Big/\frac{e^{-\zeta}}{2\sqrt\pi "
                   r"z^{1/4}} = -z^{1/2} \to -\infty$ (the remainders after one term)", tail["log_derivative_upper"], True, []),
        ("Bi'^2-zBi^2", r"$(\mathrm{Bi}'^2 - z\mathrm{Bi}^2)' = -\mathrm{Bi}^2$ and $L$ increases on $z \ge 1$, so "
                        r"$\mathrm{Bi}'^2 - z\mathrm{Bi}^2 \le Q_1 - (z - 1)L(1)^2 \to -\infty$ "
                        r"($Q_1 = \mathrm{Bi}'(1)^2 - \mathrm{Bi}(1)^2$)", tail["QB_bound"], rho_ok and L1_pos,
         [steps.Obligation("> 0", sp.together(tail["dlog_Bi_prefactor_ds"].subs(at)), label="log e^zeta z^(-1/4) increasing")]),
    ]
    for key, states, bound, premise, obls in lim_steps:
        ok = premise and derived[key] == stated.get(key)
        vals = {"bound": _tex(bound), "limit derived": derived[key], "limit stated": stated.get(key, "none")}
        if key == "Bi'^2-zBi^2":
            vals.update({"Q_1": _ball_text(QB1), "L(1)": _ball_text(L1)})
        out.append(steps.exact(states, ok, method="SymPy limit of the bound as s = √z -> oo", domain="z -> +oo",
                               values=vals, obligations=obls))
    established = {
        "Ai>0 on (a1,oo)": zero and aip_pos and pos and chk["Ai_tail_positive"],
        "Ai'(a1)>0": zero and aip_pos, "Bi(a1)<0": zero and bi_neg,
        "Bi/Ai->oo": derived["Bi/Ai"] == "+oo" and rho_ok, "q_S->0": derived["q_S"] == "0",
        "Bi'^2-zBi^2->-oo": derived["Bi'^2-zBi^2"] == "-oo" and rho_ok and L1_pos,
        "Ai'/Ai->-oo": derived["Ai'/Ai"] == "-oo",
    }
    return tuple(out), tuple(sorted(established.items()))


def _airy_key(form) -> tuple:
    return (tuple(form["a1_in"]), int(form["Bi(a1)_sign"]), tuple(sorted(form["limits"].items())))


def airy_established() -> dict:
    """The Airy facts as `r3.airy_facts` establishes them for its statement (`sr3.AIRY_FACTS` -> bool): what the
    trichotomy and the basins use, never assumed."""
    return dict(_airy_check(*_airy_key(_airy_printed()))[1])


@claim("r3.airy_facts", ref=REF, title="The Airy facts the trichotomy uses",
       statement=r"$a_1 \in [-2.33811, -2.33810]$ is the largest zero of $\mathrm{Ai}$: $\mathrm{Ai} > 0$ on $(a_1, \infty)$, "
                 r"$\mathrm{Ai}'(a_1) > 0$; $\mathrm{Bi}(a_1) < 0$; as $z \to \infty$: $\mathrm{Bi}/\mathrm{Ai} \to \infty$, "
                 r"$q_S = \mathrm{Ai}'^2 - z\mathrm{Ai}^2 \to 0$, $\mathrm{Bi}'^2 - z\mathrm{Bi}^2 \to -\infty$, "
                 r"$\mathrm{Ai}'/\mathrm{Ai} \to -\infty$.",
       printed=_airy_printed, mutant=_airy_mutant, section=SECTION, domain="z in R")
def _airy_facts(form, ctx):
    """arb (python-flint, 128 bits) on [a_1's ball, 1]: one zero of Ai in the ball (a sign change, Ai' > 0 there),
    the sign of Bi there, Ai > 0 on [hi, 1] by adaptive boxes. On z >= 1 the expansions DLMF 9.7.5-9.7.7 with the
    error bounds of DLMF §9.7(iv) (cited), their exact consequences (SymPy) and two arb values at z = 1; the
    stated limits compared with the derived ones."""
    out, _ = _airy_check(*_airy_key(form))
    Z = _frac_text(Fraction(int(sr3.Z_TAIL)))
    return Outcome.of(*out, checked_domain=f"z in [{_frac_text(form['a1_in'][0])}, {Z}] (arb, 128 bits); z >= {Z} "
                                           "by the error bounds of DLMF §9.7(iv) (cited)")


# --- Prop. 3: the trichotomy of the descending line -----------------------------------------------

#: the side of S each fate of the descending line means (the statement: below S the line reaches the axis, on S it
#: is S, above S it meets a zero of φ)
_SIDE = {"axis": -1, "S": 0, "C": 1}
_FATE_WORDS = {"axis": "reaches the $a$-axis", "S": "is the separatrix $S$", "C": r"meets a zero of $\varphi$ (crosses $C$)"}
_SIDE_WORDS = {-1: "below $S$", 0: "on $S$", 1: "above $S$"}


def _trich_printed():
    return dict(sr3.TRICHOTOMY)


def _trich_mutant():
    t = _trich_printed()
    t[(True, -1)] = "axis"               # beta < 0 would reach the axis
    return t


def _case_words(key) -> str:
    right, b = key
    return (r"$z_0 > a_1$" if right else r"$z_0 \le a_1$") + r", $\beta " + {1: "> 0", 0: "= 0", -1: "< 0"}[b] + "$"


@claim("r3.trichotomy", ref=REF, title="The descending gradient line of U: axis, separatrix or C (Prop. 3)",
       statement=r"For $e_0 \neq 0$ the descending line ($z$ increasing) from $(z_0, \ell_0)$ reaches the $a$-axis iff "
                 r"$z_0 > a_1$ and $\beta > 0$, is the separatrix $S$ ($\varphi \propto \mathrm{Ai}$, $a \to -\infty$, $y \to 0$) "
                 r"iff $z_0 > a_1$ and $\beta = 0$, and otherwise meets a zero of $\varphi$ (crossing $C$ first when $U_0 > 0$); "
                 r"$S$ is the graph $e^2 = y_S(a)$ over all $a$ and the lines below it reach the axis.",
       printed=_trich_printed, mutant=_trich_mutant, uses=("r3.exact_facts", "r3.airy_facts"),
       section=SECTION, domain="(e_0, a_0) in R^2, e_0 != 0")
def _trichotomy(form, ctx):
    """Proof: the first-event argument (argued, written out: `sr3.FIRST_EVENT_ARGUMENT`), and per case (z0 > a_1 or
    not, sign β) the fate and the side of S derived (`sr3.fate_derivation`, `sr3.S_side_derivation`: signs and limits
    computed by SymPy from the linearisation identities and the Airy facts as `r3.airy_facts` established them),
    against the stated table. Corroboration: the numeric fate (sign of β at high precision) at 12 points
    e^2 = y_S(a)(1 ± 1/10) is 'axis' exactly below S."""
    airy = airy_established()
    out = [steps.argued("Along the descending line the first event decides its fate: a zero of $\\varphi$ (a pole, "
                        "crossing $C$), a root of $q$ (the $a$-axis), or neither ($S$)", sr3.FIRST_EVENT_ARGUMENT)]
    for key in sr3.TRICHOTOMY_CASES:
        stated = form.get(key)
        try:
            fate, said, decided = sr3.fate_derivation(*key, airy)
            side, said_side, decided_side = sr3.S_side_derivation(*key, airy)
        except ValueError as ex:
            out.append(steps.exact(f"{_case_words(key)}: the fate of the descending line", False,
                                   method="SymPy: signs and limits", values={"not derived": str(ex)}))
            continue
        ok = stated == fate and side == _SIDE.get(stated)
        vals = [("", x) for x in said + said_side]
        if not ok:
            vals.append(("stated", f"{stated} ({_SIDE_WORDS.get(_SIDE.get(stated), 'no side')})"))
        out.append(steps.exact(
            f"{_case_words(key)}: the descending line {_FATE_WORDS[fate]} and the start lies {_SIDE_WORDS[side]}", ok,
            method="SymPy: signs (sign assumptions of beta, Ai(z0), Bi(a_1)) and limits (Bi/Ai -> oo as a symbol)",
            domain="every start with e0 != 0 in this case", values=vals,
            obligations=[steps.Obligation(rel, ex, unit_pq=False, label=lab) for rel, ex, lab in decided + decided_side]))
    bad = []
    for a0 in (Fraction(-1), Fraction(-1, 2), Fraction(0), Fraction(1, 2), Fraction(1), Fraction(3, 2)):
        with working(40, guard=False):
            yS = nr3.sep_y(a0, dps=30)
            for fac, want in ((Fraction(9, 10), "axis"), (Fraction(11, 10), "crosses C")):
                e0 = nr3.frac_of(mp.sqrt(yS * fac.numerator / fac.denominator))
                got = nr3.descent_fate(e0, a0, dps=30)["fate"]
                if (got == "axis") != (want == "axis"):
                    bad.append(f"a0 = {a0}, e0^2 = {fac} y_S: {got}")
    corr = steps.sampled("The numeric fate (the sign of $\\beta$ at high precision) is the $a$-axis exactly below $S$",
                         not bad, method="Airy functions in mpmath, the sign of beta with guard digits",
                         domain="12 points e0^2 = y_S(a0)(1 +- 1/10), a0 in {-1, -1/2, 0, 1/2, 1, 3/2}", count=12,
                         digits=30, values={"disagreements": "; ".join(bad) if bad else "none"})
    return Outcome.of(*out, corroboration=[corr], checked_domain="every (z0, l0) with e0 != 0 (the 6 cases of z0 "
                                                                 "against a_1 and the sign of beta)")


# --- Lemma C ----------------------------------------------------------------------------------------

_D_SYM = sp.Symbol("D")


def _lemma_c_printed():
    return {"D": sr3.Y**2 / (8 - 16 * sr3.m_ * sr3.Y),
            "Dbar": sr3.Y + 2 * _D_SYM**2 + 4 * sp.Max(0, -sr3.a_lo) * _D_SYM}


def _lemma_c_mutant():
    f = _lemma_c_printed()
    f["Dbar"] = sr3.Y + _D_SYM**2 + 4 * sp.Max(0, -sr3.a_lo) * _D_SYM       # D^2 in place of 2 D^2: false
    return f


def _gap_step(states: str, gaps) -> steps.Step:
    """The step "Dbar - Δ >= 0 on the box" from `sr3.lemma_c_gaps` (per case: the slack polynomial, shown or not,
    the corner value)."""
    ok = all(shown for _, _, shown, _ in gaps)
    vals = []
    for case, poly, shown, corner in gaps:
        vals.append((case, "a polynomial with nonnegative coefficients in the slack variables" if shown else
                     f"not shown; at y0 = Y, a0 = a_lo, d = D = 1 (A = 0) the gap is {_tex(corner)}"
                     + (" < 0: the bound is false" if corner.is_negative else "")))
    return steps.exact(states, ok, method="SymPy: the gap in slack variables (y0 = Y - g, a0 = a_lo + g, d = g, "
                                          "D = d + h, all >= 0), per sign of a_lo, expanded",
                       domain="0 < y0 <= Y, a0 >= a_lo, 0 <= d <= D, every a_lo", values=vals,
                       obligations=[steps.Obligation(">= 0", poly, label=case) for case, poly, _, _ in gaps])


@claim("r3.lemma_c", ref=REF_11, title="Lemma C: comparison bounds along the gradient lines of U",
       statement=r"Along the lines $d(y^2)/da = 8 + 16ay$. If $0 < y_0 \le Y$, $a_0 \ge a_{lo}$, $m \ge 0$, $16mY < 8$ and "
                 r"$a_{lo} - D > -m$ with $D = Y^2/(8 - 16mY)$, the descending line from $(a_0, y_0)$ reaches the axis and "
                 r"$\Delta = e_0^2 - 2a_0^2 + 2a_\infty^2 \le \bar D = Y + 2D^2 + 4\max(0, -a_{lo})D$.",
       printed=_lemma_c_printed, mutant=_lemma_c_mutant, uses=("r3.exact_facts",), section=SECTION,
       domain="the hypotheses of the statement")
def _lemma_c(form, ctx):
    """Proof: d(y^2)/da from the Abel field (exact); its infimum over {a >= -m, 0 < y <= Y} derived by monotonicity
    (exact); D solved from the worst rate; the comparison argument (argued); Δ in d = a0 - a_inf (exact); Dbar derived
    as the sum of the suprema of Δ's terms over the box, and Dbar - Δ >= 0 decided on the derived expression (exact,
    slack variables); the stated D and Dbar are the derived ones (a stated Dbar that is not gets its own gap check,
    which refutes a false one at a corner of the box); w_c increases with Δ (exact sign)."""
    lc = sr3.lemma_c()
    chk = lc["checks"]
    Yp, mp_, Dp = sr3._Y_POS, sr3._M_NONNEG, lc["D_symbol"]
    out = [steps.exact("$d(y^2)/da = 8 + 16ay$ along the gradient lines of $U$ (from the Abel field)", chk["dy2_da"],
                       values={"d(y^2)/da": _tex(lc["dy2_da"])},
                       obligations=[steps.Obligation.equal(lc["dy2_da"], 8 + 16 * sr3.a * sr3.y)])]
    region = [(sr3.a, -mp_, sp.oo), (sr3.y, 0, Yp)]
    out.append(steps.exact(
        "On $\\{a \\ge -m,\\ 0 < y \\le Y\\}$ ($m \\ge 0$) the rate $8 + 16ay$ is at least $8 - 16mY$, its value at "
        "$(a, y) = (-m, Y)$", chk["rate_floor"] and sp.expand(lc["rate"] - (8 - 16 * sr3.m_ * sr3.Y)) == 0,
        method="SymPy: the infimum by monotonicity in a, then in y; the gap in slack variables expanded",
        domain="a >= -m, 0 < y <= Y, m >= 0",
        values={"worst rate": _tex(lc["rate"]), "attained at": ", ".join(f"{v} = {x}" for v, x in lc["rate_at"])},
        obligations=[steps.Obligation(">= 0", sp.expand(lc["rate_gap"].xreplace(sr3._slack(region))),
                                      label="rate - worst rate")]))
    D_stated = sp.sympify(form["D"])
    D_same = sp.cancel(D_stated - lc["D"]) == 0
    out.append(steps.exact("$D = Y^2/(8 - 16mY)$ solves $Y^2 = (8 - 16mY)\\,D$: at the worst rate $y^2 \\le Y^2$ is "
                           "used up within a drop $D$ of $a$", chk["D_unique"] and D_same,
                           values={"D derived": _tex(lc["D"]), "D stated": _tex(D_stated)},
                           obligations=[steps.Obligation.equal(D_stated, lc["D"], label="D")]))
    out.append(steps.argued(
        "The descending line from $(a_0, y_0)$ reaches the $a$-axis with $d = a_0 - a_\\infty \\in (0, D]$",
        "Along the descending line (U decreasing) a decreases: da/dλ = U_a = e^4 > 0 with λ decreasing. The line is a "
        "graph y(a), and d(y^2)/da = 8 + 16ay > 0 wherever a >= -m and 0 < y <= Y (the worst rate 8 - 16mY is positive "
        "since 16mY < 8), so y^2 decreases as a decreases and y stays <= y0 <= Y. As long as a >= -m, y^2 falls by at "
        "least (8 - 16mY) per unit drop of a; it starts at y0^2 <= Y^2 = (8 - 16mY) D, so it reaches 0 before a has "
        "dropped by D. Since a0 - D >= a_lo - D > -m, a stays > -m up to that point, where the line meets the axis: "
        "d = a0 - a_inf lies in (0, D]. On the way 1 + 2ay >= 1 - 2mY > 0 (a >= -m, y <= Y), so the line stays below "
        "the nullcline N and off C."))
    Dd = lc["Delta_in_d"]
    out.append(steps.exact(r"$\Delta = y_0 - 4a_0d + 2d^2$ with $d = a_0 - a_\infty$ (the race's $\Delta$ at $e_0^2 = y_0$)",
                           sp.expand(Dd - (sr3.y0 - 4 * sr3.a0 * sr3.d_ + 2 * sr3.d_**2)) == 0,
                           values={"Delta": _tex(Dd)},
                           obligations=[steps.Obligation.equal(Dd, sr3.y0 - 4 * sr3.a0 * sr3.d_ + 2 * sr3.d_**2)]))
    sups = "; ".join(f"sup {_tex(t)} = {_tex(s_)}" for t, s_ in lc["term_suprema"])
    out.append(_gap_step(r"$\bar D$, the sum of the suprema of the terms of $\Delta$ over the box, bounds $\Delta$ "
                         r"there: $\bar D - \Delta \ge 0$ (decided on the derived $\bar D = "
                         + sp.latex(lc["Dbar_in_D"]) + "$)", lc["gaps"]))
    Dbar_stated = sp.sympify(form["Dbar"]).subs(_D_SYM, Dp)
    same = sp.simplify(Dbar_stated - lc["Dbar_in_D"]) == 0
    vals = {"derived": _tex(lc["Dbar_in_D"]), "stated": _tex(Dbar_stated), "term suprema": sups}
    out.append(steps.exact(r"The stated $\bar D$ is the derived one", same, method="SymPy: the difference simplified",
                           values=vals, obligations=[steps.Obligation.equal(Dbar_stated, lc["Dbar_in_D"], label="Dbar")]))
    if not same:
        out.append(_gap_step(r"The stated $\bar D$ bounds $\Delta$ on the box: $\bar D - \Delta \ge 0$",
                             sr3.lemma_c_gaps(Dbar_stated, Dd)))
    mono = lc["w_c_slope_factor"]
    out.append(steps.exact(r"$w_c$ increases with $\Delta$: $dw_c/d\Delta = -1/f'(w_c) > 0$ on $B_{\mathrm{mid}}$ "
                           r"($f'$ there is a negative factor)", chk["w_c_increasing_in_Delta"],
                           values={"f' on B_mid (s > 0)": _tex(mono)},
                           obligations=[steps.Obligation("< 0", mono, label="f' on B_mid")]))
    return Outcome.of(*out, checked_domain="all parameters satisfying the hypotheses (exact)")


# --- Theorems A and B ---------------------------------------------------------------------------------

def _mutated_sets(regime: int, threshold: str, op_from: str, op_to: str):
    """The stated sets with the condition w - threshold op_from 0 of I_min turned into op_to (the negative control)."""
    cond = S.w - sr3.QUANTITIES[threshold]
    return replace_condition(sr3.theorem_sets(regime), "I_min", (cond, op_from), (cond, op_to))


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


#: the facts of `sr3.r3_facts` in words (the names of the values of the step that lists them)
_FACT_WORDS = {
    "A_is_UV": "A = UV", "V_same_as_R2": "V is the slope factor 1 + 2w|w| of R^2",
    "G_sign_rule": "G strictly convex with G'(A*) = 0 (sign G'(A) = sign(A - A*))",
    "A_star_sign_is_minus_regime": "sign A* = -sign(p + q - 1)", "V_sign": "sign of V on the pieces of the w-line",
    "f_sign": "sign of f' on the pieces", "E_sad_minus_f_sign": "sign of E_sad - f on the pieces",
    "E_sad_minus_f_at_w_sad": "E_sad - f(w_sad)", "f(0+)": "f(0+)", "dlambda_dt": "dlambda/dt",
    "df_dt": "df(w)/dt", "limits": "U and h as l -> +oo and l -> -oo at fixed z (the poles of phi)",
    "critical_off_star_have_A_zero": "A = 0 on every critical family off Theta*",
    "e0_plane_critical": "grad A = 0 on the plane e = 0", "station_critical": "grad A = 0 on Theta_station",
    "U_on_N_for_a<0": "U on the nullcline N for a = -b < 0", "yN_minus_yC_for_a<0": "y_N - y_C for a = -b < 0",
    "h_on_S_end": "h at the descending end of S", "S_a_end": "a at the descending end of S",
}
_PIECE_WORDS = {"w>0": "w > 0", "w=0": "w = 0", "(w_sad,0)": "(w_sad, 0)", "w_sad": "w_sad", "(-inf,w_sad)": "w < w_sad"}


def _fact_text(v) -> str:
    """A fact of `r3_facts` as a reader reads it."""
    if isinstance(v, bool):
        return "holds" if v else "does not hold"
    if isinstance(v, dict):
        return ", ".join(f"{_PIECE_WORDS.get(k, k)}: {_fact_text(x)}" for k, x in v.items())
    if isinstance(v, int) or (isinstance(v, sp.Integer) and v in (1, 0, -1)):
        return {1: "positive", 0: "zero", -1: "negative"}[int(v)]
    return _tex(v)


@lru_cache(maxsize=None)
def _derivations(regime: int) -> tuple:
    """(datum, `LimitDerivation` or the reason it is undecided) for every sign datum, from the derived facts and
    the fates the trichotomy derives from the established Airy facts."""
    facts = sr3.r3_facts().expressions
    try:
        fates = sr3.side_fates(airy_established())
    except ValueError as ex:
        return tuple((d, f"no fates: {ex}") for d in sr3.sign_data())
    out = []
    for d in sr3.sign_data():
        try:
            out.append((d, sr3.derive_limit_r3(regime, d, facts, fates)))
        except ValueError as ex:
            out.append((d, str(ex)))
    return tuple(out)


def _proof_steps(regimes) -> list:
    """The steps the derivation of the limit rests on, for the sign data of `regimes`: the derived facts it
    consulted (exact), the fates of the descending lines (exact, from `r3.trichotomy`), and the arguments it applied
    (argued, in full)."""
    facts = sr3.r3_facts().expressions
    used, args = [], []
    for regime in regimes:
        for _, der in _derivations(regime):
            if isinstance(der, str):
                continue
            used += [k for k in der.facts if k not in used]
            args += [k for k in der.arguments if k not in args]
    U_expr, V_expr = sr3._U_V()
    ids = [steps.Obligation.equal(facts["dlambda_dt"], -G1 * V_expr, label="dlambda/dt"),
           steps.Obligation.equal(facts["df_dt"], 4 * G1 * U_expr * V_expr, label="df/dt")]
    if "U_on_N_for_a<0" in used:
        ids += [steps.Obligation("> 0", facts["U_on_N_for_a<0"], unit_pq=False, label="U on N"),
                steps.Obligation("< 0", facts["yN_minus_yC_for_a<0"], unit_pq=False, label="y_N - y_C")]
    out = [steps.exact("The derived facts the case analysis consults hold", all(
        (facts[k] if isinstance(facts[k], bool) else True) for k in used),
        method="SymPy (r3_facts: signs on the pieces of the w-line, the flow identities, limits in the Airy coordinates)",
        values=[(_FACT_WORDS.get(k, k), _fact_text(facts[k])) for k in used], obligations=ids)]
    try:
        fates = sr3.side_fates(airy_established())
        out.append(steps.exact("The descending line from below $S$ reaches the $a$-axis, from $S$ it is $S$, from above "
                               "$S$ it meets a zero of $\\varphi$ (derived case by case, r3.trichotomy)",
                               fates == {-1: "axis", 0: "S", 1: "C"}, method="the derived fates of the 6 cases, by side",
                               values={"below S": fates.get(-1, "none"), "on S": fates.get(0, "none"),
                                       "above S": fates.get(1, "none")}))
    except ValueError as ex:
        out.append(steps.exact("The fates of the descending lines by the side of $S$", False, values={"not derived": str(ex)}))
    for k in sr3.ARGUMENTS:
        if k in args:
            title, text = sr3.ARGUMENTS[k]
            out.append(steps.argued(title, text))
    return out


def _basins_check(form, ctx, regime):
    """Proof: for every sign datum (e0 = 0 or not, sign U, the side of S, the piece of the w-line, the race and
    C-race signs) the class derived by `sr3.derive_limit_r3` (the proof of Thms A, B, C: derived facts, the
    trichotomy's fates, the arguments it applies, the classes of the derived critical sets) is the one the stated
    sets give (exhaustive). Corroboration: predicted vs integrated classes."""
    facts = sr3.r3_facts().expressions
    diff, counts = [], {}
    ders = _derivations(regime)
    for d, der in ders:
        if isinstance(der, str):
            diff.append(f"{d.describe()}: not derived ({der})")
            continue
        got = sr3.set_class_r3(regime, d, sets=form, facts=facts)
        counts[der.cls] = counts.get(der.cls, 0) + 1
        if got != der.cls:
            diff.append(f"{d.describe()}: the sets say {got}, the derivation {der.cls} ({der.end})")
    out = _proof_steps((regime,))
    vals = [("sign data", f"{len(ders) - len(diff)} of {len(ders)} agree"),
            ("derived classes", ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))]
    vals += [("differs", x) for x in diff[:3]]
    out.append(steps.exact(f"On every one of the {len(ders)} sign data the stated sets give the derived class of the limit",
                           not diff, method="exhaustive comparison over the sign data", values=vals,
                           domain="every start in R^3, every (p, q) of the regime (the classes depend on (p, q) only "
                                  "through sign(p + q - 1))"))
    rows = _corroboration(regime)
    mism = [r for r in rows if r[1] != r[2]]
    p, q = _CHAINS[regime]
    corr = steps.sampled(
        "The class predicted by the characterisation is the class of the integrated flow", not mism,
        method="the repository integrator at 30 digits against the predicted class",
        domain=f"(p, q) = ({p}, {q}): both sides of each boundary part ("
               f"{', '.join(sorted({r[0].split()[0] for r in rows if r[0] != 'random'}))}) at distance 10^-4, and 4 "
               "random exact starts in [-2, 2]^3", count=len(rows), digits=30,
        values=[("agree", f"{len(rows) - len(mism)} of {len(rows)}")] + [(lab, pc) for lab, pc, _ in rows]
        + [("mismatch", f"{lab}: predicted {pc}, integrated {ic}") for lab, pc, ic in mism])
    return Outcome.of(*out, corroboration=[corr])


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
       printed=lambda: sr3.theorem_sets(1), mutant=lambda: _mutated_sets(1, "w_c", ">", "<"),
       uses=_USES_AB, section=SECTION, domain="every (p, q) in (0,1)^2 with p+q > 1; every theta_0 in R^3")
def _thm_a(form, ctx):
    return _basins_check(form, ctx, 1)


@claim("r3.basins_B", ref=REF_B, title="Basins of GF-Attention in R^3 for p+q < 1 (Thm B)",
       statement=r"$p+q<1$: every trajectory converges; the limit is a local minimum iff $\theta_0 \in \{e \neq 0, e^2 < y_S(a), "
                 r"w < w_c'(e, a)\} \cup \{e = 0, w < -1/\sqrt2\}$ ($w_c' < -1/\sqrt2$ solves $f(w_c') = E_{sad} - \Delta$); a "
                 r"saddle on the tie $w = w_c'$ (and $e = 0$, $w = -1/\sqrt2$); a station on the C-race ties ($U > 0$ above $S$ "
                 r"with $w_{st} \in B_{low}$, $U < 0$ with $w_{st} \in B_{mid}$, $\Theta_{station}$); a local maximum iff $e = 0$, "
                 r"$w > -1/\sqrt2$; a global minimum otherwise.",
       printed=lambda: sr3.theorem_sets(-1), mutant=lambda: _mutated_sets(-1, "w_c'", "<", ">"),
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
def divergent_flow(dps: int = 40, t_max: int = 30):
    """The flow from a start on S (e0 = sqrt(y_S(0)) to dps + 15 digits, w0 = 1/2, a0 = 0; p = q = 9/10) to t_max."""
    from local2global.numeric.dynamics.flow import ReducedFlow
    from local2global.numeric.evaluate.landscape import Landscape
    p, q = _CHAINS[1]
    with working(dps, extra=10):
        e0 = nr3.frac_of(mp.sqrt(nr3.sep_y(Fraction(0), dps=dps + 15)))
    th0 = (e0, Fraction(1, 2), Fraction(0))
    res = ReducedFlow(p, q, attention=True).run(th0, dps=dps, t_max=t_max, max_steps=20000)
    ls = Landscape(p, q, attention=True)
    with working(dps):
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
        with working(k + 30):
            ek = nr3.frac_of(mp.sqrt(nr3.sep_y(Fraction(0), dps=k + 30))) - Fraction(1, 10**k)
        ainf.append((k, nr3.a_inf(ek, Fraction(0), dps=k + 20)))
    out["a_inf_decreasing"] = all(x[1] > y[1] for x, y in zip(ainf, ainf[1:]))
    out["a_inf"] = [(k, mp.nstr(v, 4)) for k, v in ainf]
    return out


def _convergence_check(form, ctx):
    """form: regime -> the pieces of the w-line whose starts on S are exempt from 'converges'. Proof: the sign data
    on which the derived limit (`sr3.derive_limit_r3`) is 'unbounded' (and only those) must be the exempt ones, in
    both regimes; everywhere else the derivation ends at a critical point. Corroboration: a flow started on S."""
    diff, n = [], 0
    for regime in (1, -1):
        for d, der in _derivations(regime):
            n += 1
            if isinstance(der, str):
                diff.append(f"regime {regime:+d}, {d.describe()}: not derived ({der})")
                continue
            unb = der.cls == "unbounded"
            if unb != _exempt(form, regime, d):
                diff.append(f"p+q {'>' if regime > 0 else '<'} 1, {d.describe()}: the derivation says "
                            f"{'unbounded' if unb else 'converges'}, the statement {'exempt' if _exempt(form, regime, d) else 'converges'}")
    # the derivation's own steps (facts, fates, arguments) are those of r3.basins_A and r3.basins_B, which this
    # claim uses: its trust base lists them once
    out = []
    exempt_words = {k: (", ".join(_PIECE_WORDS[x] for x in sorted(v)) or "none") for k, v in form.items()}
    out.append(steps.exact(
        "The trajectory converges exactly from the starts the statement does not exempt: on every sign datum of both "
        "regimes the derived limit is unbounded iff the start is exempt", not diff,
        method="exhaustive comparison over the sign data of both regimes",
        values=[("sign data", f"{n - len(diff)} of {n} agree"),
                ("exempt on S for p+q > 1", exempt_words["p+q>1"]), ("exempt on S for p+q < 1", exempt_words["p+q<1"])]
        + [("differs", x) for x in diff[:3]], domain="every start in R^3, both regimes"))
    fl = divergent_flow()
    num_ok = fl["follows_S"] and fl["a_inf_decreasing"]
    corr = steps.sampled(
        "A flow started within $10^{-55}$ of $\\mathcal U$ follows $S$ instead of converging, and inside $S$ the "
        "limits $a_\\infty$ decrease as the start approaches $S$", num_ok,
        method="the repository integrator at 40 digits to t = 30; a_inf from the descending line at 10^-k inside S",
        domain="p = q = 9/10; the rational start (e0, 1/2, 0) near S and (e0 - 10^-k, a0 = 0), k = 10, 20, 40",
        count=4, digits=40,
        values={"e0^2 - y_S(0)": fl["off"], "status at t = 30": fl["status"], "a": fl["a"],
                "the law -(3G'(0)t/4)^(1/3)": fl["law"], "w": fl["w"], "e^2 - y_S(a)": fl["gap"],
                "|grad L|": fl["grad"], "a_inf": ", ".join(f"{v} (k = {k})" for k, v in fl["a_inf"])})
    return Outcome.of(*out, corroboration=[corr])


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


#: how the cells give the bounds (an argued step of thm11.precise)
THM11_ARGUMENT = (
    "θ0 = (e0, w0, a0) has independent N(0, σ^2) coordinates. For p + q > 1, by Thm A (r3.basins_A) the limit is a "
    "local minimum whenever e0 != 0, e0^2 < y_S(a0) and w0 > w_c(e0, a0). On a certified cell {|e0| in (e_lo, e_hi], "
    "a0 in [a_lo, a_hi]} Lemma C (r3.lemma_c) gives: every descending line from the cell reaches the axis (the cell "
    "lies below S) and Δ <= Dbar; w_c increases with Δ (Lemma C), so w0 > w_c(Dbar) implies w0 > w_c(e0, a0), a "
    "local minimum. The cells are disjoint, so by Fubini P(local minimum) >= Σ_cells P(|e0| in the e-cell) "
    "P(a0 in the a-cell) P(w0 > w_c(Dbar)) =: LB(σ), every start outside the cells counted as a failure; "
    "P(|e0| in (e_lo, e_hi]) = erf(e_hi/(σ√2)) - erf(e_lo/(σ√2)), P(a0 in [a_lo, a_hi]) = (erf(a_hi/(σ√2)) - "
    "erf(a_lo/(σ√2)))/2, P(w0 > w) = erfc(w/(σ√2))/2. Uniformly in σ <= σ0: with slabs |e0| in (e_(i-1), e_i] and "
    "symmetric boxes |a0| <= A_i certified by Lemma C (bound Dbar_i), 1 - P(local minimum) <= P(|e0| > e_max) + "
    "Σ_i P(|e0| > e_(i-1)) [P(|a0| > A_i) + P(w0 <= w_c(Dbar_i))] = erfc(e_max/(σ√2)) + Σ_i erfc(e_(i-1)/(σ√2)) "
    "[erfc(A_i/(σ√2)) + erfc(|w_c(Dbar_i)|/(σ√2))/2] =: ε_mono(σ), and each term erfc(c/(σ√2)) (c >= 0) increases "
    "with σ, so ε_mono(σ0) bounds 1 - P(local minimum) for every σ <= σ0. For p + q < 1, by Thm B (r3.basins_B) "
    "the local minima have e0 = 0 and w0 < -1/√2 or e0 != 0 and w0 < w_c' < -1/√2, so P(local minimum) <= "
    "P(w0 < -1/√2) = erfc(1/(2σ))/2. A bound holds when the arb ball of the computed quantity lies strictly on the "
    "stated side of the stated number.")


def _dec(x: Fraction) -> str:
    """A stated number exactly, in the fewest decimal digits that hold it (2.9e-8, 4.451e-9)."""
    for digits in range(1, 30):
        text = pr3.decimal_rounded(x, digits, up=False)
        if text == pr3.decimal_rounded(x, digits, up=True):
            return text
    return _frac_text(x)


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
    I_min ⊂ {w < -1/√2}. A bound holds if its arb ball lies on the right side of the stated number (argued:
    `THM11_ARGUMENT`)."""
    s0, eps0 = form["uniform"]
    s1, eps1 = form["at"]
    s2, ub2 = form["below1_at"]
    mono = pr3.monotone_bound(s0)
    lb = pr3.lower_bound(s1)
    ub = pr3.upper_bound_below1(s2)
    q = pr3._ball
    ok_mono = bool(mono["eps_mono"] < q(eps0))
    ok_lb = bool(lb["LB"] > 1 - q(eps1))
    ok_ub = bool(ub["UB"] < q(ub2))
    cells = (f"{lb['cells']} Lemma C cells (|e| <= 4/5 in steps 1/100, a in [-2, 2] in steps 1/20), the rest of R^3 "
             "counted as failure")
    out = [steps.argued("The certified cells bound $P(\\theta_{\\lim}$ is a local minimum$)$ (Fubini, Lemma C, "
                        "Thms A and B)", THM11_ARGUMENT),
           steps.interval(rf"$p+q>1$: $1 - P_{{\min}}(\sigma) \le \varepsilon_{{\mathrm{{mono}}}}({_frac_text(s0)}) < "
                          rf"{_dec(eps0)}$ for every $\sigma \le {_frac_text(s0)}$", ok_mono,
                          method="arb balls (python-flint), 128 bits", bits=128, count=mono["slabs"],
                          domain=f"{mono['slabs']} symmetric slabs (|a| <= A_i <= 6/5), sigma <= {_frac_text(s0)}",
                          values={"eps_mono": _ball_text(mono["eps_mono"], 5)}),
           steps.interval(rf"$p+q>1$: $P_{{\min}}({_frac_text(s1)}) \ge LB > 1 - {_dec(eps1)}$", ok_lb,
                          method="arb balls (python-flint), 128 bits", bits=128, count=lb["cells"], domain=cells,
                          values={"1 - LB": _ball_text(lb["eps"], 5), "outside the cells": _ball_text(lb["eps_uncovered"], 3),
                                  "lost to the race": _ball_text(lb["eps_race"], 3)}),
           steps.interval(rf"$p+q<1$: $P_{{\min}}({_frac_text(s2)}) \le P(w_0 < -1/\sqrt2) < {_dec(ub2)}$", ok_ub,
                          method="arb balls (python-flint), 128 bits", bits=128, count=1,
                          domain=f"the point sigma = {_frac_text(s2)}", values={"P(w0 < -1/sqrt 2)": _ball_text(ub["UB"], 5)})]
    # corroboration: the corners of 3 seeded cells reach the axis (numeric fate), as Lemma C certifies
    rng = random.Random(zlib.crc32(b"thm11.precise"))
    all_cells = pr3.design_cells()
    picked = [all_cells[rng.randrange(len(all_cells))] for _ in range(3)]
    fates = [(c, nr3.descent_fate(c[1], c[2], dps=30)["fate"], nr3.descent_fate(c[1], c[3], dps=30)["fate"])
             for c in picked if c[0] >= 0]
    corners_ok = all(f1 == "axis" and f2 == "axis" for _, f1, f2 in fates)
    corr = steps.sampled("The upper corners of certified cells reach the axis", corners_ok,
                         method="the numeric fate of the descending line (the sign of beta at 30 digits)",
                         domain="the upper corners (e_hi, a_lo), (e_hi, a_hi) of 3 seeded cells", count=2 * len(fates),
                         digits=30, values=[(f"e = {_frac_text(c[1])}, a in [{_frac_text(c[2])}, {_frac_text(c[3])}]",
                                             f"{f1}, {f2}") for c, f1, f2 in fates])
    return Outcome.of(*out, corroboration=[corr],
                      checked_domain=f"{cells}; {mono['slabs']} symmetric slabs; sigma <= {_frac_text(s0)}")
