r"""Thm 11 made precise (our result): P(θ_lim is a local minimum) for θ0 ~ N(0, σ^2 I_3), GF-Attention in R^3.

By Thms A, B (`symbolic.basins_r3`) and Fubini (w0 is independent of (e0, a0)):

    p+q > 1:  P_min(σ) = E[1_R(e, a) Φ(-w_c(e, a)/σ)],   p+q < 1:  P_min(σ) = E[1_R(e, a) Φ(w_c'(e, a)/σ)],

so P_min depends on (p, q) only through sign(p+q-1). What is rigorous here (python-flint arb balls):

* `lower_bound(σ)` (p+q > 1): cells (|e| ∈ (e_{i-1}, e_i]) x [a_lo, a_hi] that Lemma C certifies (exact
  Fractions: every descending line from the cell reaches the axis, Δ <= Dbar on the cell), each contributing
  P(e-cell) P(a-cell) P(w0 > w_c(Dbar)); w_c increases with Δ (Lemma C), so w0 > w_c(Dbar) implies a local
  minimum (Thm A). A ball containing LB(σ) <= P_min(σ).
* `monotone_bound(σ0)` (p+q > 1): an ε with 1 - P_min(σ) <= ε for EVERY σ <= σ0 (each term increases in σ).
* `upper_bound_below1(σ)` (p+q < 1): I_min ⊂ {w < -1/√2} (Thm B), so P_min <= P(w0 < w_sad) = erfc(1/(2σ))/2.
* `monte_carlo`: seeded Gaussian starts classified by the characterisation (`basins_r3.predict_R3`, limit
  points off), in fixed chunks through `infra.executor.map_chunks` (bitwise independent of the executor).

Every formula (D, Dbar, the hypotheses of Lemma C, w_c, w_sad) is the derived one of `symbolic.basins_r3` /
`symbolic.energy`, compiled here; inputs are exact (Fraction).
"""
from __future__ import annotations

import itertools
from fractions import Fraction
from functools import lru_cache

import sympy as sp

from local2global.symbolic import basins_r3 as sr3
from local2global.symbolic import energy as senergy

from local2global.numeric.dynamics.initialisation import gaussian_starts

#: the default cell design: e_i = i/100 for i <= 80, a-cells of width 1/20 in [-2, 2]
E_MAX, N_E, A_MAX, N_A = Fraction(4, 5), 80, Fraction(2), 80
#: the monotone (uniform in σ) design: symmetric a-boxes [-A_i, A_i], A_i <= 6/5
A_CAP = Fraction(6, 5)


@lru_cache(maxsize=None)
def _lemma_c():
    """Lemma C's D(Y, m), Dbar(Y, m, a_lo) and its two hypotheses as exact Fraction functions (derived), and
    whether `certify_cell` may search its grid (`_searchable`)."""
    from local2global.numeric.dynamics.basins_r3 import fraction_function
    lc = sr3.lemma_c()
    args = (sr3.Y, sr3.m_, sr3.a_lo)
    return {"D": fraction_function(lc["D"], args), "Dbar": fraction_function(lc["Dbar"], args),
            "rate": fraction_function(lc["hypothesis_rate"], args),       # 8 - 16 m Y > 0
            "reach": fraction_function(lc["hypothesis_reach"], args),     # a_lo - D + m > 0
            "searchable": _searchable(lc["hypothesis_rate"], lc["hypothesis_reach"])}


def _searchable(rate, reach) -> bool:
    r"""Whether the first grid point m with rate > 0 and reach > 0 may be searched for instead of walked to, checked
    exactly on the derived hypotheses (Y > 0): the rate is affine and decreasing in m, and the reach is concave in m
    where the rate is positive (reach'' rate^3 is a polynomial <= 0; reach has no pole there).

    Then along the grid m_k = k/1000 (k >= k0) the rate is positive exactly on an initial segment k < K, and on it
    the differences of the reach do not increase. Let stops(k) say: k >= K, or reach(m_k) > 0, or k + 1 = K, or
    reach(m_{k+1}) <= reach(m_k). stops is False then True along k (once the reach is positive it stays so up to
    its peak; once it has stopped rising it never rises again), so its first k is found by galloping and
    bisection, and it is the walk's answer: before it the reach is <= 0; at it, reach > 0 gives the answer, and
    otherwise reach(m_k) <= 0 is the largest value on the segment (None)."""
    Y = sp.Symbol("Y", positive=True)
    m = sr3.m_
    rate, reach = rate.subs(sr3.Y, Y), reach.subs(sr3.Y, Y)
    curvature = sp.factor(sp.diff(reach, m, 2) * rate**3)
    return bool(sp.diff(rate, m, 2) == 0 and sp.diff(rate, m).is_negative and curvature.is_polynomial(m)
                and curvature.is_nonpositive)


#: grid points `certify_cell` walks before it searches (most cells of the designs settle within a few)
WALK = 8


def certify_cell(Y: Fraction, a_lo: Fraction):
    """Lemma C for the box {0 < e^2 <= Y} x [a_lo, ·): the smallest m >= max(0, -a_lo) on the grid (1/1000)Z with
    8 - 16mY > 0 and a_lo - D + m > 0, returned as (m, D, Dbar) (exact); None if no such m exists. Then every
    descending line from the box reaches the axis (the box lies in R) and Δ <= Dbar on it.

    The grid is walked from max(0, -a_lo) for WALK points, then searched (`_searchable`: the same m as walking
    on; walked to the end if the derived hypotheses do not have the shape the search needs). Either way the m
    returned satisfies both hypotheses, checked exactly there: the shape decides only that it is the smallest."""
    import gmpy2
    fn = _lemma_c()
    # the same exact rational arithmetic in gmpy2's mpq (GMP), several times faster than Fraction
    Y, a_lo = gmpy2.mpq(Y.numerator, Y.denominator), gmpy2.mpq(a_lo.numerator, a_lo.denominator)
    rate, reach = fn["rate"], fn["reach"]        # reach has a pole where the rate vanishes: only where rate > 0
    k0 = int(max(0, -a_lo) * 1000)
    for k in (range(k0, k0 + WALK) if fn["searchable"] else itertools.count(k0)):
        m = gmpy2.mpq(k, 1000)
        if not rate(Y, m, a_lo) > 0:
            return None
        if reach(Y, m, a_lo) > 0:
            return _cell(fn, Y, m, a_lo)
    rates, reaches = {}, {}

    def rate_ok(k):
        if k not in rates:
            rates[k] = rate(Y, gmpy2.mpq(k, 1000), a_lo) > 0
        return rates[k]

    def reach_at(k):
        if k not in reaches:
            reaches[k] = reach(Y, gmpy2.mpq(k, 1000), a_lo)
        return reaches[k]

    def stops(k):
        return not rate_ok(k) or reach_at(k) > 0 or not rate_ok(k + 1) or reach_at(k + 1) <= reach_at(k)

    lo, hi = k0 + WALK - 1, k0 + WALK     # stops(hi) once galloped; stops(lo) is False, or lo was walked
    while not stops(hi):
        lo, hi = hi, hi + 2 * (hi - lo)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if stops(mid) else (mid, hi)
    if rate_ok(hi) and reach_at(hi) > 0:
        return _cell(fn, Y, gmpy2.mpq(hi, 1000), a_lo)
    return None


def _cell(fn, Y, m, a_lo) -> tuple:
    """(m, D, Dbar) as Fractions."""
    return tuple(map(_fraction, (m, fn["D"](Y, m, a_lo), fn["Dbar"](Y, m, a_lo))))


def _fraction(x) -> Fraction:
    return Fraction(int(x.numerator), int(x.denominator))


@lru_cache(maxsize=None)
def design_cells(n_e: int = N_E, e_max: Fraction = E_MAX, a_max: Fraction = A_MAX, n_a: int = N_A) -> tuple:
    """The certified cells: (e_lo, e_hi, a_lo, a_hi, Dbar) for every box of the grid Lemma C certifies."""
    cells = []
    a_cells = [(alo, alo + 2 * a_max / n_a) for alo in (-a_max + 2 * a_max * j / n_a for j in range(n_a))]
    for i in range(1, n_e + 1):
        elo, ehi = e_max * (i - 1) / n_e, e_max * i / n_e
        Y = ehi * ehi
        for alo, ahi in a_cells:
            cert = certify_cell(Y, alo)
            if cert is not None:
                cells.append((elo, ehi, alo, ahi, cert[2]))
    return tuple(cells)


@lru_cache(maxsize=None)
def design_monotone(n_e: int = N_E, e_max: Fraction = E_MAX, a_cap: Fraction = A_CAP) -> tuple:
    """Per e-slab the largest symmetric box [-A, A] (A <= a_cap, step 1/100) Lemma C certifies: (e_lo, e_hi, A, Dbar)."""
    slabs = []
    for i in range(1, n_e + 1):
        elo, ehi = e_max * (i - 1) / n_e, e_max * i / n_e
        A = a_cap
        while A > 0:
            cert = certify_cell(ehi * ehi, -A)
            if cert is not None:
                slabs.append((elo, ehi, A, cert[2]))
                break
            A -= Fraction(1, 100)
    return tuple(slabs)


class _Prec:
    """flint's working precision, set locally (restored on exit)."""

    def __init__(self, prec):
        self.prec = prec

    def __enter__(self):
        from flint import ctx
        self.old, ctx.prec = ctx.prec, self.prec

    def __exit__(self, *exc):
        from flint import ctx
        ctx.prec = self.old


def _ball(x):
    from flint import arb, fmpq
    if not isinstance(x, Fraction):
        x = Fraction(x)
    return arb(fmpq(x.numerator, x.denominator))


def _wc_arb():
    from local2global.numeric.dynamics.basins_r3 import derived_arb
    return derived_arb()["w_c"]


#: the balls w_c(Dbar) / w_c'(Dbar) by (Dbar as (numerator, denominator), precision, regime): constants of Lemma C's
#: race, independent of σ and of any statement under test, so computed once per process (the same operations on the
#: same exact input at the same precision give the same ball)
_W_RACE: dict = {}


def lower_bound(sigma, prec: int = 128, cells=None, regime: int = 1) -> dict:
    r"""A ball containing LB(σ) <= P_min(σ) (every σ > 0), with ε = 1 - LB split into the mass outside the certified
    cells and the race term inside them. p+q > 1 (regime +1): a cell counts with P(w0 > w_c(Dbar)) (w_c increases
    with Δ on B_mid); p+q < 1 (regime -1): with P(w0 < w_c'(Dbar)) (w_c' decreases with Δ on B_low, f increasing
    there), since w0 < w_c'(Dbar) <= w_c'(Δ) gives a local minimum (Thm B). `cells` defaults to `design_cells()`."""
    from flint import arb
    from local2global.numeric.dynamics.basins_r3 import derived_arb
    cells = design_cells() if cells is None else cells
    wc = derived_arb()["w_c" if regime > 0 else "w_c_prime"]
    with _Prec(prec):
        sr2 = _ball(sigma) * arb(2).sqrt()
        LB, covered, race = arb(0), arb(0), arb(0)
        # a cell edge is shared by many cells and a Dbar by several: each ball below is computed once per edge
        # or Dbar (the same operations on the same exact inputs at the same precision give the same ball); keyed
        # by (numerator, denominator), as a Fraction's hash computes a modular inverse on every call
        erf_at, fail_at = {}, {}

        def erf_edge(x):
            key = (x.numerator, x.denominator)
            out = erf_at.get(key)
            if out is None:
                out = erf_at[key] = (_ball(x) / sr2).erf()
            return out

        for elo, ehi, alo, ahi, Db in cells:
            key = (Db.numerator, Db.denominator)
            if key not in fail_at:
                wbar = _W_RACE.get((key, prec, regime))
                if wbar is None:
                    wbar = _W_RACE[key, prec, regime] = wc(_ball(Db))
                # P(w0 fails the race) = P(w0 <= wbar) = erfc(-wbar/(σ√2))/2 (regime +1); P(w0 >= wbar) (regime -1)
                fail = (-wbar / sr2).erfc() / 2 if regime > 0 else (wbar / sr2).erfc() / 2
                fail_at[key] = (fail, 1 - fail)
            fail, win = fail_at[key]
            pe = erf_edge(ehi) - erf_edge(elo)
            pa = (erf_edge(ahi) - erf_edge(alo)) / 2
            cell = pe * pa                # P(e-cell) P(a-cell), once for the three sums
            LB += cell * win
            covered += cell
            race += cell * fail
        return {"sigma": Fraction(sigma), "LB": LB, "eps": 1 - LB, "eps_uncovered": 1 - covered, "eps_race": race,
                "cells": len(cells), "prec": prec, "regime": regime}


def monotone_bound(sigma0, prec: int = 128, slabs=None) -> dict:
    r"""p+q > 1: a ball containing ε_mono(σ0) with 1 - P_min(σ) <= ε_mono(σ0) for every σ <= σ0:
    ε_mono(s) = erfc(e_max/(s√2)) + Σ_i erfc(e_{i-1}/(s√2)) [erfc(A_i/(s√2)) + erfc(|w_c(Dbar_i)|/(s√2))/2]."""
    slabs = design_monotone() if slabs is None else slabs
    wc = _wc_arb()
    from flint import arb
    with _Prec(prec):
        sr2 = _ball(sigma0) * arb(2).sqrt()
        eps = (_ball(slabs[-1][1]) / sr2).erfc()
        for elo, ehi, A, Db in slabs:
            eps += (_ball(elo) / sr2).erfc() * ((_ball(A) / sr2).erfc() + (-wc(_ball(Db)) / sr2).erfc() / 2)
        return {"sigma0": Fraction(sigma0), "eps_mono": eps, "slabs": len(slabs), "prec": prec}


def upper_bound_below1(sigma, prec: int = 128) -> dict:
    r"""p+q < 1: a ball containing P(w0 < w_sad) = erfc(|w_sad|/(σ√2))/2 >= P_min(σ) (I_min ⊂ {w < w_sad}, Thm B)."""
    from flint import arb
    from local2global.numeric.evaluate.arb import ball_function
    wsad = ball_function(senergy.energy_on_w_axis()["w_sad"], ())
    with _Prec(prec):
        return {"sigma": Fraction(sigma), "UB": (-wsad() / (_ball(sigma) * arb(2).sqrt())).erfc() / 2, "prec": prec}


def exact_point(x) -> Fraction:
    """The exact value of an arb point (an end point or midpoint: mantissa * 2^exponent) as a Fraction."""
    m, e = x.man_exp()
    return Fraction(int(m)) * Fraction(2) ** int(e)


def decimal_rounded(fr: Fraction, digits: int, up: bool) -> str:
    """fr rounded to `digits` significant decimal digits towards +oo (up) or -oo, exactly; scientific notation
    below 10^-3 (e.g. '4.4507e-9')."""
    if fr == 0:
        return "0"
    k = len(str(abs(fr.numerator))) - len(str(fr.denominator))             # 10^(k-1) < |fr| < 10^(k+1)
    while Fraction(10) ** k > abs(fr):
        k -= 1
    while Fraction(10) ** (k + 1) <= abs(fr):
        k += 1                                                              # now 10^k <= |fr| < 10^(k+1)
    v = fr * Fraction(10) ** (digits - 1 - k)
    n = -((-v.numerator) // v.denominator) if up else v.numerator // v.denominator
    if abs(n) >= 10 ** digits:                                              # rounding carried into a new digit
        n, k = (n // 10 if n > 0 else -((-n) // 10)), k + 1
    sign, digs = ("-" if n < 0 else ""), str(abs(n))
    if k < -3 or k >= digits:
        mant = digs[0] + ("." + digs[1:] if len(digs) > 1 else "")
        return f"{sign}{mant}e{k}"
    e10 = k - (digits - 1)
    if e10 >= 0:
        return sign + digs + "0" * e10
    point = len(digs) + e10
    body = digs[:point] + "." + digs[point:] if point > 0 else "0." + "0" * (-point) + digs
    return sign + body


def ball_interval(x, digits: int = 20) -> tuple[str, str]:
    """Outward-rounded decimal end points [lo, hi] of an arb ball: mid -/+ rad exactly (binary), rounded
    down / up to `digits` significant digits."""
    mid, rad = exact_point(x.mid()), exact_point(x.rad())
    return decimal_rounded(mid - rad, digits, up=False), decimal_rounded(mid + rad, digits, up=True)


#: quadrature values of P_min (research note §7, `prob_r3.py numeric 25 32`: Gauss-Legendre in line coordinates,
#: dps 25, N = 32 nodes per sub-interval; N = 20 agrees to <= 1.9e-22 relative and P(R) + P(not R) - 1 <= 1.3e-30).
#: Estimates, not enclosures: shown to 12 significant digits, labelled as estimates.
QUADRATURE = {
    Fraction(1, 20): {1: "0.99999999999999999999999999999994962486", -1: "8.1602629391429481095e-47"},
    Fraction(1, 10): {1: "0.99999999627730211810", -1: "1.1377990273951031161e-13"},
    Fraction(1, 5): {1: "0.99698916235233483584", -1: "5.1582890406932681e-5"},
    Fraction(1, 2): {1: "0.79037755545477414120", -1: "0.031347962972278638923"},
    Fraction(1): {1: "0.49246997350652774755", -1: "0.10409010359947577635"},
}
#: the same for 1 - P_min at p+q > 1 (computed directly, so small values keep their digits)
QUADRATURE_COMPLEMENT = {Fraction(1, 20): "5.0375144682270580293e-32", Fraction(1, 10): "3.7226978818946808831e-9",
                         Fraction(1, 5): "3.0108376476651641550e-3", Fraction(1, 2): "0.20962244454522585880",
                         Fraction(1): "0.50753002649347225245"}


def estimate(sigma, regime: int, digits: int = 12) -> dict | None:
    """The quadrature estimate of P_min (and of 1 - P_min for p+q > 1) at a tabulated σ, else None."""
    import mpmath as mp

    from local2global.numeric.precision import working
    s = Fraction(sigma)
    if s not in QUADRATURE:
        return None
    with working(40, guard=False):
        out = {"P_min": mp.nstr(mp.mpf(QUADRATURE[s][regime]), digits), "digits": digits,
               "method": "quadrature in line coordinates (research note §7), N = 20 vs 32 agree to 2e-22 relative; "
                         "an estimate, not an enclosure"}
        if regime > 0:
            out["one_minus_P_min"] = mp.nstr(mp.mpf(QUADRATURE_COMPLEMENT[s]), digits)
        out["float"] = float(mp.mpf(QUADRATURE[s][regime]))
    return out


# ---------------------------------------------------------------------------------------------
# Monte Carlo of the classification
# ---------------------------------------------------------------------------------------------

CHUNK = 16


def classify_chunk(items) -> list[str]:
    """The class of the limit (`predict_R3`, no limit point) for each (p, q, θ0, dps) of a chunk (module level:
    pickled to the workers)."""
    from local2global.numeric.dynamics.basins_r3 import predict_R3
    return [predict_R3(p, q, th, dps=dps, limit=False)["class"] for p, q, th, dps in items]


def monte_carlo(p, q, sigma, n: int, seed: int, dps: int = 30, workers=None, scheduler=None) -> dict:
    """Counts of the predicted classes over n seeded Gaussian starts (`initialisation.gaussian_starts`, drawn
    here), mapped in chunks of CHUNK through `map_chunks` (local processes, in-process with workers=1, or a Dask
    scheduler): the counts do not depend on the chunks."""
    from local2global.numeric.infra.executor import map_chunks
    p, q = Fraction(p), Fraction(q)
    items = [(p, q, th, dps) for th in gaussian_starts(sigma, n, seed, dim=3)]
    classes = map_chunks(classify_chunk, items, workers=workers, scheduler=scheduler, chunk=CHUNK)
    counts: dict[str, int] = {}
    for c in classes:
        counts[c] = counts.get(c, 0) + 1
    return {"n": n, "seed": seed, "counts": dict(sorted(counts.items())), "local_min": counts.get("local_min", 0)}


def z_score(k: int, n: int, P) -> float | None:
    """(k - nP)/sqrt(nP(1-P)) for a probability P (a float reference), None when the variance is 0."""
    var = n * P * (1 - P)
    return None if var <= 0 else (k - n * P) / var ** 0.5


# ---------------------------------------------------------------------------------------------
# `l2g basins`
# ---------------------------------------------------------------------------------------------

DIGITS = 20


def report(p, q, sigma, dps: int = 40, mc: int = 0, seed: int = 0, workers=None, scheduler=None) -> dict:
    """The report of `l2g basins`: certified bounds on P_min(σ) (outward-rounded decimals, DIGITS significant
    digits), the quadrature estimate where tabulated, and the Monte Carlo of the classification (with a z-score
    against the estimate, else against the lower bound). Deterministic: the same input gives the same report."""
    import math
    p, q, sigma = Fraction(p), Fraction(q), Fraction(sigma)
    regime = 1 if p + q > 1 else -1
    bits = math.ceil(dps * math.log2(10)) + 8
    lb = lower_bound(sigma, prec=bits, regime=regime)
    lo, _ = ball_interval(lb["LB"], DIGITS)
    out = {"p": str(p), "q": str(q), "sigma": str(sigma), "regime": "p+q>1" if regime > 0 else "p+q<1",
           "rigorous": {"P_min_at_least": lo,
                        "one_minus_P_min_at_most": ball_interval(lb["eps"], DIGITS)[1],
                        "mass_outside_cells_at_most": ball_interval(lb["eps_uncovered"], 6)[1],
                        "cells": lb["cells"], "prec_bits": bits,
                        "method": "arb balls (python-flint) over the Lemma C cells |e| <= 4/5 (steps 1/100) x "
                                  "a in [-2, 2] (steps 1/20); mass outside the cells counted as failure"}}
    if regime > 0:
        mono = monotone_bound(sigma, prec=bits)
        # the uniform bound is a sum of erfc terms; at large sigma it exceeds 1 and says nothing
        out["rigorous"]["uniform_one_minus_P_min_at_most"] = (ball_interval(mono["eps_mono"], DIGITS)[1]
                                                              if mono["eps_mono"] < 1 else None)
    else:
        ub = upper_bound_below1(sigma, prec=bits)
        out["rigorous"]["P_min_at_most"] = ball_interval(ub["UB"], DIGITS)[1]
    est = estimate(sigma, regime)
    out["estimate"] = None if est is None else {k: v for k, v in est.items() if k != "float"}
    if mc:
        m = monte_carlo(p, q, sigma, mc, seed, workers=workers, scheduler=scheduler)
        if est is not None:
            ref, ref_name = est["float"], "estimate"
        else:
            ref, ref_name = float(exact_point(lb["LB"].mid())), "lower bound"
        zs = z_score(m["local_min"], mc, ref)
        m.update({"reference": ref_name, "reference_value": f"{ref:.6g}",
                  "z_score": None if zs is None else round(zs, 3),
                  "method": "seeded Gaussian starts classified by Thms A/B (basins_r3.predict_R3, 30 digits)"})
        out["monte_carlo"] = m
    return out


def report_text(rep: dict) -> str:
    """Human-readable form of `report`."""
    r = rep["rigorous"]
    lines = [f"p = {rep['p']}, q = {rep['q']} ({rep['regime']}), theta0 ~ N(0, sigma^2 I_3), sigma = {rep['sigma']}",
             f"rigorous (arb, {r['prec_bits']} bits, {r['cells']} Lemma C cells; outside them <= "
             f"{r['mass_outside_cells_at_most']} counted as failure):",
             f"  P(local min) >= {r['P_min_at_least']}"]
    if rep["regime"] == "p+q>1":
        lines.append(f"  1 - P(local min) <= {r['one_minus_P_min_at_most']}")
        u = r["uniform_one_minus_P_min_at_most"]
        lines.append(f"  for every sigma' <= {rep['sigma']}: 1 - P(local min) <= {u}" if u is not None else
                     "  (the bound uniform in sigma' <= sigma is vacuous at this sigma)")
    if "P_min_at_most" in r:
        lines.append(f"  P(local min) <= {r['P_min_at_most']}  (I_min lies in w < -1/sqrt(2))")
    est = rep["estimate"]
    if est is None:
        lines.append("estimate: none tabulated at this sigma (quadrature values at sigma = 1/20, 1/10, 1/5, 1/2, 1)")
    else:
        extra = f", 1 - P = {est['one_minus_P_min']}" if "one_minus_P_min" in est else ""
        lines.append(f"estimate (not rigorous; quadrature, {est['digits']} digits): P(local min) = {est['P_min']}{extra}")
    m = rep.get("monte_carlo")
    if m:
        lines.append(f"Monte Carlo (seed {m['seed']}, n = {m['n']}, classified by Thms A/B): local min {m['local_min']}/{m['n']}; "
                     f"classes {m['counts']}; z = {m['z_score']} against the {m['reference']} {m['reference_value']}")
    return "\n".join(lines)
