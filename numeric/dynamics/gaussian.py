r"""Gaussian initialization θ_0 ~ N(0, σ^2 I_2): certified probability of each basin of Thms 2 and 8 (Sec. 4).

The paper says "with high probability" for σ^2 << 1/√2; here the probabilities are computed, with
rigorous error bounds. The basins I_min are {|e| < g(w)} over an interval of w (plus the half-plane
w > 0 when p+q > 1); I_sad, I_max and the e-axis have measure zero. By Fubini, with e ~ N(0, σ^2)
independent of w, P(|e| < g(w)) = erf(g(w)/(σ√2)), and with φ_σ, Φ_σ the N(0, σ^2) density and cdf,

    p+q > 1:  P(I_min) = 1/2 + ∫_{w_sad}^{0} φ_σ(w) erf(g(w)/(σ√2)) dw,
              P(I*)    = Φ_σ(w_sad) + ∫_{w_sad}^{0} φ_σ(w) erfc(g(w)/(σ√2)) dw,
    p+q < 1:  P(I_min) = ∫_{-∞}^{w_sad} φ_σ(w) erf(g(w)/(σ√2)) dw,
              P(I*)    = Φ_σ(-w_sad) + ∫_{-∞}^{w_sad} φ_σ(w) erfc(g(w)/(σ√2)) dw,

w_sad = -1/√2 and g(w) = sqrt(E_sad - f(w)) being the *derived* saddle and saddle asymptote
(`symbolic.energy`). Neither the sets nor g involve p or q (the energy E(e, w) of Lemma 9 has no p, q),
so the probabilities depend on the chain only through the sign of p+q-1 (`depends_only_on_regime`).

Certified enclosures (`certified_probabilities`). Each probability is the sum of pieces, each an arb
ball that contains the exact value, and both probabilities are computed from their own integrals (the
small one is never 1 minus the large one; their sum containing 1 is a genuine check):

- the Gaussian masses: P(w < -y) = erfc(y/(σ√2))/2 and P(-y < w < 0) = erf(y/(σ√2))/2, written for
  y >= 0 only (SymPy rewrites erfc(-u) as 2 - erfc(u), which cancels catastrophically where erfc(u)
  is tiny; `_compile` refuses any erf/erfc inside a sum);
- near the saddle, g(w) = sqrt(h(w)) with h having a *double* zero at w_sad: the principal square root
  of h is not holomorphic on any complex neighbourhood of w_sad, and ball arithmetic on h cancels there
  (h ~ 2(w - w_sad)^2, a ball of radius r gives radius ~ 3r). With s = 2w^2 - 1 (s = 0 at w_sad,
  w = -sqrt((1+s)/2)) SymPy verifies h = a (s - log(1+s)) (a = 1/2 derived) and hence
  g = |s| sqrt(a ψ(s)), ψ(s) = (s - log(1+s))/s^2 = Σ_{n>=0} (-s)^n/(n+2), which is holomorphic
  across s = 0 (|s| < 1). On the window w ∈ [w_sad, -1/2] (p+q > 1; s ∈ [-1/2, 0]) or
  w ∈ [-7/8, w_sad] (p+q < 1; s ∈ [0, 17/32]) the integral is taken in r = |s| ∈ [0, r_end] with
  `flint.acb.integral`, ψ by its series with the tail bound |Σ_{n>=N}| <= |s|^N / ((N+2)(1-|s|));
- away from the saddle, the derived g is translated as is (`numeric.evaluate.arb.acb_function`, whose
  log and sqrt forward acb.integral's `analytic` flag, so every integrand is proven holomorphic on the
  balls where Gauss-Legendre is applied). On w ∈ [-1/2, 0) (p+q > 1) the variable is w = -2^-v,
  v ∈ [1, V]: log(-w) = -v log 2 is entire, which removes the logarithmic singularity at w = 0^-;
  on w ∈ [-L, -7/8] (p+q < 1) w itself;
- the ends, bounded analytically: g increases towards w = 0^- and towards w = -∞ (f' < 0 on
  (w_sad, 0) and f' > 0 on (-∞, w_sad), Lemma 12, decided by SymPy in `energy_on_w_axis`), φ_σ > 0,
  0 <= erf, erfc <= 1, so with δ = 2^-V

      ∫_{-δ}^{0} φ_σ erfc(g/(σ√2)) ∈ [0, ΔΦ erfc(g(-δ)/(σ√2))],  ΔΦ = Φ_σ(0) - Φ_σ(-δ) = erf(δ/(σ√2))/2,
      ∫_{-δ}^{0} φ_σ erf(g/(σ√2))  ∈ [ΔΦ erf(g(-δ)/(σ√2)), ΔΦ],

  and the same on (-∞, -L] with Φ_σ(-L) = erfc(L/(σ√2))/2 in place of ΔΦ. V and L are doubled until
  the width of the end piece is below the relative goal of the total.

Precision: `dps` is the working precision in decimal digits (flint prec = ceil(dps log2 10) + 32 bits);
each piece is integrated to relative tolerance 10^-dps, so an enclosure's relative radius is a few
10^-dps. `certified_probabilities` guarantees (or raises) relative radius <= 10^-floor(dps/2), raising
the precision once if needed. There is no exponent limit: arb's exponents are unbounded (P(I*) at
σ = 0.005, p+q > 1, is 3.2·10^-3013; at σ = 1/1000, 4.1·10^-75261).

A seeded Monte Carlo (`monte_carlo`) draws starts, names their basins with the theorem's sets and the
analytic predictor, and integrates a few; `prob_report` compares it with the enclosures (z-scores).
"""
from __future__ import annotations

import math
import sys
from fractions import Fraction
from functools import lru_cache

import flint
import sympy as sp

from local2global.symbolic import symbols as S
from local2global.symbolic import basins as sbasins, energy as senergy

from local2global.numeric.evaluate.arb import (acb_function, arb_rational, correct_digits, decimal_bounds,
                                               endpoints, precision)
from local2global.numeric.chain import NumericChain
from local2global.numeric.dynamics.basins import regime_of, classify_theorem, integrate_class, predict
from local2global.numeric.dynamics.flow import ReducedFlow
from local2global.numeric.dynamics.initialisation import gaussian_starts

CLASSES = ("local_min", "global_min", "saddle", "local_max")
W_RIGHT = sp.Rational(-1, 2)      # right end of the saddle window (p+q > 1): s = -1/2
W_LEFT = sp.Rational(-7, 8)       # left end of the saddle window (p+q < 1): s = 17/32
PSI_RADIUS = sp.Rational(7, 8)    # the ψ series is used on balls with |s| <= 7/8 only


def _bits(dps: int) -> int:
    return math.ceil(dps * math.log2(10)) + 32


# ---------------------------------------------------------------------------------------------
# the integrands, from the derived g, w_sad (symbolic.energy)
# ---------------------------------------------------------------------------------------------

def _compile(expr: sp.Expr, symbols):
    """acb_function(expr), refusing an erf/erfc inside a sum (SymPy rewrites erfc(-u) as 2 - erfc(u),
    which evaluates a tiny value as a difference of O(1) numbers in ball arithmetic) and arguments
    from which SymPy could still extract a minus sign."""
    for node in sp.preorder_traversal(expr):
        if node.is_Add and any(t.has(sp.erf, sp.erfc) for t in node.args):
            raise AssertionError(f"erf/erfc inside a sum (cancellation): {expr}")
        if isinstance(node, (sp.erf, sp.erfc)) and node.args[0].could_extract_minus_sign():
            raise AssertionError(f"erf/erfc argument with a minus sign: {expr}")
    return acb_function(expr, symbols)


@lru_cache(maxsize=None)
def _model() -> dict:
    """SymPy integrands of the basin probabilities, built from the derived g and w_sad, compiled to acb.

    Keys: "tail" (y, sigma) -> Φ_σ(-y) and "mass0" (y, sigma) -> Φ_σ(0) - Φ_σ(-y), for y >= 0;
    "g" (w) -> g(w); "minus_w_sad" () -> -w_sad; "v_in"/"v_out" (v, sigma): the erf/erfc integrands
    in w = -2^-v times dw/dv; "s_in"/"s_out" [side] (r, Psi, sigma): the integrands in r = |s|,
    s = 2w^2 - 1, times |dw/dr|, with g = r sqrt(a Psi) on that side of the saddle; "w_in"/"w_out"
    (w, G, sigma): the integrands in w for a given G = g(w); "a": the derived factor in g^2 = a (s - log(1+s)).
    """
    w = S.w_neg
    g = senergy.g_of_w()
    ew = senergy.energy_on_w_axis()
    w_sad = ew["w_sad"]
    # the end bounds use the monotonicity of g (Lemma 12 (i), derived with a positive reparameterisation):
    # g^2 = E_sad - f, so g grows towards 0^- where f' < 0 and towards -inf where f' > 0
    if not (ew["df_right_of_w_sad"].is_negative and ew["df_left_of_w_sad"].is_positive):
        raise AssertionError("the tail bounds need f' < 0 on (w_sad, 0) and f' > 0 on (-inf, w_sad)")
    sig = sp.Symbol("sigma", positive=True)
    G = sp.Symbol("G", nonnegative=True)
    y, v, s = sp.Symbol("y", nonnegative=True), sp.Symbol("v", positive=True), sp.Symbol("s")
    r, Psi = sp.Symbol("r", nonnegative=True), sp.Symbol("Psi", positive=True)
    phi = sp.exp(-w**2 / (2 * sig**2)) / (sig * sp.sqrt(2 * sp.pi))      # the N(0, sigma^2) density
    F = {"in": phi * sp.erf(G / (sig * sp.sqrt(2))), "out": phi * sp.erfc(G / (sig * sp.sqrt(2)))}
    # N(0, sigma^2) masses, written for y >= 0 only: SymPy rewrites erfc(-u) as 2 - erfc(u), which in
    # ball arithmetic cancels catastrophically where erfc(u) is tiny; `_compile` refuses such arguments
    out = {"tail": _compile(sp.erfc(y / (sig * sp.sqrt(2))) / 2, (y, sig)),          # P(w < -y)
           "mass0": _compile(sp.erf(y / (sig * sp.sqrt(2))) / 2, (y, sig)),          # P(-y < w < 0)
           "g": _compile(g, (w,)), "minus_w_sad": _compile(-w_sad, ())}
    for k, Fk in F.items():
        out[f"w_{k}"] = _compile(Fk, (w, G, sig))
    # near w = 0^-: w = -2^-v; log(-w) = -v log 2 is entire in v
    wv = -2**(-v)
    gv = sp.expand_log(g.subs(w, wv), force=True)
    if gv.has(sp.log(2**(-v))) or gv.free_symbols != {v}:
        raise AssertionError(f"g(-2^-v) did not simplify: {gv}")
    for k, Fk in F.items():
        out[f"v_{k}"] = _compile(Fk.subs(G, gv).subs(w, wv) * sp.diff(wv, v), (v, sig))
    # near the saddle: s = 2 w^2 - 1, w = -sqrt((1+s)/2); check g^2 = a (s - log(1+s)) with a > 0
    ws = -sp.sqrt((1 + s) / 2)
    if sp.simplify(ws.subs(s, 0) - w_sad) != 0 or sp.simplify((2 * w**2 - 1).subs(w, ws) - s) != 0:
        raise AssertionError("s = 2w^2 - 1 does not put the saddle at s = 0")
    hs = sp.expand_log(g.subs(w, ws)**2, force=True)
    a = sp.nsimplify(sp.simplify(sp.diff(hs, s, 2).subs(s, 0)))
    core = s - sp.log(1 + s)
    # equal values at s = 0 and equal derivatives on s > -1 (w < 0): identical there
    if not (a.is_Rational and a > 0 and sp.simplify(hs.subs(s, 0)) == 0
            and sp.cancel(sp.diff(hs, s) - a * sp.diff(core, s)) == 0):
        raise AssertionError(f"g^2 is not a (s - log(1+s)) near the saddle: {hs}")
    out["a"] = a
    # On each side the window variable is r = |s| >= 0 (s = -r on (w_sad, 0), s = +r on (-inf, w_sad)), so
    # g = r sqrt(a psi(s)) carries no minus sign (SymPy would rewrite erfc(-x) as 2 - erfc(x): cancellation).
    # The window is integrated over r in [0, r_end] with |dw/dr|.
    for side, kappa in (("right", -1), ("left", 1)):
        wr = ws.subs(s, kappa * r)
        jac = sp.diff(wr, r) * (1 if side == "right" else -1)      # w increases with r on the right only
        if not jac.subs(r, 0).is_positive:
            raise AssertionError(f"orientation of the saddle window ({side})")
        Gr = r * sp.sqrt(a * Psi)
        for k, Fk in F.items():
            out.setdefault(f"s_{k}", {})[side] = _compile(Fk.subs(G, Gr).subs(w, wr) * jac, (r, Psi, sig))
    return out


_PSI_POLYS: dict = {}


def _psi(s: flint.acb, analytic: bool) -> flint.acb:
    """ψ(s) = (s - log(1+s))/s^2 = Σ_{n>=0} (-s)^n/(n+2) on a ball with |s| <= 7/8, with the tail bound.

    Holomorphic on |s| < 1; beyond 7/8 the result is non-finite (acb.integral then subdivides)."""
    m = s.abs_upper()
    if not m <= arb_rational(PSI_RADIUS):
        return flint.acb(flint.arb("nan"), flint.arb("nan"))
    prec = flint.ctx.prec
    mf = float(m.upper())
    # terms so that m^N / ((N+2)(1-m)) <= 2^-prec (floats only choose N; the bound is computed in arb)
    n = 1 if mf == 0 else max(1, math.ceil((prec + 4) / -math.log2(mf)))
    n = 16 * math.ceil(n / 16)
    key = (prec, n)
    poly = _PSI_POLYS.get(key)
    if poly is None:
        poly = _PSI_POLYS[key] = flint.acb_poly([flint.acb(flint.arb(flint.fmpq((-1) ** j, j + 2))) for j in range(n)])
    val = poly(s)
    tail = (m ** n / ((n + 2) * (1 - m))).upper()
    err = flint.arb(0, tail)
    return val + flint.acb(err, err)


def _integrate(f, a, b, goal_bits: int, scale=None) -> flint.arb:
    """∫_a^b f (real a, b exact rationals) by flint.acb.integral; the real part of the enclosure.

    `scale`: a magnitude the result is compared with (abs_tol = 2^-goal_bits scale). It only steers
    the work (acb.integral otherwise resolves negligible regions to their own relative accuracy);
    the enclosure is rigorous for any tolerance."""
    abs_tol = flint.arb(0) if scale is None else (scale * flint.arb(2) ** -goal_bits).upper()
    res = flint.acb.integral(f, flint.acb(arb_rational(a)), flint.acb(arb_rational(b)),
                             rel_tol=flint.arb(2) ** -goal_bits, abs_tol=abs_tol)
    if not res.is_finite():
        raise ArithmeticError(f"acb.integral did not converge on [{a}, {b}]")
    return res.real


def _hull(lo: flint.arb, hi: flint.arb) -> flint.arb:
    return lo.union(hi)


def _pieces(regime: int, sigma: Fraction, dps: int) -> dict:
    """Enclosures of P(I_min), P(I*) as sums of pieces (see the module docstring), at the current prec."""
    M = _model()
    goal = math.ceil(dps * math.log2(10))
    sig = flint.acb(arb_rational(sigma))
    c = arb_rational(sigma) * flint.arb(2).sqrt()                # σ√2
    y_sad = M["minus_w_sad"]().real                                # -w_sad = 1/√2
    tail = lambda y: M["tail"](flint.acb(y), sig).real           # P(w < -y) = Φ_σ(-y)
    mass0 = lambda y: M["mass0"](flint.acb(y), sig).real         # P(-y < w < 0)
    gfun = lambda x: M["g"](flint.acb(x)).real
    eps = flint.arb(2) ** -goal
    side = "right" if regime > 0 else "left"
    kappa = -1 if regime > 0 else 1
    r_end = abs(2 * (W_RIGHT if regime > 0 else W_LEFT) ** 2 - 1)      # s at w = -1/2 or w = -7/8

    def window(k):
        # ∫ over w from w_sad to -1/2 (right) or from -7/8 to w_sad (left), taken in r = |s|
        fs = M[f"s_{k}"][side]
        f = lambda z, an: fs(z, _psi(kappa * z, an), sig, analytic=an)
        # a rough magnitude (steers the tolerance only): the largest of 17 point values times a width
        # below the peak's (~σ), so that it stays below the integral
        top = max(f(flint.acb(arb_rational(r_end * j / 16)), False).real.upper() for j in range(17))
        return _integrate(f, 0, r_end, goal, scale=top * arb_rational(min(sigma, r_end)) / 64)

    res = {}
    for k, cls in (("in", "local_min"), ("out", "global_min")):
        if regime > 0:     # P(w > 0) = 1/2 in I_min; P(w < w_sad) in I*
            const = flint.arb(1) / 2 if k == "in" else tail(y_sad)
        else:              # P(w > w_sad) = 1/2 + P(w_sad < w < 0) in I*
            const = flint.arb(0) if k == "in" else flint.arb(1) / 2 + mass0(y_sad)
        total = const + window(k)
        if regime > 0:
            fv = M[f"v_{k}"]
            f = lambda z, an, fv=fv: fv(z, sig, analytic=an)
            lo_v, hi_v = 1, 8
            while True:
                total += _integrate(f, lo_v, hi_v, goal, scale=total.lower())
                delta = flint.arb(2) ** -hi_v
                dphi = mass0(delta)
                ge = gfun(-delta) / c
                end = _hull(dphi * ge.erf(), dphi) if k == "in" else _hull(flint.arb(0), dphi * ge.erfc())
                if 2 * end.rad() <= eps * total.lower():
                    break
                lo_v, hi_v = hi_v, 2 * hi_v
            pieces_info = {"v_end": hi_v}
        else:
            fw = M[f"w_{k}"]
            gw = M["g"]
            f = lambda z, an, fw=fw: fw(z, gw(z, analytic=an), sig, analytic=an)
            lo_w, hi_w = -2, W_LEFT
            while True:
                total += _integrate(f, lo_w, hi_w, goal, scale=total.lower())
                L = arb_rational(-lo_w)
                far = tail(L)                                    # Φ_σ(-L)
                ge = gfun(-L) / c
                end = _hull(far * ge.erf(), far) if k == "in" else _hull(flint.arb(0), far * ge.erfc())
                if 2 * end.rad() <= eps * total.lower():
                    break
                lo_w, hi_w = 2 * lo_w, lo_w
            pieces_info = {"L": -lo_w}
        res[cls] = total + end
        res[cls + "_info"] = pieces_info
    return res


def _relative_radius(x: flint.arb) -> Fraction:
    """An upper bound of rad(x)/|x| for a ball bounded away from 0 (infinite otherwise)."""
    if not x.is_finite():
        return Fraction(10**9)
    lo, hi = endpoints(x)
    if lo <= 0 <= hi:
        return Fraction(10**9)
    return (hi - lo) / 2 / min(abs(lo), abs(hi))


@lru_cache(maxsize=64)
def _certified(regime: int, sigma: Fraction, dps: int) -> dict:
    # the promise: relative radius <= 10^-floor(dps/2); one retry with 64 more bits, then refuse
    target = Fraction(1, 10 ** (dps // 2))
    for extra in (0, 64):
        with precision(_bits(dps) + extra):
            r = _pieces(regime, sigma, dps)
            tight = all(_relative_radius(r[c]) <= target for c in ("local_min", "global_min"))
        if tight:
            return {"local_min": r["local_min"], "global_min": r["global_min"],
                    "saddle": flint.arb(0), "local_max": flint.arb(0), "prec": _bits(dps) + extra,
                    "ends": {k: r[k + "_info"] for k in ("local_min", "global_min")}}
    raise ArithmeticError(f"could not certify the probabilities to 10^-{dps // 2} relative at sigma = {sigma}")


def certified_probabilities(p, q, sigma, dps: int = 40) -> dict:
    r"""Certified enclosures of P(θ_0 ∈ basin) for θ_0 ~ N(0, σ^2 I_2), by the class of the limit.

    {"local_min": arb, "global_min": arb, "saddle": arb(0), "local_max": arb(0), "prec": bits,
    "ends": the V / L where the end pieces were cut}. p, q exact with p+q != 1 (Thm 2 if p+q > 1,
    Thm 8 if p+q < 1); sigma > 0 exact. Each ball contains the exact probability; relative radius
    <= 10^-floor(dps/2) (typically a few 10^-dps), else ArithmeticError. The balls are at `prec` bits: use them under
    `numeric.evaluate.arb.precision(prec)` to keep their accuracy. Saddle and local-max basins
    (I_sad, Θmax) have measure zero: probability exactly 0.
    """
    sigma = Fraction(sigma)
    if sigma <= 0:
        raise ValueError("sigma must be positive")
    return _certified(regime_of(p, q), sigma, int(dps))


def depends_only_on_regime() -> dict:
    """Why the probabilities depend on (p, q) only through sign(p+q-1): the free symbols of the derived
    objects the sets and integrands are built from (g, w_sad, E and the basin conditions)."""
    syms = {"g": senergy.g_of_w().free_symbols, "w_sad": senergy.energy_on_w_axis()["w_sad"].free_symbols,
            "E": senergy.energy().free_symbols}
    for regime in sbasins.REGIMES:
        for b in sbasins.basins(regime):
            for pc in b.pieces or ():
                for ex, _ in pc.conditions:
                    syms.setdefault(f"{regime} {b.name}", set()).update(ex.free_symbols)
    pq = {S.p, S.q}
    return {k: sorted(map(str, v)) for k, v in syms.items()} | {"free_of_p_q": all(not (v & pq) for v in syms.values())}


# ---------------------------------------------------------------------------------------------
# Monte Carlo cross-check
# ---------------------------------------------------------------------------------------------

def monte_carlo(p, q, sigma, n: int = 2000, seed: int = 0, integrate: int = 0, dps: int = 30,
                progress: bool = False) -> dict:
    """Seeded Monte Carlo: fraction of n Gaussian starts (`initialisation.gaussian_starts`, exact) whose basin
    (theorem sets) is I_min / I*; each
    start is also named by the analytic predictor (counted disagreements), and the first `integrate`
    starts are integrated (dps) and their end points classified (counted disagreements). `progress`:
    a tqdm bar on stderr, shown only when stderr is a terminal."""
    counts = {"local_min": 0, "global_min": 0, "saddle": 0, "local_max": 0}
    disagree_pred = disagree_flow = 0
    bar = None
    if progress:
        from tqdm import tqdm
        bar = tqdm(total=n, desc="Monte Carlo", unit="start", file=sys.stderr, disable=not sys.stderr.isatty(),
                   leave=False)
    fl = ReducedFlow(p, q)                  # one chain and one flow for every start
    chain = fl.landscape.chain
    try:
        for i, th in enumerate(gaussian_starts(sigma, n, seed, dim=2)):
            _, cls = classify_theorem(chain, None, th, dps=dps)
            counts[cls] += 1
            if predict(chain, None, th, dps=dps, flow=fl).limit_class != cls:
                disagree_pred += 1
            if i < integrate:
                icls, _ = integrate_class(chain, None, th, dps=dps, flow=fl)
                disagree_flow += icls != cls
            if bar is not None:
                bar.update(1)
    finally:
        if bar is not None:
            bar.close()
    frac = {k: Fraction(v, n) for k, v in counts.items()}
    return {"n": n, "seed": seed, "fractions": frac, "disagree_predictor": disagree_pred,
            "integrated": integrate, "disagree_integrated": disagree_flow}


# ---------------------------------------------------------------------------------------------
# the report of `l2g prob`
# ---------------------------------------------------------------------------------------------

def _bound_digits(n: int) -> int:
    """Significant digits for the decimal endpoints: the guaranteed digits + 5 (outward rounding then
    widens the interval by about 10^-5 of its width), at least 6."""
    return max(6, n + 5)


def _render(x: flint.arb, dps: int) -> dict:
    if x.is_exact() and x == 0:
        return {"value": "0", "exact": True, "digits": None, "error": "0", "error_kind": "exact", "lo": "0", "hi": "0"}
    cd = correct_digits(x, dps)
    n = cd["digits"] if cd else 0
    lo, hi = decimal_bounds(x, _bound_digits(n))
    return {"value": cd["value"] if cd else None, "exact": False, "digits": n,
            "error": cd["error"] if cd else None, "error_kind": "bound", "lo": lo, "hi": hi}


def prob_report(p, q, sigma, dps: int = 40, mc: int = 0, seed: int = 0, progress: bool = False) -> dict:
    """The JSON contract of `l2g prob`. Per class: "value" (the correctly rounded decimal of the
    probability, to "digits" significant digits, all guaranteed by the enclosure), "error" (an upper
    bound of |P - value|, 2 digits rounded up), "lo"/"hi" (decimal strings, rounded outward: the exact
    interval they denote contains P), "exact" (True for the measure-zero classes, P = 0 exactly), "error_kind"
    ("bound", or "exact": the convention of `precision.shown_point`). "sum_minus_1": the enclosure of P(I_min) + P(I*) - 1 (must contain
    0). With mc > 0 the Monte Carlo fractions and their z-scores against the enclosures."""
    chain = NumericChain.of(p, q)           # the one chain of `l2g prob`, passed down
    pr = certified_probabilities(chain, None, sigma, dps=dps)
    rep = {"p": str(chain.p), "q": str(chain.q), "sigma": str(Fraction(sigma)), "dps": dps,
           "regime": "p+q>1" if regime_of(chain) > 0 else "p+q<1",
           "method": "certified: flint.acb.integral of the derived integrands + analytic end bounds (arb balls)",
           "working_precision_bits": pr["prec"]}
    with precision(pr["prec"]):
        for k in CLASSES:
            rep[k] = _render(pr[k], dps)
        s = pr["local_min"] + pr["global_min"] - 1
        lo, hi = decimal_bounds(s, 3)
        rep["sum_minus_1"] = {"lo": lo, "hi": hi, "contains_0": bool(s.contains(0))}
        if mc:
            r = monte_carlo(chain, None, sigma, n=mc, seed=seed, integrate=min(mc, 5), progress=progress)
            m = rep["monte_carlo"] = {}
            for k in ("local_min", "global_min"):
                f = r["fractions"][k]
                est = arb_rational(f)
                var = max(f * (1 - f), Fraction(1, mc))                  # floor: no zero std error at 0 or 1
                se = (arb_rational(var) / mc).sqrt()
                z = (est - pr[k]) / se
                zc, sc = correct_digits(z, 3), correct_digits(se, 3)
                m[k] = {"estimate": f"{f.numerator * (mc // f.denominator)}/{mc}",
                        "std_error": sc["value"] if sc else None, "z": zc["value"] if zc else "0"}
            m.update(n=mc, seed=seed, disagree_predictor=r["disagree_predictor"],
                     integrated=r["integrated"], disagree_integrated=r["disagree_integrated"])
    return rep


def prob_report_text(rep: dict) -> str:
    lines = [f"p = {rep['p']}, q = {rep['q']} ({rep['regime']}), theta0 ~ N(0, sigma^2 I_2), sigma = {rep['sigma']}, "
             f"working precision dps = {rep['dps']}",
             "certified enclosures (arb ball arithmetic); every printed digit is correct (correctly rounded),"
             " +- bounds |P - printed value|:"]
    for k in CLASSES:
        r = rep[k]
        if r["exact"]:
            lines.append(f"P({k:10s}) = 0 (exactly: a set of measure zero)")
        elif r["value"] is None:
            lines.append(f"P({k:10s}) in [{r['lo']}, {r['hi']}] (no digit guaranteed)")
        else:
            lines.append(f"P({k:10s}) = {r['value']} +- {r['error']}")
    s = rep["sum_minus_1"]
    lines.append(f"P(local_min) + P(global_min) - 1 in [{s['lo']}, {s['hi']}]"
                 + ("" if s["contains_0"] else "  (DOES NOT CONTAIN 0)"))
    if "monte_carlo" in rep:
        m = rep["monte_carlo"]
        for k in ("local_min", "global_min"):
            lines.append(f"Monte Carlo {k}: {m[k]['estimate']} (std error {m[k]['std_error']}; "
                         f"z = (estimate - P)/std error = {m[k]['z']})")
        lines.append(f"Monte Carlo n = {m['n']}, seed {m['seed']}: predictor disagreements {m['disagree_predictor']}, "
                     f"integrated {m['integrated']} starts, disagreements {m['disagree_integrated']}")
    return "\n".join(lines)
