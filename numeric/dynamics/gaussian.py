r"""Gaussian initialization θ_0 ~ N(0, σ^2 I_2): probability of each basin of Thms 2 and 8 (Sec. 4).

The paper says "with high probability" for σ^2 << 1/√2; here the probabilities are computed. The
basins I_min are {|e| < g(w)} over an interval of w (plus the half-plane w > 0 when p+q > 1); I_sad,
I_max and the e-axis have measure zero, so P(I*) = 1 - P(I_min). By Fubini, with e ~ N(0, σ^2)
independent of w, P(|e| < g(w)) = erf(g(w)/(σ√2)), and

    p+q > 1:  P(I_min) = 1/2 + ∫_{-1/√2}^{0} φ_σ(w) erf(g(w)/(σ√2)) dw,
              P(I*)    = Φ_σ(-1/√2) + ∫_{-1/√2}^{0} φ_σ(w) erfc(g(w)/(σ√2)) dw,
    p+q < 1:  P(I_min) = ∫_{-∞}^{-1/√2} φ_σ(w) erf(g(w)/(σ√2)) dw,
              P(I*)    = Φ_σ(∞) - Φ_σ(-1/√2) + ∫_{-∞}^{-1/√2} φ_σ(w) erfc(g(w)/(σ√2)) dw.

Both probabilities are integrated separately (no 1 - x cancellation when one is tiny) with `mp.quad`
(tanh-sinh, interval split at multiples of σ), and their sum = 1 is reported as a check. g is the
derived saddle asymptote, w_sad the derived zero of f'. A seeded Monte Carlo (`monte_carlo`) draws
starts, names their basins with the theorem's sets and the analytic predictor, and integrates a few.
"""
from __future__ import annotations

import random
from fractions import Fraction

import mpmath as mp

from local2global.numeric.evaluate.lambdify import mpf_exact
from local2global.numeric.dynamics.basins import GUARD, derived_functions, regime_of, classify_theorem, integrate_class, predict


def _split(a, b, sigma):
    """Breakpoints for mp.quad: the integrand lives on the scale sigma around w = 0."""
    pts = [a]
    for k in (64, 32, 16, 8, 4, 2, 1, mp.mpf(1) / 2, mp.mpf(1) / 8):
        x = -k * sigma
        if a < x < b:
            pts.append(x)
    pts.append(b)
    return sorted(set(pts))


def basin_probabilities(p, q, sigma, dps: int = 40) -> dict:
    r"""{"local_min", "global_min", "saddle", "local_max", "sum_minus_1", "quad_error"} as mpf at dps digits.

    sigma > 0 exact. Saddle and local-max basins (I_sad, Θmax) have measure zero: probability 0.
    """
    reg = regime_of(p, q)
    d = derived_functions()
    with mp.workdps(dps + GUARD):
        s = mpf_exact(sigma)
        w_sad = d["w_sad"]()
        g = d["g"]
        r2 = mp.sqrt(2)
        phi = lambda x: mp.npdf(x, 0, s)                         # noqa: E731
        inside = lambda x: phi(x) * mp.erf(g(x) / (s * r2))     # noqa: E731
        outside = lambda x: phi(x) * mp.erfc(g(x) / (s * r2))   # noqa: E731
        Phi_sad = mp.ncdf(w_sad, 0, s)
        if reg > 0:
            iv = _split(w_sad, mp.mpf(0), s)
            i_in, err_in = mp.quad(inside, iv, error=True)
            i_out, err_out = mp.quad(outside, iv, error=True)
            P_min = mp.mpf(1) / 2 + i_in
            P_star = Phi_sad + i_out
        else:
            lo = w_sad - 40 * s - 40          # phi_sigma is below 10^-300 further out
            iv = [lo, w_sad]
            i_in, err_in = mp.quad(inside, iv, error=True)
            i_out, err_out = mp.quad(outside, iv, error=True)
            P_min = i_in
            P_star = (1 - Phi_sad) + i_out
        out = {"local_min": P_min, "global_min": P_star, "saddle": mp.mpf(0), "local_max": mp.mpf(0),
               "sum_minus_1": P_min + P_star - 1, "quad_error": max(err_in, err_out)}
    return out


def monte_carlo(p, q, sigma, n: int = 2000, seed: int = 0, integrate: int = 0, dps: int = 30,
                progress=None) -> dict:
    """Seeded Monte Carlo: fraction of n Gaussian starts whose basin (theorem sets) is I_min / I*; each
    start is also named by the analytic predictor (counted disagreements), and the first `integrate`
    starts are integrated (dps) and their end points classified (counted disagreements).
    `progress(done, n)` is called after each start."""
    rng = random.Random(seed)
    sig = float(Fraction(sigma))
    counts = {"local_min": 0, "global_min": 0, "saddle": 0, "local_max": 0}
    disagree_pred = disagree_flow = 0
    for i in range(n):
        th = (Fraction(rng.gauss(0.0, sig)), Fraction(rng.gauss(0.0, sig)))   # exact binary values of the draws
        _, cls = classify_theorem(p, q, th, dps=dps)
        counts[cls] += 1
        if predict(p, q, th, dps=dps).limit_class != cls:
            disagree_pred += 1
        if i < integrate:
            icls, _ = integrate_class(p, q, th, dps=dps)
            disagree_flow += icls != cls
        if progress is not None:
            progress(i + 1, n)
    frac = {k: Fraction(v, n) for k, v in counts.items()}
    return {"n": n, "seed": seed, "fractions": frac, "disagree_predictor": disagree_pred,
            "integrated": integrate, "disagree_integrated": disagree_flow}


def _dec(x, dps):
    """dps significant digits, trailing zeros kept (1 - 5e-191 at 40 digits prints as 1.000...0)."""
    return mp.nstr(x, dps, strip_zeros=False) if x != 0 else "0"


def prob_report(p, q, sigma, dps: int = 40, mc: int = 0, seed: int = 0, progress=None) -> dict:
    """The JSON contract of `l2g prob`: probabilities keyed by the class of the limit (decimal strings
    with dps significant digits), quadrature error, and the Monte Carlo cross-check if mc > 0
    (`progress(done, mc)` after each Monte Carlo start)."""
    pr = basin_probabilities(p, q, sigma, dps=dps)
    rep = {"p": str(Fraction(p)), "q": str(Fraction(q)), "sigma": str(Fraction(sigma)), "dps": dps,
           "regime": "p+q>1" if regime_of(p, q) > 0 else "p+q<1"}
    for k in ("local_min", "global_min", "saddle", "local_max"):
        rep[k] = _dec(pr[k], dps)
    rep["sum_minus_1"] = mp.nstr(pr["sum_minus_1"], 3)
    rep["quad_error_estimate"] = mp.nstr(pr["quad_error"], 3)
    if mc:
        r = monte_carlo(p, q, sigma, n=mc, seed=seed, integrate=min(mc, 5), progress=progress)
        with mp.workdps(30):
            for k in ("local_min", "global_min"):
                f = r["fractions"][k]
                est = mp.mpf(f.numerator) / f.denominator
                se = mp.sqrt(max(est * (1 - est), mp.mpf(1) / mc) / mc)
                exact = pr[k]
                rep.setdefault("monte_carlo", {})[k] = {"estimate": f"{f.numerator * (mc // f.denominator)}/{mc}",
                                                        "std_error": mp.nstr(se, 3),
                                                        "z": mp.nstr((est - exact) / se, 3)}
        rep["monte_carlo"].update(n=mc, seed=seed, disagree_predictor=r["disagree_predictor"],
                                  integrated=r["integrated"], disagree_integrated=r["disagree_integrated"])
    return rep


def prob_report_text(rep: dict) -> str:
    lines = [f"p = {rep['p']}, q = {rep['q']} ({rep['regime']}), theta0 ~ N(0, sigma^2 I_2), sigma = {rep['sigma']}, "
             f"dps = {rep['dps']}"]
    for k in ("local_min", "global_min", "saddle", "local_max"):
        lines.append(f"P({k:10s}) = {rep[k]}")
    lines.append(f"P(local_min) + P(global_min) - 1 = {rep['sum_minus_1']}; quadrature error estimate "
                 f"{rep['quad_error_estimate']}")
    if "monte_carlo" in rep:
        m = rep["monte_carlo"]
        for k in ("local_min", "global_min"):
            lines.append(f"Monte Carlo {k}: {m[k]['estimate']} ± {m[k]['std_error']} (z = {m[k]['z']})")
        lines.append(f"Monte Carlo n = {m['n']}, seed {m['seed']}: predictor disagreements {m['disagree_predictor']}, "
                     f"integrated {m['integrated']} starts, disagreements {m['disagree_integrated']}")
    return "\n".join(lines)
