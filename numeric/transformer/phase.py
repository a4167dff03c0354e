r"""The phase diagram: where the full transformer's training ends, against the canonical model's basins.

For every point of a sweep (`sweep`): the fraction of seeds whose final exact population loss is the bigram loss
(the entropy rate H(x_{n+1} | x_n), the global minimum, Thm 4) next to the canonical model's probability that a
Gaussian start θ0 ~ N(0, σ² I) lies in the basin of the global minima:

* R² (e, w), the canonical model of the softmax transformer (attention a = 0): P(θ0 ∈ I*) of Thms 2 and 8,
  certified (arb ball enclosures, `numeric.dynamics.gaussian`);
* R³ (e, w, a), the model with the attention scalar (Thms A and B, our result): 1 - P(the limit is a local
  minimum), which is P(the limit is a global minimum) up to the null tie surfaces, bounded rigorously on one side
  (`numeric.dynamics.prob_r3`: for p + q > 1 at most 1 - LB(σ), for p + q < 1 at least 1 - UB(σ)) and estimated by
  quadrature where tabulated.

Both depend on the chain only through sign(p + q - 1) (`gaussian.depends_only_on_regime`). The canonical σ is the
same number as the full model's init scale: a full Gaussian start puts N(0, σ²) on every coordinate, and the
canonical scalars are coordinates of the rank-one manifold only up to that identification (the confrontation
asks whether it predicts, it does not assume it).

Classification of a run (`classify`): `bigram` if its final loss is within tol of the entropy rate, `unigram` if
within tol of H(π), `neither` otherwise, with tol = TOL_FRACTION (1/10) of the gap H(π) - H(x_{n+1} | x_n) > 0
(p + q ≠ 1): the two references are 10 tolerances apart, so no run is both.
"""
from __future__ import annotations

import functools
import math
from fractions import Fraction

from local2global.numeric.transformer.sweep import TOL_FRACTION, Grid

#: a canonical probability is decisive when its certified enclosure lies in [0, DECISIVE] or [1 - DECISIVE, 1]
DECISIVE = Fraction(1, 100)
CLASSES = ("bigram", "unigram", "neither")


@functools.lru_cache(maxsize=None)
def references(p: Fraction, q: Fraction) -> dict:
    """H(π), the entropy rate (`experiments.chain_losses`, from `symbolic.markov`) and the tolerance of `classify`."""
    from local2global.numeric.transformer.experiments import chain_losses
    ref = chain_losses(p, q)
    gap = ref["unigram"] - ref["entropy_rate"]
    return {"unigram": ref["unigram"], "entropy_rate": ref["entropy_rate"], "gap": gap,
            "tolerance": float(TOL_FRACTION) * gap}


def classify(final_loss: float, ref: dict) -> str:
    """bigram / unigram / neither (see the module docstring); a non-finite loss is `neither`."""
    if not math.isfinite(final_loss):
        return "neither"
    if abs(final_loss - ref["entropy_rate"]) <= ref["tolerance"]:
        return "bigram"
    if abs(final_loss - ref["unigram"]) <= ref["tolerance"]:
        return "unigram"
    return "neither"


@functools.lru_cache(maxsize=None)
def canonical_r2(regime: int, sigma: Fraction) -> dict:
    """P(θ0 ∈ I*) in R² under N(0, σ² I₂): the certified enclosure as `l2g prob` prints it ("value" with only
    guaranteed digits, "lo"/"hi" rounded outward) and "float" (for drawing only)."""
    from local2global.numeric.dynamics import gaussian
    p, q = (Fraction(9, 10), Fraction(9, 10)) if regime > 0 else (Fraction(1, 10), Fraction(1, 10))
    rep = gaussian.prob_report(p, q, sigma, dps=30)["global_min"]
    lo, hi = Fraction(rep["lo"]), Fraction(rep["hi"])
    return {"value": rep["value"], "error": rep["error"], "lo": rep["lo"], "hi": rep["hi"],
            "float": float((lo + hi) / 2)}


@functools.lru_cache(maxsize=None)
def canonical_r3(regime: int, sigma: Fraction) -> dict:
    """1 - P(local minimum) in R³ under N(0, σ² I₃) (`l2g basins`): a rigorous one-sided bound ("at_most" for
    p + q > 1, "at_least" for p + q < 1, decimal strings rounded outward) and the quadrature "estimate" where σ
    is tabulated (None elsewhere)."""
    from local2global.numeric.dynamics import prob_r3
    p, q = (Fraction(9, 10), Fraction(9, 10)) if regime > 0 else (Fraction(1, 10), Fraction(1, 10))
    rep = prob_r3.report(p, q, sigma, dps=30)
    est = rep["estimate"]
    out = {"estimate": None}
    if regime > 0:
        out["at_most"] = rep["rigorous"]["one_minus_P_min_at_most"]
        if est is not None:
            out["estimate"] = est["one_minus_P_min"]
    else:
        out["at_least"] = prob_r3.decimal_rounded(1 - Fraction(rep["rigorous"]["P_min_at_most"]), 6, up=False)
        if est is not None:
            out["estimate"] = prob_r3.decimal_rounded(1 - Fraction(est["P_min"]), 6, up=False)
    return out


def regime(p: Fraction, q: Fraction) -> int:
    if p + q == 1:
        raise ValueError("p + q = 1: the unigram and bigram losses coincide and the basins are not defined")
    return 1 if p + q > 1 else -1


def phase_table(grid: Grid, results: list[dict], r3: bool = True) -> list[dict]:
    """One row per point of `grid` (results in `grid.points()` order): the chain, σ, each run's class and final loss,
    the references with the tolerance, the counts of each class over the seeds, the fraction at the bigram loss, the
    canonical scalars read off each trained run (`sweep.canonical_readoff`), the canonical probabilities (R², and R³
    unless `r3=False`) and the difference fraction - P_R²(I*) (a float: drawn, never asserted)."""
    rows = []
    for pt, res in zip(grid.points(), results):
        p, q = pt.pq
        s = Fraction(pt.sigma)
        ref = references(p, q)
        classes = [classify(r["final_loss"], ref) for r in res["runs"]]
        n = len(classes)
        counts = {c: classes.count(c) for c in CLASSES}
        r2 = canonical_r2(regime(p, q), s)
        rows.append({"p": str(p), "q": str(q), "p_plus_q": str(p + q), "sigma": str(s), "seeds": n,
                     "counts": counts, "classes": classes, "fraction_bigram": counts["bigram"] / n,
                     "final_losses": [r["final_loss"] for r in res["runs"]], "references": ref,
                     "canonical_readoff": [r["canonical"] for r in res["runs"]],
                     "canonical_R2": r2, "canonical_R3": canonical_r3(regime(p, q), s) if r3 else None,
                     "difference": counts["bigram"] / n - r2["float"]})
    return rows


def predicted(row: dict, decisive: Fraction = DECISIVE) -> str | None:
    """What the canonical model predicts for every seed of a row where its certified P(I*) is decisive: "bigram"
    (enclosure within [1 - decisive, 1]), "unigram" (within [0, decisive]), None where it is not decisive."""
    r2 = row["canonical_R2"]
    if Fraction(r2["lo"]) >= 1 - decisive:
        return "bigram"
    if Fraction(r2["hi"]) <= decisive:
        return "unigram"
    return None


def binomial_upper_tail(k: int, probabilities: list[float]) -> float:
    """P(K >= k) for K a sum of independent Bernoulli(p_i) (Poisson-binomial, exact by convolution in floats)."""
    dist = [1.0]
    for pi in probabilities:
        new = [0.0] * (len(dist) + 1)
        for j, m in enumerate(dist):
            new[j] += m * (1 - pi)
            new[j + 1] += m * pi
        dist = new
    return float(sum(dist[k:]))


#: the level of the two-sided test of `two_sided` (each tail at half of it)
LEVEL = 0.05


def two_sided(k: int, probabilities: list[float], level: float = LEVEL) -> dict:
    """The exact two-sided test of k successes against K, a sum of independent Bernoulli(p_i) (Poisson-binomial):
    "upper_tail" P(K >= k), "lower_tail" P(K <= k), "expected" Σ p_i, and "direction": "more" when P(K >= k) < level/2
    (significantly more successes than the p_i predict), "fewer" when P(K <= k) < level/2, None when neither tail is
    below level/2 (equal tails; k is consistent with the p_i at that level)."""
    upper, lower = binomial_upper_tail(k, probabilities), 1 - binomial_upper_tail(k + 1, probabilities)
    direction = "more" if upper < level / 2 else ("fewer" if lower < level / 2 else None)
    return {"upper_tail": upper, "lower_tail": lower, "expected": float(sum(probabilities)), "level": level,
            "direction": direction}


def verdict(rows: list[dict], decisive: Fraction = DECISIVE) -> dict:
    """The confrontation in numbers. "decisive": the rows where the canonical P(I*) is decisive, how many runs end
    as predicted, and the rows where some do not; "beyond": per regime, the rows that are not decisive, the runs
    at the bigram loss (k of n) against the expected number Σ P_R²(I*), the exact upper and lower tail
    probabilities of k under independent Bernoulli(P_R²(I*)) runs, and the two-sided test's direction at `LEVEL`
    (`two_sided`: "more", "fewer" or None); "probabilities" lists P_R²(I*) once per run."""
    dec = [(r, predicted(r, decisive)) for r in rows]
    d_rows = [(r, w) for r, w in dec if w is not None]
    agree = sum(r["classes"].count(w) for r, w in d_rows)
    runs = sum(r["seeds"] for r, _ in d_rows)
    misses = [{"p": r["p"], "q": r["q"], "sigma": r["sigma"], "predicted": w, "classes": r["classes"]}
              for r, w in d_rows if r["classes"].count(w) < r["seeds"]]
    beyond = {}
    for name, sign in (("p+q>1", 1), ("p+q<1", -1)):
        b_rows = [r for r, w in dec if w is None and (Fraction(r["p_plus_q"]) > 1) == (sign > 0)]
        if not b_rows:
            continue
        probs = [r["canonical_R2"]["float"] for r in b_rows for _ in range(r["seeds"])]
        k = sum(r["counts"]["bigram"] for r in b_rows)
        n = len(probs)
        beyond[name] = {"cells": [(r["p"], r["q"], r["sigma"], r["counts"]["bigram"], r["seeds"],
                                   rounded(r["canonical_R2"]["lo"], r["canonical_R2"]["hi"])) for r in b_rows],
                        "bigram": k, "runs": n, "neither": sum(r["counts"]["neither"] for r in b_rows),
                        "probabilities": probs, **two_sided(k, probs)}
    return {"decisive": {"threshold": str(decisive), "cells": len(d_rows), "runs": runs, "as_predicted": agree,
                         "misses": misses},
            "beyond": beyond}


def rounded(lo, hi, digits: int = 3) -> str:
    """A number known to lie in [lo, hi] (exact decimal strings or Fractions) to `digits` significant digits: the
    nearest such decimal when both ends round to the same one (exactly, in rationals: every digit printed is then
    the true value's rounding), else the two ends rounded outward, as an interval."""
    from local2global.numeric.dynamics.prob_r3 import decimal_rounded
    lo, hi = Fraction(lo), Fraction(hi)

    def nearest(x: Fraction) -> str:
        down, up = decimal_rounded(x, digits, up=False), decimal_rounded(x, digits, up=True)
        return down if x - Fraction(down) <= Fraction(up) - x else up
    a, b = nearest(lo), nearest(hi)
    return a if a == b else f"[{decimal_rounded(lo, digits, up=False)}, {decimal_rounded(hi, digits, up=True)}]"


def table_text(grid: Grid, rows: list[dict]) -> str:
    """The phase table as text (`l2g sweep`): one line per point, then the verdict in numbers."""
    lines = [f"{'p':>6} {'q':>6} {'p+q':>6} {'sigma':>6}  bigram unigram neither   P_R2(I*) (certified)"]
    for r in rows:
        c = r["counts"]
        lines.append(f"{r['p']:>6} {r['q']:>6} {r['p_plus_q']:>6} {r['sigma']:>6}  {c['bigram']:>6} {c['unigram']:>7} "
                     f"{c['neither']:>7}   {rounded(r['canonical_R2']['lo'], r['canonical_R2']['hi'], 10)}")
    v = verdict(rows)
    d = v["decisive"]
    lines.append(f"where the canonical P(I*) is decisive (enclosure within {d['threshold']} of 0 or 1): "
                 f"{d['as_predicted']} of {d['runs']} runs end as predicted ({d['cells']} points)")
    for name, b in v["beyond"].items():
        finding = {"more": "significantly more often than P_R2(I*) predicts", "fewer": "significantly less often than "
                   "P_R2(I*) predicts", None: "consistent with P_R2(I*)"}[b["direction"]]
        lines.append(f"elsewhere, {name}: {b['bigram']} of {b['runs']} runs at the bigram loss, {b['expected']:.2f} "
                     f"expected from P_R2(I*); P(K >= {b['bigram']}) = {b['upper_tail']:.2g}, "
                     f"P(K <= {b['bigram']}) = {b['lower_tail']:.2g}: {finding} (two-sided exact test, level "
                     f"{b['level']:g})")
    return "\n".join(lines)
