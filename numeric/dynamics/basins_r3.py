r"""Where does the gradient flow with attention in R^3 end? The characterisation (Thms A, B, C; Sec. 4.1, our
result) evaluated, next to integrated flows.

Every formula comes from `symbolic.basins_r3` (compiled once, `derived()`); the numerics here are root
finding, bracketing and walks along one line:

* `Line`: the gradient line of U through (e0, a0) as φ = αAi + βBi (φ(z0) = 1, φ'(z0) = ℓ0);
* `descent_fate`: axis / separatrix / C by the sign of β (Prop. 3), with extra digits until the sign of β is
  sure (near S, β cancels);
* `a_inf` (mpmath, any precision; safeguarded Newton on q, whose derivative is -φ^2) and `a_inf_arb`
  (python-flint arb: z0 > a_1 and β > 0 certified, a certified sign change of the decreasing q, the sign of
  ℓ at the root: a ball containing a_inf);
* `sep_y`: y_S(a), the root of ℓ_S(z) = ℓ(a) (ℓ_S decreasing on (a_1, oo));
* `w_branch`, `w_c`: f^-1 on a branch (Lambert W), the race threshold;
* `predict_R3`: the class of the limit (global_min, local_min, local_max, saddle, station, unbounded) and the
  limit point, by the theorem's case analysis; the global-minimum point by a sign-change walk along the line;
* `compare_R3`: prediction next to the repository integrator (`ReducedFlow(p, q, attention=True)`,
  `flow.critical_class`), and the start sets of the validation (random starts in [-2, 2]^3, starts at
  10^-k on both sides of every part of the boundary).

Inputs are exact (Fraction, int, str); mpmath precision is local (`mp.workdps`).
"""
from __future__ import annotations

import random
from fractions import Fraction
from functools import lru_cache

import mpmath as mp
import sympy as sp

from local2global.numeric.chain import NumericChain
from local2global.numeric.dynamics.flow import integrate_class
from local2global.numeric.evaluate.arb import ball_function
from local2global.numeric.evaluate.lambdify import mpf_exact
from local2global.numeric.precision import working
from local2global.symbolic import basins_r3 as sr3
from local2global.symbolic import energy as senergy
from local2global.symbolic import symbols as S

CLASSES = ("global_min", "local_min", "local_max", "saddle", "station", "unbounded")

# ---------------------------------------------------------------------------------------------
# compiling the derived expressions (mpmath and arb)
# ---------------------------------------------------------------------------------------------

#: mpmath's (Ai, Ai', Bi, Bi'): the fallback of `_airy`
_AIRY_MP = (mp.airyai, lambda x: mp.airyai(x, 1), mp.airybi, lambda x: mp.airybi(x, 1))
_AIRY_LAST: dict = {}


def _airy(z, k: int):
    """(Ai, Ai', Bi, Bi')(z)[k] at mpmath's precision. A real mpf z is evaluated once for all four (the lines
    need all four at the same z) by python-flint's ball arithmetic, 20 guard bits above mp.prec, and a value
    is used only if its ball is within 2^-prec relative (else, and for other arguments, mpmath's own Airy
    function). The profile of the R^3 characterisation is mostly Airy functions: this is its fast path."""
    if not isinstance(z, mp.mpf):
        return _AIRY_MP[k](z)
    prec = mp.mp.prec
    key = (z._mpf_, prec)
    vals = _AIRY_LAST.get(key)
    if vals is None:
        import flint
        sign, man, exp, _ = z._mpf_
        old = flint.ctx.prec
        flint.ctx.prec = prec + 20
        try:
            q = flint.fmpq((-1) ** sign * int(man) * 2 ** max(exp, 0), 2 ** max(-exp, 0))
            vals = []
            for ball in flint.arb(q).airy():
                mid = ball.mid()
                if not ball.is_finite() or (ball.rad() > abs(mid) * flint.arb(2) ** (-prec)) or mid == 0:
                    vals.append(None)
                else:
                    m, e = mid.man_exp()
                    vals.append(mp.mpf((int(m), int(e))))
        finally:
            flint.ctx.prec = old
        _AIRY_LAST.clear()
        _AIRY_LAST[key] = vals
    if vals[k] is None:
        return _AIRY_MP[k](z)
    return vals[k]


_MP_SPECIAL = {"airyai": lambda x: _airy(x, 0), "airyaiprime": lambda x: _airy(x, 1),
               "airybi": lambda x: _airy(x, 2), "airybiprime": lambda x: _airy(x, 3),
               "LambertW": lambda x, k=0: mp.lambertw(x, k)}


def compile_special(expr, args):
    """lambdify for mpmath with the Airy functions and Lambert W (not in SymPy's mpmath printer); a list
    compiles to a function returning a list. No float literal reaches the code (rationals print as mpf/mpf)."""
    for node in sp.preorder_traversal(sp.sympify(expr) if not isinstance(expr, list) else sp.Tuple(*expr)):
        if isinstance(node, sp.Float):
            raise TypeError(f"float literal in a derived expression: {node}")
    return sp.lambdify(tuple(args), expr, modules=[_MP_SPECIAL, "mpmath"])


def fraction_function(expr, args):
    """A pure-Python callable of an expression with integer coefficients, for exact Fraction inputs (Lemma C
    certificates): refuses any non-integer rational or irrational constant in the expression."""
    ex = sp.sympify(expr)
    for node in sp.preorder_traversal(ex):
        if (node.is_Number and not node.is_Integer) or node in (sp.pi, sp.E):
            raise TypeError(f"not an integer-coefficient expression: {node} in {ex}")
    return sp.lambdify(tuple(args), ex, modules=[{"Max": max, "Min": min}])


@lru_cache(maxsize=None)
def derived() -> dict:
    """The compiled derived objects (mpmath unless the key says arb): coordinates, lines, separatrix,
    f^-1, race, energy pieces. Keys are documented where they are used."""
    ar, li, se, lw, rc = sr3.airy_reduction(), sr3.linearisation(), sr3.separatrix(), sr3.lambert_inverse(), sr3.race()
    sf = sr3.slope_factors()
    ew = senergy.energy_on_w_axis()
    z, ell, Phi, dPhi = sr3.z, sr3.ell, sr3.Phi, sr3.dPhi
    e, a, w = S.e, S.a, S.w
    pz = (Phi, dPhi, z)
    beta_terms = sp.Add.make_args(sp.expand(li["beta0"]))
    out = {
        "z_of": compile_special(ar["z_of"], (e, a)), "ell_of": compile_special(ar["ell_of"], (a,)),
        "a_of": compile_special(ar["a_of"], (ell,)), "y_of": compile_special(ar["y_of"], (z, ell)),
        "h_zl": compile_special(ar["h_zl"], (z, ell)),
        "alpha0": compile_special(li["alpha0"], (sr3.z0, sr3.ell0)),
        "beta0": compile_special(li["beta0"], (sr3.z0, sr3.ell0)),
        "beta_scale": compile_special(sp.Add(*[sp.Abs(t) for t in beta_terms]), (sr3.z0, sr3.ell0)),
        "phi": compile_special(list(li["phi_values"]), (sr3.alpha, sr3.beta, z)),
        "q": compile_special(li["q_in_phi"], pz), "q_prime": compile_special(li["q_prime_in_phi"], pz),
        "ell_phi": compile_special(li["ell_in_phi"], pz), "y_phi": compile_special(li["y_in_phi"], pz),
        "e_phi": compile_special(li["e_abs_in_phi"], pz), "a_phi": compile_special(li["a_in_phi"], pz),
        "h_phi": compile_special(li["h_in_phi"], pz), "cfun": compile_special(li["C_function"], pz),
        "U_phi": compile_special(li["U_in_phi"], pz), "jacobian": compile_special(li["jacobian"], pz),
        "axis_point": compile_special(list(li["axis_point"]), (sr3.a_inf,)),
        "ell_S": compile_special(se["ell_S"], (z,)), "y_S": compile_special(se["y_S"], (z,)),
        "a_S": compile_special(se["a_S"], (z,)),
        "x_pos": compile_special(lw["x_pos"], (sr3.c_lev,)), "x_neg": compile_special(lw["x_neg"], (sr3.c_lev,)),
        "w_pos_of_W": compile_special(lw["w_pos_of_W"], (sr3.Wv,)),
        "w_neg_of_W": compile_special(lw["w_neg_of_W"], (sr3.Wv,)),
        "Delta": compile_special(rc["Delta"], (e, a, sr3.a_inf)),
        "U": compile_special(sf["U"], (e, a)), "V": compile_special(sf["V"], (w,)),
        "f_pos": compile_special(ew["f_w>0"].subs(S.w_pos, w), (w,)),
        "f_neg": compile_special(ew["f_w<0"].subs(S.w_neg, w), (w,)),
        "E_sad": compile_special(ew["E_sad"], ()), "w_sad": compile_special(ew["w_sad"], ()),
        "h": compile_special(sr3.flow_structure()["h"], (e, a)),
    }
    return out


@lru_cache(maxsize=None)
def derived_arb() -> dict:
    """arb versions (`evaluate.arb.ball_function`) of the objects the certified computations use."""
    ar, li, se, rc = sr3.airy_reduction(), sr3.linearisation(), sr3.separatrix(), sr3.race()
    z, Phi, dPhi = sr3.z, sr3.Phi, sr3.dPhi
    pz = (Phi, dPhi, z)
    return {
        "z_of": ball_function(ar["z_of"], (S.e, S.a)), "ell_of": ball_function(ar["ell_of"], (S.a,)),
        "alpha0": ball_function(li["alpha0"], (sr3.z0, sr3.ell0)), "beta0": ball_function(li["beta0"], (sr3.z0, sr3.ell0)),
        "phi": [ball_function(x, (sr3.alpha, sr3.beta, z)) for x in li["phi_values"]],
        "q": ball_function(li["q_in_phi"], pz), "ell_phi": ball_function(li["ell_in_phi"], pz),
        "e_phi": ball_function(li["e_abs_in_phi"], pz), "a_phi": ball_function(li["a_in_phi"], pz),
        "h_phi": ball_function(li["h_in_phi"], pz), "jacobian": ball_function(li["jacobian"], pz),
        "axis_point": [ball_function(x, (sr3.a_inf,)) for x in li["axis_point"]],
        "ell_S": ball_function(se["ell_S"], (z,)), "y_S": ball_function(se["y_S"], (z,)), "a_S": ball_function(se["a_S"], (z,)),
        "w_c": ball_function(rc["w_c"], (sr3.Delta,)), "w_c_prime": ball_function(rc["w_c_prime"], (sr3.Delta,)),
        "lambert_argument": ball_function(rc["lambert_argument"], (sr3.Delta,)),
        "E_sad": ball_function(rc["E_sad"], ()),
        "a_from_z_star": ball_function(sp.sqrt(z / ar["axis_z"].subs(S.a, 1)), (z,)),      # z* = axis_z(a_inf)
    }


# ---------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------

def frac_of(x) -> Fraction:
    """An mpf as the exact Fraction of its binary value (to build exact starts next to a boundary)."""
    x = x if isinstance(x, mp.mpf) else mp.mpf(x)
    sign, man, exp, _ = x._mpf_                   # the mantissa is unsigned: the sign is separate
    if man == 0:
        return Fraction(0)
    return (-1 if sign else 1) * Fraction(int(man)) * (Fraction(2) ** int(exp))


_A1: dict = {}


def a1() -> mp.mpf:
    """a_1, the largest zero of Ai (about -2.338), at mpmath's working precision. A constant: computed once per
    precision (mpmath's root finder is deterministic, so the memo returns the value a new call would)."""
    prec = mp.mp.prec
    if prec not in _A1:
        _A1[prec] = mp.airyaizero(1)
    return _A1[prec]


def E_sad() -> mp.mpf:
    return derived()["E_sad"]()


def f_of(w) -> mp.mpf:
    """The derived f(w) = E(0, w), w != 0."""
    return derived()["f_pos" if w > 0 else "f_neg"](w)


def energy(e, w, a) -> mp.mpf:
    """E = h(e, a) + f(w) (the derived energy with attention is separable: `flow_structure`)."""
    return derived()["h"](e, a) + f_of(w)


def branch_of(w) -> str:
    """The monotone branch of f containing w: 'zero', 'pos' (0, oo), 'mid' (w_sad, 0), 'low' (-oo, w_sad)."""
    if w == 0:
        return "zero"
    if w > 0:
        return "pos"
    return "mid" if w > derived()["w_sad"]() else "low"


def w_branch(c, branch: str) -> mp.mpf:
    r"""Solve f(w) = c on a monotone branch of f ('pos', 'mid', 'low') by the derived Lambert-W inverse; the
    w < 0 branches need c <= E_sad (a level above E_sad by rounding only is put on the branch point)."""
    d = derived()
    if branch == "pos":
        return d["w_pos_of_W"](mp.lambertw(d["x_pos"](c), 0).real)
    x = d["x_neg"](c)
    if x < -1 / mp.e:
        if x > -(1 + mp.mpf(10) ** (-(mp.mp.dps - 5))) / mp.e:      # c = E_sad up to rounding
            x = -1 / mp.e
        else:
            raise ValueError("f(w) = c has no solution on w < 0 (c > E_sad)")
    return d["w_neg_of_W"](mp.lambertw(x, 0 if branch == "mid" else -1).real)


def regime_of(p, q=None) -> int:
    reg = NumericChain.of(p, q).regime
    if reg == 0:
        raise ValueError("the basins in R^3 are characterised for p + q != 1")
    return reg


# ---------------------------------------------------------------------------------------------
# the gradient lines of U
# ---------------------------------------------------------------------------------------------

class Line:
    """The gradient line of U through (e0, a0), e0 != 0: φ = αAi + βBi with φ(z0) = 1, φ'(z0) = ℓ0 (the
    derived normalisation); works at the current precision (build it inside mp.workdps)."""

    def __init__(self, e0, a0, sign_e=None):
        d = derived()
        self.d = d
        self.e0, self.a0 = mpf_exact(e0), mpf_exact(a0)
        self.sign_e = mp.sign(self.e0) if sign_e is None else sign_e
        self.z0, self.l0 = d["z_of"](self.e0, self.a0), d["ell_of"](self.a0)
        self.alpha, self.beta = d["alpha0"](self.z0, self.l0), d["beta0"](self.z0, self.l0)
        self.beta_scale = d["beta_scale"](self.z0, self.l0)     # |β| relative to this: the cancellation

    def phi(self, z):
        return self.d["phi"](self.alpha, self.beta, z)

    def q(self, z):
        ph, dph = self.phi(z)
        return self.d["q"](ph, dph, z)

    def point(self, z) -> dict:
        """(e, a, y, ℓ, h, U) on the line at z (φ(z) != 0)."""
        ph, dph = self.phi(z)
        d = self.d
        y = d["y_phi"](ph, dph, z)
        e = self.sign_e * d["e_phi"](ph, dph, z) if y > 0 else mp.mpf(0)
        return {"e": e, "a": d["a_phi"](ph, dph, z), "y": y, "l": d["ell_phi"](ph, dph, z),
                "h": d["h_phi"](ph, dph, z), "U": d["U_phi"](ph, dph, z), "phi": ph}

    def cfun(self, z):
        """φ^3 + φ'q: vanishes exactly where the line crosses C (1 + ae^2 = 0), smooth through poles; its sign
        is that of U on the physical segment (U φ^5 = 2^(2/3) q (φ^3 + φ'q))."""
        ph, dph = self.phi(z)
        return self.d["cfun"](ph, dph, z)


def descent_fate(e0, a0, dps: int = 30) -> dict:
    """Fate of the descending gradient line of U from (e0, a0), e0 != 0: 'axis', 'separatrix' or 'C'
    (Prop. 3: axis iff z0 > a_1 and β > 0; separatrix iff z0 > a_1, β = 0). β is recomputed with extra digits
    until its sign is sure at `dps` (|β| >= 10^-dps of its scale); below that the start counts as on S."""
    extra = 0
    while True:
        with working(dps, extra=extra):
            ln = Line(e0, a0)
            if ln.z0 <= a1():
                return {"fate": "C", "beta": ln.beta, "z0": ln.z0, "rel_beta": None}
            rel = abs(ln.beta) / ln.beta_scale
            if rel == 0 or rel < mp.mpf(10) ** (-(dps + extra // 2)):
                if extra >= 4 * dps:
                    return {"fate": "separatrix", "beta": ln.beta, "z0": ln.z0, "rel_beta": rel}
                extra = 2 * extra + dps
                continue
            if extra < -int(mp.log10(rel)) + 5:
                extra = -int(mp.log10(rel)) + 5
                continue
            return {"fate": "axis" if ln.beta > 0 else "C", "beta": ln.beta, "z0": ln.z0, "rel_beta": rel}


def a_inf(e0, a0, dps: int = 50, with_z: bool = False):
    """The end point a_inf of the descending line from (e0, a0) on the a-axis (fate 'axis' required):
    z* = the root of q on (z0, oo) (q strictly decreasing: q' = -φ^2; q(z0) > 0), found by a safeguarded
    Newton step z - q/q' inside a bracket; a_inf = a(z*) on the line (2^(-2/3) φ'/φ). Digits beyond the
    cancellation in β are added automatically."""
    fate = descent_fate(e0, a0, dps)
    if fate["fate"] != "axis":
        raise ValueError(f"the descending line from ({e0}, {a0}) does not reach the axis ({fate['fate']})")
    extra = 0 if fate["rel_beta"] is None else max(0, -int(mp.log10(fate["rel_beta"])) + 5)
    d = derived()
    with working(dps, extra=extra):
        ln = Line(e0, a0)
        lo = ln.z0
        step = mp.mpf(1)
        hi = lo + step
        while ln.q(hi) > 0:
            lo, step = hi, 2 * step
            hi = lo + step
        tol = mp.mpf(10) ** (-(dps + 5))
        zz = (lo + hi) / 2
        for _ in range(400):
            ph, dph = ln.phi(zz)
            qq = d["q"](ph, dph, zz)
            if qq > 0:
                lo = zz
            elif qq < 0:
                hi = zz
            else:
                break
            zn = zz - qq / d["q_prime"](ph, dph, zz)
            if not (lo < zn < hi):
                zn = (lo + hi) / 2
            if abs(zn - zz) <= tol * (1 + abs(zz)) and hi - lo <= 1000 * tol * (1 + abs(zz)):
                zz = zn
                break
            zz = zn
        ph, dph = ln.phi(zz)
        res = d["a_phi"](ph, dph, zz)
        return (res, zz) if with_z else res


def sep_y(a, dps: int = 30) -> mp.mpf:
    """y_S(a) = e^2 on the separatrix at abscissa a: the unique root z_S of ℓ_S(z) = ℓ(a) on (a_1, oo)
    (ℓ_S = Ai'/Ai decreasing from +oo to -oo), then y_S = y(z_S, ℓ(a)) (bisection + a verified secant)."""
    d = derived()
    with working(dps):
        a = mpf_exact(a)
        L = d["ell_of"](a)
        g = lambda zz: d["ell_S"](zz) - L      # decreasing
        A1 = a1()
        if g(mp.mpf(0)) > 0:
            lo, hi = mp.mpf(0), mp.mpf(1)
            while g(hi) > 0:
                lo, hi = hi, 2 * hi
        else:
            lo, hi = A1 / 2, mp.mpf(0)
            k = 1
            while g(lo) < 0:
                hi = lo
                lo = A1 + (-A1) / mp.mpf(2) ** (k + 1)
                k += 1
        tol = mp.mpf(10) ** (-(dps + 5))
        while hi - lo > tol * (1 + abs(lo)):
            mid = (lo + hi) / 2
            if g(mid) > 0:
                lo = mid
            else:
                hi = mid
            if hi - lo < mp.mpf(10) ** (-8):
                zr = mp.findroot(g, (lo, hi), solver="anderson")
                if lo <= zr <= hi:
                    lo = hi = zr
                break
        return d["y_of"]((lo + hi) / 2, L)


def w_c(e, a, regime: int, dps: int = 30):
    r"""The race threshold on the branch of the regime: f(w_c) = E_sad - Δ(e, a) on B_mid (p+q > 1) or B_low
    (p+q < 1); for (e, a) in R: local min iff w0 > w_c (p+q > 1), w0 < w_c' (p+q < 1). Returns (w, Δ, a_inf)."""
    ai = a_inf(e, a, dps)
    with working(dps):
        D = derived()["Delta"](mpf_exact(e), mpf_exact(a), ai)
        return w_branch(E_sad() - D, "mid" if regime > 0 else "low"), D, ai


def a_inf_arb(e0, a0, prec: int = 200):
    """A ball (flint.arb) containing a_inf(e0, a0), every step certified in ball arithmetic:

    1. z0 > a_1 and β > 0 (ball tests) => the line reaches the axis (Prop. 3);
    2. q(z_lo) > 0 > q(z_hi) (ball tests) at two exact dyadics around the mpmath root; q is strictly
       decreasing on (z0, oo) (q' = -φ^2, φ > 0 there), so z* ∈ [z_lo, z_hi];
    3. the sign of ℓ = φ'/φ on [z_lo, z_hi] (ball), and a_inf = sign(ℓ) sqrt(z*)/2^(2/3) (z* = ℓ*^2 = (2^(2/3) a_inf)^2).
    Returns (ball, info). Raises ArithmeticError if a certificate fails (then raise prec)."""
    from flint import arb, ctx, fmpq
    A = derived_arb()
    e0, a0 = Fraction(e0), Fraction(a0)
    old = ctx.prec
    ctx.prec = prec
    try:
        E, Aa = arb(fmpq(e0.numerator, e0.denominator)), arb(fmpq(a0.numerator, a0.denominator))
        z0, l0 = A["z_of"](E, Aa), A["ell_of"](Aa)
        al, be = A["alpha0"](z0, l0), A["beta0"](z0, l0)
        if not (z0 > arb.airy_ai_zero(1)):
            raise ArithmeticError("cannot certify z0 > a_1")
        if not (be > 0):
            raise ArithmeticError("cannot certify beta > 0 (axis fate)")

        def phis(zz):
            return A["phi"][0](al, be, zz), A["phi"][1](al, be, zz)

        dps = int(prec * 0.30103) - 10
        zstar = a_inf(e0, a0, dps=dps, with_z=True)[1]
        eps = Fraction(1, 2 ** (prec - 40))
        zq = frac_of(zstar)
        zlo, zhi = (arb(fmpq((zq + s).numerator, (zq + s).denominator)) for s in (-eps, eps))
        if not (zlo > z0):
            zlo = z0
        qlo, qhi = A["q"](*phis(zlo), zlo), A["q"](*phis(zhi), zhi)
        if not (qlo > 0 and qhi < 0):
            raise ArithmeticError("cannot certify the sign change of q")
        zint = zlo.union(zhi)
        ph, dph = phis(zint)
        lball = A["ell_phi"](ph, dph, zint)
        if lball > 0:
            sgn = 1
        elif lball < 0:
            sgn = -1
        else:
            raise ArithmeticError("cannot certify the sign of l at z*")
        res = sgn * A["a_from_z_star"](zint)
        return res, {"z_bracket": (zlo, zhi), "beta": be, "z0": z0}
    finally:
        ctx.prec = old


# ---------------------------------------------------------------------------------------------
# the global-minimum end point: walk along the line through the (at most one) sign change of A
# ---------------------------------------------------------------------------------------------

def _first_sign_change(fns, z0, d, zlim, guards=None, h0=None, hmax=None, init=None):
    """Walk from z0 in direction d (adaptive steps) until one of `fns` (name -> callable returning an mpf,
    or None where not evaluable) changes sign. `guards` (name -> callable) mark the end of the physical
    path (a pole φ = 0, the axis q = 0): a step across a guard is cut (down to hmin) so that a sign change
    just before the end is not jumped over. Returns (name, z_left, z_right), ('guard:' + name, zl, zr) if
    the path ends first, or (None, z, z) past zlim. `init` gives signs known analytically at z0."""
    guards = guards or {}
    h0 = mp.mpf(1) / 256 if h0 is None else h0
    hmax = mp.mpf(1) / 8 if hmax is None else hmax
    hmin = mp.mpf(10) ** (-(mp.mp.dps // 2))

    def sg(f, zz):
        v = f(zz)
        return None if v is None else mp.sign(v)

    prev = {k: sg(f, z0) for k, f in fns.items()}
    for k in list(prev):
        if prev[k] == 0:
            prev[k] = None
    if init:
        prev.update(init)
    gprev = {k: sg(g, z0) for k, g in guards.items()}
    zz, h = z0, h0
    while abs(zz - z0) < zlim:
        zn = zz + d * h
        gcur = {k: sg(g, zn) for k, g in guards.items()}
        gh = [k for k in guards if gprev[k] not in (None, 0) and gcur[k] != gprev[k]]
        if gh and h > hmin:
            h = h / 4
            continue
        cur = {k: sg(f, zn) for k, f in fns.items()}
        hit = [k for k in fns if prev[k] is not None and cur[k] != prev[k]]
        if len(hit) > 1 and h > hmin:          # two events in one step: refine until the first is isolated
            h = h / 4
            continue
        if hit:
            return hit[0], zz, zn
        if gh:
            return "guard:" + gh[0], zz, zn
        for k in cur:
            if prev[k] is None and cur[k] not in (None, 0):
                prev[k] = cur[k]
        zz = zn
        h = min(hmax, h * 3 / 2)
    return None, zz, zz


def _bisect(f, zl, zr, tol, left_sign=None):
    fl = left_sign if left_sign is not None else mp.sign(f(zl))
    for _ in range(2000):
        if abs(zr - zl) <= tol * (1 + abs(zl)):
            break
        mid = (zl + zr) / 2
        fm = f(mid)
        if fm is None:          # only next to an event (w at the branch point), i.e. at the left end
            zl = mid
            continue
        if mp.sign(fm) == fl:
            zl = mid
        else:
            zr = mid
    return (zl + zr) / 2


def _guards(ln, d):
    """The ends of the physical segment of a line: a pole (φ = 0) either way, the axis (q = 0) for d = +1."""
    g = {"pole": lambda zz: ln.phi(zz)[0]}
    if d > 0:
        g["axis"] = ln.q
    return g


def _global_limit(ln, w0, E0, Astar, s, dps, zlim=60, event=None):
    """End point of a trajectory whose limit is a global minimum (A -> A*).

    Phase 1: sign V fixed, z moves in the direction d = s sign(V) (+1 = descending U), w on the branch of w0
    with f(w) = E0 - h(z). The first zero of A (U = 0 on C, or V = 0) is the single event (A is monotone);
    after a V event the direction flips and w changes branch ('mid' <-> 'low'). Phase 2 ends at A = A*."""
    tol = mp.mpf(10) ** (-(dps + 3))
    br = branch_of(w0)
    Vf = derived()["V"]

    def w_at(zz, br_):
        if br_ == "zero":
            return mp.mpf(0)
        try:
            return w_branch(E0 - ln.point(zz)["h"], br_)
        except ValueError:
            return None

    def A_at(zz, br_):
        pt = ln.point(zz)
        ww = w_at(zz, br_)
        if ww is None:
            return None
        return pt["U"] * Vf(ww)

    V0 = Vf(w0) if br != "zero" else mp.mpf(1)
    d = 1 if s * mp.sign(V0) > 0 else -1
    zz = ln.z0
    A0 = A_at(zz, br)
    events = []
    if mp.sign(A0) * mp.sign(Astar) <= 0 and A0 != 0:
        if event is not None:
            name, zz = event          # the C-race decided analytically (see `_C_race`)
        else:
            fns = {"U": ln.cfun}
            if br in ("mid", "low"):
                fns["V"] = lambda x: E_sad() - (E0 - ln.point(x)["h"])
            name, zl, zr = _first_sign_change(fns, zz, d, zlim, guards=_guards(ln, d))
            if name is None or name.startswith("guard"):
                raise ArithmeticError("no event found on the phase-1 path")
            zz = _bisect(fns[name], zl, zr, tol)
        events.append((name, zz))
        if name == "V":
            d = -d
            br = "low" if br == "mid" else "mid"
    fA = lambda x: (lambda A_: None if A_ is None else A_ - Astar)(A_at(x, br))
    init = {"A": mp.sign(-Astar) if events else mp.sign(A0 - Astar)}
    name, zl, zr = _first_sign_change({"A": fA}, zz, d, zlim, guards=_guards(ln, d), init=init)
    if name is None or name.startswith("guard"):
        raise ArithmeticError("A = A* not reached along the line")
    zz = _bisect(fA, zl, zr, tol, left_sign=init["A"])
    pt = ln.point(zz)
    return [pt["e"], w_at(zz, br), pt["a"]], events


# ---------------------------------------------------------------------------------------------
# the predictor
# ---------------------------------------------------------------------------------------------

def predict_R3(p, q, theta0, dps: int = 30, limit: bool = True) -> dict:
    """The class of lim θ_t for GF-Attention from θ0 = (e0, w0, a0) (exact inputs) by Thms A, B, C, and the
    limit point when `limit` (None for 'unbounded'). Returns {"class", "limit" [e, w, a] or None, "case" (the
    branch of the proof), "margin" (the signed quantity whose sign decided it, if any), "a_inf"}.

    A start within 10^-(dps - 2) of a tie (race or C-race) counts as the tie; within 10^-dps of S (relative
    β) as on S."""
    chain = NumericChain.of(p, q)
    e0, w0, a0 = (Fraction(x) for x in theta0)
    reg = regime_of(chain)
    d = derived()
    out = {"class": None, "limit": None, "case": None, "margin": None, "a_inf": None}
    with working(dps):
        th0 = [mpf_exact(e0), mpf_exact(w0), mpf_exact(a0)]
        U0 = d["U"](th0[0], th0[2])
        V0 = d["V"](th0[1])
        A0 = U0 * V0
        if e0 == 0:
            cls = "saddle" if V0 == 0 else ("local_min" if reg * V0 > 0 else "local_max")
            out.update({"class": cls, "limit": th0, "case": "critical start (e0 = 0)"})
            return out
        if U0 == 0 and V0 == 0:
            out.update({"class": "station", "limit": th0, "case": "critical start (station)"})
            return out
        from local2global.numeric.evaluate.landscape import Landscape
        Astar = Landscape(chain, attention=True).A_star()
        s = 1 if A0 > Astar else -1
        E0 = energy(*th0) if w0 != 0 else None
        ln = Line(e0, a0)

        def glob(case, event=None):
            out.update({"class": "global_min", "case": case})
            if limit:
                lim, ev = _global_limit(ln, th0[1], E0, Astar, s, dps, event=event)
                out["limit"], out["events"] = lim, ev
            return out

        if reg * A0 <= 0:
            return glob("A0 on the side of A* (or 0): A never vanishes again")
        if U0 > 0:
            fate = descent_fate(e0, a0, dps)
            out["beta"] = fate["beta"]
            if fate["fate"] == "separatrix":
                if w0 >= 0:
                    out.update({"class": "unbounded", "case": "(e0, a0) on the separatrix S, w0 >= 0: a -> -oo"})
                    return out
                return glob("separatrix with w0 < 0: V vanishes first")
            if fate["fate"] == "axis":
                ai = a_inf(e0, a0, dps)
                out["a_inf"] = ai
                if w0 == 0:
                    out.update({"class": "local_min", "limit": [mp.mpf(0), mp.mpf(0), ai],
                                "case": "w0 = 0 plane, line reaches axis"})
                    return out
                c_end = E0 - d["h"](mp.mpf(0), ai)
                if w0 > 0:
                    out.update({"class": "local_min", "limit": [mp.mpf(0), w_branch(c_end, "pos"), ai],
                                "case": "w0 > 0, line reaches axis"})
                    return out
                margin = E_sad() - c_end
                out["margin"] = margin
                if abs(margin) <= mp.mpf(10) ** (-(dps - 2)):
                    out.update({"class": "saddle", "limit": [mp.mpf(0), d["w_sad"](), ai], "case": "race tie"})
                    return out
                if margin > 0:
                    out.update({"class": "local_min", "limit": [mp.mpf(0), w_branch(c_end, branch_of(th0[1])), ai],
                                "case": "line reaches axis before V = 0"})
                    return out
                return glob("V = 0 before the axis (race lost)")
            return _C_race(out, ln, th0, E0, w0, +1, glob, dps)
        return _C_race(out, ln, th0, E0, w0, -1, glob, dps)


def _C_race(out, ln, th0, E0, w0, direction, glob, dps):
    """U -> 0 on C (moving in `direction` along z) races V -> 0: a tie is a station, otherwise a global min."""
    if w0 >= 0:
        return glob("line crosses C; V cannot vanish (w0 >= 0)")
    tol = mp.mpf(10) ** (-(dps + 3))
    fns = {"U": ln.cfun}
    name, zl, zr = _first_sign_change(fns, ln.z0, direction, 60, guards=_guards(ln, direction))
    if name is None or name.startswith("guard"):
        raise ArithmeticError("C crossing not found")
    zC = _bisect(fns["U"], zl, zr, tol)
    pt = ln.point(zC)
    margin = E_sad() - (E0 - pt["h"])
    out["margin"] = margin
    if abs(margin) <= mp.mpf(10) ** (-(dps - 2)):
        out.update({"class": "station", "limit": [pt["e"], derived()["w_sad"](), pt["a"]], "case": "C-race tie"})
        return out
    if margin > 0:
        return glob("line crosses C; U = 0 first", event=("U", zC))
    # V first: E0 - h increases monotonically on [z0, zC] and passes E_sad at z_V
    gV = lambda x: E_sad() - (E0 - ln.point(x)["h"])
    zV = _bisect(gV, ln.z0, zC, tol)
    return glob("line crosses C; V = 0 first", event=("V", zV))


# ---------------------------------------------------------------------------------------------
# prediction next to the integrated flow
# ---------------------------------------------------------------------------------------------

def integrated(p, q, theta0, dps: int = 30, max_steps: int = 40000, rtol=None):
    """(class, FlowResult) of the repository integrator (`ReducedFlow(p, q, attention=True)`, local tolerance
    10^-(3dps/4)) from θ0, the end point named by `flow.critical_class` (the flow's own distances)."""
    with working(dps):
        rtol = mp.mpf(10) ** (-(3 * dps // 4)) if rtol is None else rtol
    return integrate_class(Fraction(p), Fraction(q), tuple(Fraction(x) for x in theta0), dps=dps, attention=True,
                           rtol=rtol, max_steps=max_steps)


def compare_R3(p, q, theta0, dps: int = 30, limit: bool = True) -> dict:
    """Predicted class (and limit) against the integrated flow: {"predicted", "integrated", "case", "agree",
    "limit_gap" (max |predicted - integrated| of the limit points, None when either is missing), "status"}."""
    pr = predict_R3(p, q, theta0, dps=dps, limit=limit)
    cls, res = integrated(p, q, theta0, dps=dps)
    gap = None
    with working(dps):
        if pr["limit"] is not None and res.converged:
            gap = max(abs(x - y) for x, y in zip(pr["limit"], res.theta))
    return {"theta0": [str(Fraction(x)) for x in theta0], "predicted": pr["class"], "integrated": cls,
            "case": pr["case"], "agree": pr["class"] == cls, "limit_gap": gap, "status": res.status,
            "steps": res.steps, "margin": pr["margin"], "a_inf": pr["a_inf"]}


def random_starts(n: int, seed: int, box=Fraction(2), den: int = 1000) -> list[tuple]:
    """n exact starts uniform on the grid (1/den)Z^3 ∩ [-box, box]^3 (random.Random(seed))."""
    rng = random.Random(seed)
    k = int(box * den)
    return [tuple(Fraction(rng.randint(-k, k), den) for _ in range(3)) for _ in range(n)]


def station_w(e0, a0, regime: int, dps: int = 60) -> mp.mpf:
    """w0 with E0 - h_C = E_sad for the line through (e0, a0) (the C-race tie), on the branch of the regime
    (B_low for p+q > 1 with U0 < 0, B_mid for p+q < 1); the crossing of C found on the race direction."""
    with working(dps):
        ln = Line(e0, a0)
        d = -1 if derived()["U"](mpf_exact(e0), mpf_exact(a0)) < 0 else 1
        name, zl, zr = _first_sign_change({"U": ln.cfun}, ln.z0, d, 60, guards=_guards(ln, d))
        zC = _bisect(ln.cfun, zl, zr, mp.mpf(10) ** (-(dps + 5)))
        hC = ln.point(zC)["h"]
        h0 = derived()["h"](mpf_exact(e0), mpf_exact(a0))
        return w_branch(E_sad() - (h0 - hC), "low" if regime > 0 else "mid")


def boundary_starts(regime: int, ks=(2, 4, 8, 12), parts=("S", "sad", "st")) -> list[dict]:
    """Starts at 10^-k on both sides of each part of the basin boundary (exact Fractions):

    S: the separatrix cylinder S x [0, oo) (p+q > 1 only): offset in e at a0 = ±1/2, w0 = 0, 1/2;
    sad: the race surface Σ_sad = {(e, a) ∈ R, f(w) = E_sad - Δ}: offset in w at two points of R;
    st: the station surface {f(w) = E_sad - (h0 - h_C)} at (3/2, ·, -1) (U0 < 0): global on both sides."""
    rows = []
    if "S" in parts and regime > 0:
        for a0 in (Fraction(-1, 2), Fraction(1, 2)):
            with working(70):
                eS = frac_of(mp.sqrt(sep_y(a0, dps=70)))
            for w0 in (Fraction(0), Fraction(1, 2)):
                for k in ks:
                    dk = Fraction(1, 10**k)
                    rows.append({"part": "S", "side": "inside (e < e_S)", "k": k, "theta": (eS - dk, w0, a0)})
                    rows.append({"part": "S", "side": "outside (e > e_S)", "k": k, "theta": (eS + dk, w0, a0)})
    if "sad" in parts:
        pts = [(Fraction(1, 2), Fraction(0)), (Fraction(-3, 10), Fraction(-1, 2))] if regime > 0 else \
              [(Fraction(1, 2), Fraction(0)), (Fraction(3, 10), Fraction(1, 2))]
        for e0, a0 in pts:
            with working(70):
                wc = frac_of(w_c(e0, a0, regime, dps=70)[0])
            for k in ks:
                dk = Fraction(1, 10**k)
                rows.append({"part": "sad", "side": "w > w_c", "k": k, "theta": (e0, wc + dk, a0)})
                rows.append({"part": "sad", "side": "w < w_c", "k": k, "theta": (e0, wc - dk, a0)})
    if "st" in parts:
        e0, a0 = Fraction(3, 2), Fraction(-1)
        with working(75):
            ws = frac_of(station_w(e0, a0, regime, dps=75))
        for k in ks:
            dk = Fraction(1, 10**k)
            rows.append({"part": "st", "side": "w > w_st", "k": k, "theta": (e0, ws + dk, a0)})
            rows.append({"part": "st", "side": "w < w_st", "k": k, "theta": (e0, ws - dk, a0)})
    return rows


def dps_for(k) -> int:
    """Working digits for a start at distance 10^-k from a boundary (the flow's own accuracy must be finer)."""
    return 30 if (k is None or k <= 8) else 40


# ---------------------------------------------------------------------------------------------
# `l2g flow --a0`: the prediction next to the integration
# ---------------------------------------------------------------------------------------------

def flow_prediction(chain: NumericChain, theta0, dps: int = 30) -> dict:
    """The predicted class and limit (decimal strings, `dps` digits) of `predict_R3` at `dps` digits, for
    `l2g flow --a0`."""
    pr = predict_R3(chain, None, theta0, dps=dps)
    with working(dps):
        lim = None if pr["limit"] is None else [mp.nstr(x, dps) if x != 0 else "0" for x in pr["limit"]]
        return {"class": pr["class"], "limit": lim, "reason": pr["case"],
                "a_inf": None if pr["a_inf"] is None else mp.nstr(pr["a_inf"], dps)}
