r"""Where does the gradient flow in R^2 end? Three independent answers, compared (Thm 2, Thm 8).

1. `classify_theorem`: the basin of θ_0 read off the sets of Thm 2 / Thm 8 (`symbolic.basins`).
2. `predict`: the analytic limit, from geometry and dynamics only: the flow stays on the contour
   E = E(θ_0) (Lemma 9), never crosses e = 0 (the w-axis is critical), and on that 1-D curve it moves
   monotonically in w, in the direction -sign G'(A(θ_0)) (dw/dt = -G'(A) 4e^2|w|), until the first
   critical point of Thm 1 on the curve: an end of the curve on the w-axis (f(w) = E_0, Lemma 12,
   `mp.findroot` on a bracket), the saddle (when E_0 = E_sad), or a point of Θ* (E = E_0 and
   A = A*, `mp.findroot` on the eliminated equation in w). No basin set is used.
3. `integrate_class`: the integrated flow (`numeric.dynamics.flow.ReducedFlow`), its end point classified
   by Thm 1's critical sets only (`flow.critical_class`).

`boundary_suite` puts starts at distance 10^-k on both sides of every basin boundary and exactly on
I_sad and Θmax, and checks that the three agree.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import mpmath as mp
import sympy as sp

from local2global.numeric.chain import NumericChain
from local2global.numeric.dynamics.flow import ReducedFlow, critical_class, integrate_class
from local2global.numeric.dynamics.initialisation import gaussian_starts
from local2global.numeric.evaluate.lambdify import compile_mp, mpf_exact
from local2global.numeric.evaluate.landscape import compiled_model
from local2global.numeric.precision import limit_accuracy, limit_tolerances, shown_point, shown_text, tolerance, working
from local2global.symbolic import symbols as S
from local2global.symbolic import basins as sbasins
from local2global.symbolic.sets import first_match


class TheoremsDoNotApply(ValueError):
    """p + q = 1: Thms 1, 2 and 8 assume p + q != 1 (every w-axis point has G'(0) = 0)."""


def derived_functions():
    """The compiled derived objects the predictor uses (f on both half-lines, E_sad, w_sad, g, ...):
    the table of `evaluate.landscape.compiled_model` (the model without attention)."""
    return compiled_model(False)


@dataclass(frozen=True)
class Prediction:
    """Class and limit of the flow from θ_0 and how they were obtained."""

    limit_class: str
    limit: tuple
    reason: str


def _tol(dps: int) -> mp.mpf:
    return tolerance(dps)


def _sign_tol(x, tol) -> int:
    return 0 if abs(x) <= tol else (1 if x > 0 else -1)


def regime_of(p, q=None) -> int:
    reg = NumericChain.of(p, q).regime
    if reg == 0:
        raise TheoremsDoNotApply("Thms 2 and 8 assume p+q != 1; at p+q = 1 they make no prediction")
    return reg


# ---------------------------------------------------------------------------------------------
# 1. the theorems' basin sets
# ---------------------------------------------------------------------------------------------

@lru_cache(maxsize=None)
def _compiled_conditions(regime: str, g: sp.Expr | None = None, sets: tuple | None = None):
    """The sets (default `symbolic.basins.basins(regime, g)`) and their condition expressions compiled for mpmath."""
    sets = sets if sets is not None else sbasins.basins(regime, g)
    return sets, _compiled(sets)


def _compiled(sets) -> dict:
    return {ex: compile_mp(ex, (S.e, S.w)) for b in sets for pc in (b.pieces or ()) for ex, _ in pc.conditions}


def _signs_at(fns: dict, e_, w_, tol):
    """sign_of(expr) at the start (e_, w_): the sign of the compiled condition, 0 within `tol`."""
    return lambda ex: _sign_tol(fns[ex](e_, w_), tol)


@lru_cache(maxsize=None)
def _ball_condition(ex: sp.Expr, symbols=(S.e, S.w)):
    from local2global.numeric.evaluate.arb import ball_function
    return ball_function(ex, symbols)


def exact_sign(ex: sp.Expr, theta0, dps: int, symbols=(S.e, S.w)) -> int | None:
    """The sign of the condition `ex` at an exact (rational) start, certified by arb balls at about 3 dps bits and
    at 12 dps bits, or None when neither excludes 0 (the start is then within ~10^-(3.6 dps) of the set
    `ex` = 0, where the tolerance of `precision.tolerance` decides, as for a start computed on it)."""
    from local2global.numeric.evaluate.arb import arb_rational, precision
    try:
        fn = _ball_condition(ex, tuple(symbols))
    except (NotImplementedError, TypeError, ValueError):   # a caller's condition with no ball form (a float in g)
        return None
    for bits in (10 * dps + 64, 40 * dps + 64):
        with precision(bits):
            v = fn(*(arb_rational(x) for x in theta0))
            if v.is_finite() and v.is_exact() and v.is_zero():
                return 0
            if v.is_finite() and not v.contains(0):
                return 1 if v > 0 else -1
    return None


def _signs_exact_first(fns: dict, theta0, dps: int, tol):
    """sign_of(expr) at a start: certified by balls when the start is exact (so e0 = 10^-20 is not on e = 0 at any
    precision), else (or undecided by the balls) the sign of the compiled condition within `tol`."""
    exact = all(isinstance(x, (Fraction, int)) for x in theta0)
    with working(dps):
        e_, w_ = (mpf_exact(x) for x in theta0)
    mp_sign = _signs_at(fns, e_, w_, tol)

    def sign_of(ex):
        s = exact_sign(ex, theta0, dps) if exact else None
        return mp_sign(ex) if s is None else s
    return sign_of


def classify_theorem(p, q, theta0, dps: int = 50, regime: str | None = None, g=None,
                     sets: tuple | None = None) -> tuple[str, str]:
    """(basin name, class) of θ_0 by the sets of Thm 2 (p+q > 1) or Thm 8 (p+q < 1).

    An exact (rational) start has its signs certified by arb balls (`exact_sign`): e0 = 10^-20 is off the axis
    e = 0. Otherwise (an mpf start, or balls that cannot separate it from a set) "== 0" holds within
    `precision.tolerance(dps)` = 10^-(dps - SLACK) at dps + GUARD digits (a start computed at dps on I_sad counts
    as on it). `regime` overrides p+q; `g` replaces the derived g(w) and `sets` the sets
    themselves (the proof checks pass the paper's printed g and sets, and their negative controls)."""
    regime = regime or ("p+q>1" if regime_of(p, q) > 0 else "p+q<1")
    sets, fns = _compiled_conditions(regime, g, sets)
    with working(dps):
        b = first_match(sets, _signs_exact_first(fns, theta0, dps, _tol(dps)))
    return b.name, b.limit_class


def in_I_common(theta0, dps: int = 50, g=None, piece=None) -> bool:
    """θ_0 ∈ I_common = {w < 0, |e| > g(w)} (g: override of the derived g, `piece`: of the set itself, for the
    proof checks)."""
    piece = piece or sbasins.I_common(g)
    fns = {ex: compile_mp(ex, (S.e, S.w)) for ex, _ in piece.conditions}
    with working(dps):
        return piece.holds(_signs_at(fns, *(mpf_exact(x) for x in theta0), _tol(dps)))


# ---------------------------------------------------------------------------------------------
# 2. the analytic predictor: contour ∩ critical set, in the direction of the flow
# ---------------------------------------------------------------------------------------------

def bracketed_root(fn, a, b):
    """Root of fn in the bracket [a, b] (fn(a), fn(b) of opposite signs or zero), verified."""
    fa, fb = fn(a), fn(b)
    if fa == 0:
        return a
    if fb == 0:
        return b
    if (fa > 0) == (fb > 0):
        raise ArithmeticError("no sign change in bracket")
    # bisection down to a short bracket, then a verified secant-type solver
    for _ in range(60):
        m = (a + b) / 2
        fm = fn(m)
        if fm == 0:
            return m
        if (fm > 0) == (fa > 0):
            a, fa = m, fm
        else:
            b, fb = m, fm
    return mp.findroot(fn, (a, b), solver="anderson")


def _w_axis_end(f, E0, w0, w_sad, half, side):
    """The end of the contour's w-range on the w-axis: the root of f(w) = E0 on the monotone piece."""
    h = lambda x: f(x) - E0
    if half == "w>0":                      # f decreasing: f(w0) <= E0, root below w0
        lo = w0 / 2
        while h(lo) <= 0:
            lo /= 2
        return bracketed_root(h, lo, w0)
    if side == "right":                    # w2 in (w_sad, w0]
        return bracketed_root(h, w_sad, w0)
    return bracketed_root(h, w0, w_sad)             # w1 in [w0, w_sad)


def _exact_start(theta0) -> bool:
    return all(isinstance(x, (Fraction, int)) for x in theta0)


def level_sign(theta0, tol, E0, E_sad, dps: int) -> int:
    """sign(E(θ_0) - E_sad) on w < 0: certified by arb balls for an exact start (a start 10^-6 above the saddle
    level is above it at any dps), else within `tol`."""
    if _exact_start(theta0):
        m = canonical_model_r2()
        from local2global.symbolic import energy as senergy
        E = m.energy.subs({sp.Abs(S.w): -S.w, sp.sign(S.w): -1})
        s_ = exact_sign(E - senergy.energy_on_w_axis()["E_sad"], theta0, dps)
        if s_ is not None:
            return s_
    return _sign_tol(E0 - E_sad, tol)


def on_theta_star(theta0, tol, A0, A_star, chain, dps: int) -> bool:
    """Whether θ_0 lies on Θ* (A = A*): decided by arb balls for an exact start (then only where A - A* is 0
    exactly, e.g. A* = 0 at p + q = 1 on the w-axis), else within `tol`."""
    if _exact_start(theta0):
        s_ = exact_sign(canonical_model_r2().A - A_star_expr(), tuple(theta0) + (chain.p, chain.q), dps,
                        symbols=(S.e, S.w, S.p, S.q))
        if s_ is not None:
            return s_ == 0
    return _sign_tol(A0 - A_star, tol) == 0


def predict(p, q, theta0, dps: int = 50, flow: ReducedFlow | None = None) -> Prediction:
    r"""Analytic limit of the gradient flow from θ_0 (see module docstring); p + q != 1.

    Inputs exact (Fraction, str) or mpf; the limit is returned as mpf at dps + GUARD digits. `flow`: the caller's
    `ReducedFlow` of this chain (`l2g flow` integrates with the same one), else one is built.
    """
    fl = flow if flow is not None else ReducedFlow(p, q)
    reg = regime_of(fl.landscape.chain)
    d = derived_functions()
    with working(dps):
        tol = _tol(dps)
        e0, w0 = (mpf_exact(x) for x in theta0)
        w_sad, E_sad = d["w_sad"](), d["E_sad"]()
        A_star = fl.A_star()
        if e0 == 0:                         # the w-axis consists of critical points (Thm 1)
            cls = critical_class(fl, (e0, w0), tol_e=tol, tol_sad=tol, tol_A=mp.mpf(0))
            return Prediction(cls, (e0, w0), "start on the w-axis: a critical point, the flow stays")
        A0 = fl.A((e0, w0))
        G1 = fl.G_prime(A0)
        if on_theta_star(theta0, tol, A0, A_star, fl.landscape.chain, dps):
            return Prediction("global_min", (e0, w0), "start on Theta*: a critical point")
        if w0 == 0:                         # the e-axis is invariant (Lemma 9): 1-D flow of |e|
            shrink = G1 > 0                 # d|e|/dt = -2|e| G'(e^2)
            if A_star > 0 and ((shrink and A_star < e0**2) or (not shrink and A_star > e0**2)):
                return Prediction("global_min", (mp.sign(e0) * mp.sqrt(A_star), mp.mpf(0)),
                                  "e-axis is invariant; |e| moves monotonically to the point of Theta* on it")
            if not shrink:
                raise AssertionError("e-axis flow moves outward with no critical point ahead")
            cls = "local_min" if reg > 0 else "local_max"
            return Prediction(cls, (mp.mpf(0), mp.mpf(0)), "e-axis is invariant; |e| decreases to the origin")
        half = "w>0" if w0 > 0 else "w<0"
        f = d[f"f_{half}"]
        E0 = fl.energy((e0, w0))
        direction = 1 if G1 < 0 else -1     # sign of dw/dt = -G'(A) 4 e^2 |w|
        s_e = mp.sign(e0)
        e_of = lambda x: s_e * mp.sqrt(max(E0 - f(x), mp.mpf(0)))       # the contour, e-sign kept
        h = lambda x: fl.A((e_of(x), x)) - A_star                        # Theta* crossing
        # the end of the curve in the direction of motion
        end, end_kind = None, None
        if half == "w>0":
            if direction < 0:
                end, end_kind = _w_axis_end(f, E0, w0, w_sad, half, None), "axis"
        else:
            level = level_sign(theta0, tol, E0, E_sad, dps)
            side = "left" if w0 < w_sad else "right"
            if level < 0:
                if (side == "left" and direction > 0) or (side == "right" and direction < 0):
                    end, end_kind = _w_axis_end(f, E0, w0, w_sad, half, side), "axis"
            elif level == 0:
                if (side == "left" and direction > 0) or (side == "right" and direction < 0):
                    end, end_kind = w_sad, "saddle"
        if end is not None:
            h_end = -A_star                  # A = 0 where the curve meets the w-axis
            if (h(w0) > 0) != (h_end > 0):
                w_r = bracketed_root(h, *sorted((w0, end)))
                return Prediction("global_min", (e_of(w_r), w_r),
                                  "contour meets Theta* before the w-axis in the direction of the flow")
            if end_kind == "saddle":
                return Prediction("saddle", (mp.mpf(0), w_sad), "contour E = E_sad runs into the saddle")
            cls = critical_class(fl, (mp.mpf(0), end), tol_e=tol, tol_sad=tol, tol_A=mp.mpf(0))
            return Prediction(cls, (mp.mpf(0), end), "contour ends on the w-axis at f(w) = E0 (Lemma 12)")
        # unbounded direction (w -> +inf, -inf, or 0^-): Theta* must be met on the way (Lemma 10)
        x, hx = w0, h(w0)
        for _ in range(400):
            outward = (direction > 0) == (x > 0)
            # geometric steps, then squaring once far out (A* may need |w| ~ e^-1000 when p or q is tiny)
            if outward:
                nxt = x * 2 if abs(x) < 2 else x * abs(x)
            else:
                nxt = x / 2 if abs(x) > mp.mpf(1) / 2 else x * abs(x)
            hn = h(nxt)
            if (hn > 0) != (hx > 0):
                w_r = bracketed_root(h, *sorted((x, nxt)))
                return Prediction("global_min", (e_of(w_r), w_r), "contour meets Theta* in the direction of the flow")
            x, hx = nxt, hn
        raise ArithmeticError(f"no crossing of Theta* found ahead of {theta0} on its contour at this precision")


# ---------------------------------------------------------------------------------------------
# 3. integration, and the comparison
# ---------------------------------------------------------------------------------------------

def compare(p, q, theta0, dps: int = 30, integrate: bool = True, **kw) -> dict:
    """Theorem basin, predicted (class, limit), integrated (class, limit, t), drift, agreement, all at `dps` digits
    (`p`, `q`: exact numbers, or a `NumericChain` and None)."""
    fl = ReducedFlow(p, q)
    chain = fl.landscape.chain
    basin, thm_cls = classify_theorem(chain, None, theta0, dps=dps)
    pred = predict(chain, None, theta0, dps=dps, flow=fl)
    out = {"basin": basin, "theorem_class": thm_cls, "predicted": pred}
    if integrate:
        cls, res = integrate_class(chain, None, theta0, dps=dps, flow=fl, **kw)
        with working(dps):
            gap = max(abs(a - b) for a, b in zip(res.theta, pred.limit))
        out.update(integrated_class=cls, flow=res, limit_gap=gap,
                   agree=(cls == pred.limit_class == thm_cls))
    else:
        out["agree"] = pred.limit_class == thm_cls
    return out


# ---------------------------------------------------------------------------------------------
# boundary verification
# ---------------------------------------------------------------------------------------------

PAIRS = (("9/10", "9/10"), ("1/10", "1/10"), ("3/5", "4/5"), ("1/5", "3/10"))


def boundary_starts(p, q, ks=(1, 5, 10, 15, 20), dps: int = 50) -> list[dict]:
    """Starts at 10^-k on both sides of every boundary of Thm 2/8 and exactly on I_sad and Θmax.

    Boundaries: both branches e = ±g(w) of I_sad (at w = -1/2 if p+q > 1, w = -1 if p+q < 1), the
    e-axis from both sides (w = ±10^-k, including w -> 0^-), the line w = -1/√2 on the w-axis
    (critical points, class changes) and at e = 1/4 (no change), the E_sad contour beyond the saddle.
    """
    reg = regime_of(p, q)
    d = derived_functions()
    rows = []
    with working(dps):
        w_sad = d["w_sad"]()
        w_b = mp.mpf(-1) / 2 if reg > 0 else mp.mpf(-1)
        gb = d["g"](w_b)
        for k in ks:
            eps = mp.mpf(10) ** (-k)
            for sgn, branch in ((1, "I_sad e=+g"), (-1, "I_sad e=-g")):
                rows.append(dict(boundary=branch, side="inside", k=k, theta=(sgn * (gb - eps), w_b)))
                rows.append(dict(boundary=branch, side="outside", k=k, theta=(sgn * (gb + eps), w_b)))
            rows.append(dict(boundary="e-axis", side="w>0", k=k, theta=(mp.mpf(1) / 2, eps)))
            rows.append(dict(boundary="e-axis", side="w<0", k=k, theta=(mp.mpf(1) / 2, -eps)))
            rows.append(dict(boundary="w=-1/sqrt2, e=0", side="right", k=k, theta=(mp.mpf(0), w_sad + eps)))
            rows.append(dict(boundary="w=-1/sqrt2, e=0", side="left", k=k, theta=(mp.mpf(0), w_sad - eps)))
            rows.append(dict(boundary="w=-1/sqrt2, e=1/4", side="right", k=k, theta=(mp.mpf(1) / 4, w_sad + eps)))
            rows.append(dict(boundary="w=-1/sqrt2, e=1/4", side="left", k=k, theta=(mp.mpf(1) / 4, w_sad - eps)))
        other = mp.mpf(-1) if reg > 0 else mp.mpf(-1) / 2
        rows.append(dict(boundary="exactly on I_sad", side="on", k=None, theta=(gb, w_b)))
        rows.append(dict(boundary="E_sad contour beyond the saddle", side="on", k=None, theta=(d["g"](other), other)))
        rows.append(dict(boundary="e-axis", side="on", k=None, theta=(mp.mpf(1) / 2, mp.mpf(0))))
        rows.append(dict(boundary="Theta_max", side="on", k=None,
                         theta=(mp.mpf(0), mp.mpf(-1) if reg > 0 else mp.mpf(-1) / 4)))
    return rows


def _suite_task(task):
    p, q, chain, row, integ, dps = task
    r = compare(chain, None, row["theta"], dps=dps, integrate=integ)
    out = dict(p=p, q=q, **row, basin=r["basin"], theorem=r["theorem_class"],
               predicted=r["predicted"].limit_class, integrated=r.get("integrated_class"), agree=r["agree"])
    if integ:
        out["energy_drift"] = r["flow"].energy_drift
        out["t"] = r["flow"].t
        out["status"] = r["flow"].status
    return out


def boundary_suite(pairs=PAIRS, ks=(1, 5, 10, 15, 20), dps: int = 50, integrate_ks=(20,), jobs: int | None = 1,
                   progress=None):
    """Run `boundary_starts` for each (p, q): theorem class, predicted class, and (for k in
    `integrate_ks` and the exact starts) the integrated class; yields one dict per start, in order.
    `jobs` > 1 spreads the starts over worker processes, None over one per CPU core (results are
    identical, order kept). `progress(done, total)` is called once the starts are known and after each."""
    chains = {(p, q): NumericChain.of(p, q) for p, q in pairs}         # one chain per pair, passed to its starts
    tasks = [(p, q, chains[p, q], row, row["k"] is None or row["k"] in integrate_ks, dps)
             for p, q in pairs for row in boundary_starts(chains[p, q], None, ks, dps)]
    from local2global.numeric.infra.executor import make_executor
    if progress is not None:
        progress(0, len(tasks))
    with make_executor(jobs, start_method="fork") as ex:
        for i, row in enumerate(ex.map(_suite_task, tasks), 1):
            if progress is not None:
                progress(i, len(tasks))
            yield row


# ---------------------------------------------------------------------------------------------
# report for `l2g flow`
# ---------------------------------------------------------------------------------------------

def decimal_text(x, dps) -> str:
    return mp.nstr(x, dps, min_fixed=-mp.inf, max_fixed=mp.inf) if x != 0 else "0"


#: the critical set a critical start lies on, by its class (Thm 1; at p + q = 1 every one is a global minimum)
CRITICAL_SET_WORDS = {"local_min": "Theta_min (e = 0, local minima)", "local_max": "Theta_max (e = 0, local maxima)",
                      "saddle": "the saddle (0, -1/sqrt2)", "global_min": "Theta* (A = A*, global minima)",
                      "iid": "{A = 0} = {e = 0} ∪ {w = -1/sqrt2} (at p + q = 1: A* = 0, every point a global minimum)"}

IID_BASIN = "p+q=1"
IID_REASON = ("p + q = 1: the chain is i.i.d., G'(0) = 0, so A* = 0 and (G strictly convex) sign G'(A) = sign A: "
              "every critical point lies on {A = 0} and is a global minimum (L = H(pi)); |A| decreases along the "
              "flow, which follows its energy contour (Lemma 9) to the first point of {A = 0}")


def predict_iid(fl: ReducedFlow, theta0, dps: int = 50) -> Prediction:
    r"""The limit of the gradient flow at p + q = 1 (outside Thms 2 and 8): G'(0) = π0π1(p+q-1) = 0 and G'' > 0
    (`landscape.structure`) give A* = 0 and sign G'(A) = sign A, so dA/dt = -G'(A)|∇A|^2 drives |A| down and the
    critical set is {A = 0} = {e = 0} ∪ {w = -1/√2}, all global minima. The flow stays on its contour E = E(θ_0)
    (Lemma 9, which does not use p + q): from w0 > 0 (A > 0) it runs down to the w-axis end f(w) = E0; from
    w0 < 0 it runs towards the line w = w_sad = -1/√2 (A changes sign there), meeting the w-axis first when
    E0 < E_sad (f(w) = E0 between w0 and w_sad, Lemma 12), the point (0, w_sad) when E0 = E_sad, and otherwise
    the line itself at e = ±sqrt(E0 - E_sad). The e-axis (w0 = 0, invariant) runs to the origin."""
    d = derived_functions()
    with working(dps):
        tol = _tol(dps)
        e0, w0 = (mpf_exact(x) for x in theta0)
        w_sad, E_sad = d["w_sad"](), d["E_sad"]()
        if e0 == 0:
            return Prediction("global_min", (e0, w0), "start on the w-axis: a critical point (A = 0), the flow stays")
        if w0 == 0:
            return Prediction("global_min", (mp.mpf(0), mp.mpf(0)),
                              "e-axis is invariant (Lemma 9); |e| decreases to the origin (A = e^2 > 0)")
        half = "w>0" if w0 > 0 else "w<0"
        f = d[f"f_{half}"]
        E0 = fl.energy((e0, w0))
        if half == "w>0":
            return Prediction("global_min", (mp.mpf(0), _w_axis_end(f, E0, w0, w_sad, half, None)),
                              "A > 0 on w > 0: the contour runs down to the w-axis at f(w) = E0 (Lemma 12)")
        side = "left" if w0 < w_sad else "right"
        level = level_sign(theta0, tol, E0, E_sad, dps)
        if level < 0:
            return Prediction("global_min", (mp.mpf(0), _w_axis_end(f, E0, w0, w_sad, half, side)),
                              "E0 < E_sad: the contour meets the w-axis before w = -1/sqrt2 (Lemma 12)")
        if level == 0:
            return Prediction("global_min", (mp.mpf(0), w_sad), "E0 = E_sad: the contour runs into (0, -1/sqrt2)")
        return Prediction("global_min", (mp.sign(e0) * mp.sqrt(E0 - E_sad), w_sad),
                          "E0 > E_sad: the contour crosses the line w = -1/sqrt2 (A = 0) away from the axis")


def _limit_system(regime: int, limit, theta0) -> tuple | None:
    """The two equations in (e, w) whose root is the analytic limit (on the branch sign w of the limit, where E is
    smooth), by the kind of limit `predict` / `predict_iid` found: the w-axis end (e = 0, E = E0), the line
    w = -1/√2 at p + q = 1 (1 + 2w|w| = 0, E = E0), a point of Θ* (E = E0, A = A*), the e-axis (w = 0, A = A*);
    None for a limit it does not cover (the origin, the saddle: a degenerate root)."""
    e, w = S.e, S.w
    m = canonical_model_r2()
    e_l, w_l = limit
    if w_l == 0:                 # the e-axis (invariant): A there is A(e, 0)
        return None if (e_l == 0 or regime == 0) else (w, m.A.subs(w, 0) - A_star_expr())
    if theta0[1] == 0:           # a start on the invariant e-axis ends on it
        return None
    s = 1 if w_l > 0 else -1
    branch = {sp.Abs(w): s * w, sp.sign(w): s}
    E = m.energy.subs(branch)
    E0 = m.energy.subs(branch).subs({e: sp.Rational(theta0[0]), w: sp.Rational(theta0[1])})
    if e_l == 0:
        return (e, E - E0)
    if regime == 0:
        return ((1 + 2 * w * sp.Abs(w)).subs(branch), E - E0)
    return (E - E0, m.A.subs(branch) - A_star_expr())


@lru_cache(maxsize=None)
def canonical_model_r2():
    from local2global.symbolic.model import canonical_model
    return canonical_model(False)


@lru_cache(maxsize=None)
def A_star_expr() -> sp.Expr:
    """A* = log((1-p)(1-q)/(pq)) as derived (`symbolic.landscape.structure`), in the symbols p, q."""
    from local2global.symbolic import landscape as sland
    return sland.structure()["A_star"]


def mpf_fraction(x) -> Fraction:
    """The exact value of an mpf as a Fraction (no rounding to the current precision)."""
    sign, man, exp, _ = mp.mpf(x)._mpf_ if not isinstance(x, mp.mpf) else x._mpf_
    v = Fraction(int(man) * 2**int(exp)) if exp >= 0 else Fraction(int(man), 2**-int(exp))
    return -v if sign else v


def certified_error(chain, theta0, limit, dps: int):
    r"""A rigorous bound on the distance (max norm) from the computed analytic limit to a root of its defining
    equations (`_limit_system`), by the Krawczyk test in arb balls: K = x - Y F(x) + (I - Y J(X))(X - x) inside
    the box X around x proves a unique root in X, within the radius of K. None when the test fails (a degenerate
    root, a box too small) or the limit is not covered: the caller then states an estimate. The root is the one
    the prediction's geometry picked (contour ∩ critical set in the direction of the flow); the bound is on the
    digits of that point, the choice of the point is the theorem's."""
    try:
        return _krawczyk(chain, theta0, limit, dps)
    except (ValueError, ArithmeticError, NotImplementedError):     # no enclosure: the caller states an estimate
        return None


def _krawczyk(chain, theta0, limit, dps: int):
    import flint
    from local2global.numeric.evaluate.arb import arb_rational, ball_function, exact_fraction, precision
    system = _limit_system(chain.regime, limit, theta0)
    if system is None:
        return None
    args = (S.e, S.w, S.p, S.q)
    fs = [ball_function(f, args) for f in system]
    js = [[ball_function(sp.diff(f, v), args) for v in (S.e, S.w)] for f in system]
    x_q = [mpf_fraction(x) for x in limit]
    with precision(int(3.33 * (dps + 2 * 10)) + 64):
        pq = [arb_rational(chain.p), arb_rational(chain.q)]
        x = [arb_rational(v) for v in x_q]
        with working(dps + 10):
            mid = lambda a: (lambda f: mp.mpf(f.numerator) / f.denominator)(exact_fraction(a.mid()))
            jm = mp.matrix([[mid(g(*x, *pq)) for g in row] for row in js])
            try:
                Y = jm ** -1
            except ZeroDivisionError:
                return None
            Yq = [[arb_rational(mpf_fraction(Y[i, j])) for j in range(2)] for i in range(2)]
        for r_exp in (dps, dps - 5, dps // 2):
            r = arb_rational(Fraction(1, 10 ** r_exp) * max(1, *(abs(v) for v in x_q)))
            X = [flint.arb(v.mid(), r.upper()) for v in x]
            Fx = [f(*x, *pq) for f in fs]
            JX = [[g(*X, *pq) for g in row] for row in js]
            if not all(v.is_finite() for row in JX for v in row) or not all(v.is_finite() for v in Fx):
                continue
            K = []
            for i in range(2):
                k = x[i] - sum(Yq[i][j] * Fx[j] for j in range(2))
                for j in range(2):
                    c = (1 if i == j else 0) - sum(Yq[i][m_] * JX[m_][j] for m_ in range(2))
                    k += c * (X[j] - x[j])
                K.append(k)
            dist = [abs(K[i] - x[i]) for i in range(2)]
            if all(d_.upper() < r.lower() for d_ in dist):
                up = max(exact_fraction(d_.upper()) for d_ in dist)
                with working(dps + 10):
                    return mp.mpf(up.numerator) / up.denominator * (1 + mp.mpf(10) ** -(dps + 5))
    return None


def _predicted(chain, fl, theta0, dps: int):
    """`two_precisions` of this chain's analytic limit (`predict_iid` at p + q = 1, else `predict`)."""
    run = (lambda d: predict_iid(fl, theta0, dps=d)) if chain.regime == 0 else \
        (lambda d: predict(chain, None, theta0, dps=d, flow=fl))
    return two_precisions(run, theta0, dps)


def two_precisions(run, theta0, dps: int):
    """(prediction, error estimate): `run(d)` (a prediction with a `.limit`) at dps and again at dps + GUARD; the
    estimate is the difference of the two limits, at least 10^-dps relative; None when the limit is the start
    itself (a critical start, which stays: exact)."""
    from local2global.numeric.precision import GUARD
    pred = run(dps)
    with working(dps):
        if all(mpf_exact(x) == y for x, y in zip(theta0, pred.limit)):
            return pred, None
    fine = run(dps + GUARD)
    with working(dps + GUARD):
        floor_ = mp.mpf(10) ** (-dps) * max([mp.mpf(1)] + [abs(x) for x in pred.limit])
        return pred, max([floor_] + [abs(a - b) for a, b in zip(pred.limit, fine.limit)])


def integrated_error(fl: ReducedFlow, res, acc):
    """The error estimate of an integrated limit (not a bound): the accuracy its stopping rule targets, or the
    end point's distance to the nearest critical set when that is larger (at p + q = 1 the flow creeps into
    {A = 0} like t^(-1/2) and stops on a small gradient well before it is within the accuracy; there the distance
    is the Euclidean one to {e = 0} ∪ {w = -1/√2}, the first-order |A|/|∇A| being half of it near the axis)."""
    if fl.chain.regime == 0 and not fl.attention and not fl.untied:
        e, w = res.theta[:2]
        return max(acc, min(abs(e), abs(w - derived_functions()["w_sad"]())))
    return max(acc, fl.critical_distance(res.theta))


def short_text(x, n: int) -> str:
    """A measured quantity of a run (its time, an energy drift) to n significant digits; "0" for zero."""
    return "0" if x == 0 else mp.nstr(x, n)


def class_text(cls, res) -> str:
    """The class of an integrated limit as printed: the class, or why there is none."""
    if cls is not None:
        return cls
    return "none (not converged)" if not res.converged else "none (not within the tolerance of a critical set)"


def start_shown(theta0) -> list[str]:
    return [str(x) for x in theta0]


def flow_report(chain: NumericChain, e0, w0, dps: int = 30, progress: bool = False) -> dict:
    """The JSON contract of `l2g flow`: basin (of Thm 2/8; "p+q=1" at p + q = 1, where `predict_iid` answers),
    theorem_class, predicted {class, limit, error, error_kind, reason}, integrated {class, limit, error, error_kind,
    t, status, ...}, energy_drift, limit_gap, agree, notes. Every number is printed in the convention of
    `precision.shown_point`: to the digits its error supports, with the error and what it is ("exact" for a
    critical start, which stays; "bound" for an analytic limit that `certified_error` encloses, the root of its
    equations proved by the Krawczyk test in arb balls; "estimate" otherwise: the analytic limit from two
    precisions where the test fails, and always the integration, which carries no rigorous bound). agree: the same class, and the limits within the sum of their
    errors. The theorem side and the integration run at the same `dps`; one chain and one flow serve both."""
    theta0 = (Fraction(e0), Fraction(w0))
    rep = {"p": str(chain.p), "q": str(chain.q), "theta0": start_shown(theta0), "dps": dps}
    notes = []
    fl = ReducedFlow(chain)
    if chain.regime == 0:
        basin, thm_cls = IID_BASIN, "global_min"
    else:
        basin, thm_cls = classify_theorem(chain, None, theta0, dps=dps)
    pred, err_pred = _predicted(chain, fl, theta0, dps)
    pred_kind = "estimate"
    if err_pred is not None:
        cert = certified_error(chain, theta0, pred.limit, dps)
        if cert is not None:            # a rigorous bound, printed to no more than dps digits
            with working(dps):
                err_pred = max(cert, mp.mpf(10) ** (-dps) * max([mp.mpf(1)] + [abs(x) for x in pred.limit]))
            pred_kind = "bound"
    res = fl.run(theta0, dps=dps, progress=progress)
    with working(dps):
        if not res.converged:
            cls = None
        elif chain.regime == 0:           # {A = 0} is the whole critical set, every point a global minimum
            cls = "global_min"
        else:
            cls = critical_class(fl, res.theta, **limit_tolerances(dps, res.status == "stationary"))
        rep["basin"] = basin
        rep["theorem_class"] = thm_cls
        rep["predicted"] = dict({"class": pred.limit_class, "reason": pred.reason}, **shown_point(
            pred.limit, err_pred, pred_kind, key="limit", exact=start_shown(theta0) if err_pred is None else None))
        stationary = res.status == "stationary"
        acc = limit_accuracy(dps, cls or pred.limit_class, stationary)
        err_int = None if stationary else integrated_error(fl, res, acc)
        rep["integrated"] = dict({"class": class_text(cls, res)}, **shown_point(
            res.theta, err_int, "estimate", key="limit", exact=start_shown(theta0) if stationary else None),
            t=short_text(res.t, 6), status=res.status, steps=res.steps, evaluations=res.evals, order=res.order)
        if res.energy_drift is not None:
            rep["energy_drift"] = short_text(res.energy_drift, 2)
        else:
            rep["energy_drift"] = "undefined"
            notes.append("energy drift undefined: the start is on the e-axis (w0 = 0), where E is undefined; "
                         "the e-axis is invariant (Lemma 9)" if w0 == 0 else
                         "energy drift undefined: no step was taken")
        if chain.regime == 0:
            notes.append(IID_REASON)
        if err_int is not None and err_int > acc:
            notes.append(f"the flow stopped ({res.status}) {mp.nstr(err_int, 2)} from the critical set, farther than "
                         f"the accuracy {mp.nstr(acc, 2)} its stopping rule aims at: the error stated is that distance")
        if err_pred is None:
            notes.append(f"the start is a critical point, on {CRITICAL_SET_WORDS['iid' if chain.regime == 0 else pred.limit_class]}: "
                         "the flow stays there")
        record_agreement(rep, notes, res, pred, cls, err_int, err_pred, cls == pred.limit_class == thm_cls)
        if basin == "I_sad" or pred.limit_class == "saddle":
            notes.append("start on I_sad: the saddle is reached only in exact arithmetic; a finite-precision "
                         "flow passes it at distance ~10^-(dps/2) and is classified within that tolerance")
    rep["notes"] = notes
    return rep


def record_agreement(rep: dict, notes: list, res, pred, cls, err_int, err_pred, same_class: bool) -> None:
    """rep["limit_gap"] and rep["agree"] of a flow report: agreement is the same class (`same_class`) and the two
    limits within the sum of their stated errors (None: exact); a disagreement or a flow that did not converge adds
    a note. `agree` is always a bool."""
    if not res.converged:
        rep["agree"] = False
        notes.append(f"integration stopped without converging ({res.status}): no agreement is claimed")
        return
    gap = max(abs(a - b) for a, b in zip(res.theta, pred.limit))
    allowed = (err_int or 0) + (err_pred or 0)
    rep["limit_gap"] = mp.nstr(gap, 2) if gap != 0 else "0"
    rep["agree"] = bool(same_class and gap <= allowed)
    if not rep["agree"]:
        notes.append(f"the integrated and the predicted limit disagree (class {cls} vs {pred.limit_class}, "
                     f"gap {mp.nstr(gap, 2)} against their errors {mp.nstr(allowed, 2)} together); both are shown")


def flow_report_text(rep: dict) -> str:
    """Human-readable form of `flow_report`."""
    lines = [f"p = {rep['p']}, q = {rep['q']}, theta0 = ({rep['theta0'][0]}, {rep['theta0'][1]}), dps = {rep['dps']}"]
    lines.append(f"basin (Thm 2/8):   {rep['basin']} -> {rep['theorem_class']}" if rep["basin"] != IID_BASIN else
                 f"regime:            p + q = 1 (i.i.d. chain; Thms 2/8 do not apply) -> {rep['theorem_class']}")
    pl = rep["predicted"]
    lines.append(f"predicted limit:   {pl['class']} at {shown_text(pl, '(e, w)')}")
    it = rep["integrated"]
    lines.append(f"integrated limit:  {it['class']} at {shown_text(it, '(e, w)')}, t = {it['t']} "
                 f"({it['status']}, {it['steps']} steps, order {it['order']})")
    lines.append(f"energy drift:      {rep['energy_drift']}")
    return "\n".join(lines + report_tail(rep))


def report_tail(rep: dict) -> list[str]:
    """The last lines of a flow report's text: the gap between the limits, the agreement, the notes."""
    lines = [f"|integrated - predicted| = {rep['limit_gap']}"] if "limit_gap" in rep else []
    if "agree" in rep:
        lines.append(f"agree:             {'yes' if rep['agree'] else 'no'}")
    return lines + [f"note: {n}" for n in rep["notes"]]


# ---------------------------------------------------------------------------------------------
# With attention (R^3): integrated limits, the report of `l2g flow --a0`, slices, boundaries, Thm 11
# ---------------------------------------------------------------------------------------------

def limit_class(p, q, theta0, dps: int = 15, max_steps: int = 3000, attention: bool = True, **kw) -> str | None:
    """Class of the limit of the gradient flow from θ_0 (None if the flow did not converge within max_steps:
    far from the origin |∇A| ~ e^4 makes the attention flow stiff for this explicit integrator)."""
    cls, _ = integrate_class(p, q, theta0, dps=dps, attention=attention, max_steps=max_steps, **kw)
    return cls


def attention_flow(chain: NumericChain, e0, w0, a0, dps: int = 30, rtol=None, **kw) -> dict:
    """`l2g flow --a0`: integrate the flow with attention from (e0, w0, a0) and classify the limit (Thm 3,
    Lemma 16), next to the prediction of Thms A/B (`basins_r3.predict_R3`, at two precisions; at p + q = 1 the
    class every critical point has there). Keys follow `flow_report`: basin, theorem_class, predicted {class,
    reason, limit, error, error_kind} (no limit when the trajectory is unbounded or the limit is not derived:
    then "limit_note"), integrated {class, limit, error, error_kind, t, status, ...}, energy_drift
    ("undefined" on the plane w0 = 0), energy0, energy_limit, limit_gap, agree, notes; numbers in the convention
    of `precision.shown_point`. The local tolerance is 10^-(3 dps/4), so the drift at dps 50 is ~1e-40."""
    rtol = mp.mpf(10) ** (-(3 * dps // 4)) if rtol is None else rtol
    th0 = tuple(x if isinstance(x, mp.mpf) else Fraction(str(x)) for x in (e0, w0, a0))
    exact = all(isinstance(x, Fraction) for x in th0)
    fl = ReducedFlow(chain, attention=True)
    cls, res = integrate_class(chain, None, th0, dps=dps, attention=True, rtol=rtol, flow=fl, **kw)
    notes = []
    if not exact:                                    # a library caller's computed start: the integration alone
        basin, err_pred, limit = "not predicted", None, None
        pred = {"class": "not predicted", "reason": "no analytic prediction for an inexact start",
                "limit_note": "the closed forms of Thms A/B are evaluated at exact starts only"}
    elif chain.regime == 0:
        cls = "global_min" if res.converged else None
        basin = IID_BASIN
        pred = {"class": "global_min", "reason": "p + q = 1: every critical point in R^3 has A = 0 (Theta_station "
                "included) and is a global minimum", "limit_note": "the limit point is not derived at p + q = 1 "
                "(Thms A/B assume p + q != 1); only its class is predicted"}
        notes.append(IID_REASON.replace("(Lemma 9)", "(Lemma 14)"))
        err_pred = limit = None
    else:
        from local2global.numeric.dynamics.basins_r3 import predict_R3
        basin = "Thm A (p+q > 1)" if chain.regime > 0 else "Thm B (p+q < 1)"
        run = lambda d: Prediction(*(lambda r: (r["class"], r["limit"], r["case"]))(predict_R3(chain, None, th0, dps=d)))
        first = run(dps)
        if first.limit is None:                      # unbounded: no limit point to print
            limit, err_pred = None, None
            pred = {"class": first.limit_class, "reason": first.reason,
                    "limit_note": "the trajectory is unbounded (a -> -oo): there is no limit point"}
        else:
            first, err_pred = two_precisions(run, th0, dps)
            limit = first.limit
            pred = {"class": first.limit_class, "reason": first.reason, **shown_point(
                limit, err_pred, "estimate", key="limit", exact=start_shown(th0) if err_pred is None else None)}
        notes.append("prediction: Thms A/B (our result, Sec. 4.1): the R^3 basins in closed form (Airy functions)")
        if first.limit_class == "unbounded":
            notes.append("the start is on S x [0, oo) (p+q > 1): the trajectory is unbounded, a -> -oo (erratum to "
                         "Lemma 15 / Thm 3)")
    if th0[1] == 0:
        notes.append("start on the ea-plane (w0 = 0): E is undefined there; the plane is invariant (Lemma 14)")
    with working(dps):
        stationary = res.status == "stationary"
        acc = limit_accuracy(dps, cls or (pred["class"] if exact else None), stationary)
        err_int = None if stationary else max(acc, fl.critical_distance(res.theta))
        integrated = {"class": class_text(cls, res), **shown_point(
            res.theta, err_int, "estimate", key="limit", exact=start_shown(th0) if stationary else None),
            "t": short_text(res.t, 6), "status": res.status, "steps": res.steps, "evaluations": res.evals,
            "order": res.order}
        rep = {"p": str(chain.p), "q": str(chain.q), "theta0": start_shown(th0), "dps": dps, "basin": basin,
               "theorem_class": pred["class"], "predicted": pred, "integrated": integrated,
               "energy_drift": short_text(res.energy_drift, 2) if res.energy_drift is not None else "undefined"}
        if res.energy0 is not None:
            rep["energy0"] = shown_point([res.energy0], mp.mpf(10) ** (-dps) * max(1, abs(res.energy0)), "estimate")
            rep["energy_limit"] = shown_point([res.energy_end], max(mp.mpf(10) ** (-dps) * max(1, abs(res.energy_end)),
                                                                    res.energy_drift or 0), "estimate")
        if stationary:
            notes.append("the start is a critical point (the gradient vanishes there exactly): the flow stays there")
        if not exact:
            pass                                         # nothing to agree with
        elif not res.converged:
            rep["agree"] = pred["class"] == "unbounded" and res.status == "unbounded"
            notes.append(f"integration stopped without converging ({res.status})"
                         + ("" if rep["agree"] else ": no agreement is claimed"))
        elif limit is None:
            rep["agree"] = cls == pred["class"]          # the class alone: there is no predicted point
        else:
            gap = max(abs(x - y) for x, y in zip(res.theta, limit))
            allowed = (err_int or 0) + (err_pred or 0)
            rep["limit_gap"] = mp.nstr(gap, 2) if gap != 0 else "0"
            rep["agree"] = bool(cls == pred["class"] and gap <= allowed)
            if not rep["agree"]:
                notes.append(f"the integrated and the predicted limit disagree (class {cls} vs {pred['class']}, gap "
                             f"{mp.nstr(gap, 2)} against their errors {mp.nstr(allowed, 2)} together); both are shown")
        rep["notes"] = notes
        return rep


def slice_point(fixed: str, value, x, y):
    """θ = (e, w, a) on a slice: fixed='a' gives (x, y, value) = (e, w, a0); fixed='w' gives (x, value, y) = (e, w0, a)."""
    return (x, y, value) if fixed == "a" else (x, value, y)


def basin_slice(p, q, fixed: str, value, xs, ys, dps: int = 15) -> list[list]:
    """Limit classes on a grid of a slice (rows = ys, columns = xs); exact grid values in."""
    return [[limit_class(p, q, slice_point(fixed, value, x, y), dps=dps) for x in xs] for y in ys]


def bisect_boundary(p, q, theta_a, theta_b, *, digits: int = 10, dps: int = 30, target: str = "local_min",
                    max_iter: int = 80) -> dict:
    """The boundary of the basin of `target` on the segment [θ_a, θ_b] in R^3, located by bisection.

    Exactly one end must flow to `target`. Each midpoint is integrated at `dps` digits (the flow error,
    ~10^-(dps/2), is far below the bracket width) and the bracket halves until its length is below
    10^-digits. Only "reaches `target`" versus "does not" is used, so the boundary found is that of the
    basin of `target`. Returns the bracket (parameters s_lo < s_hi on the segment and end points), the
    classes met on each side and the number of flows.
    """
    with working(dps):
        ta, tb = [x if isinstance(x, mp.mpf) else mpf_exact(x) for x in theta_a], \
                 [x if isinstance(x, mp.mpf) else mpf_exact(x) for x in theta_b]
        length = mp.sqrt(mp.fsum((x - y) ** 2 for x, y in zip(ta, tb)))
        point = lambda s: [x + s * (y - x) for x, y in zip(ta, tb)]
        ca, cb = limit_class(p, q, ta, dps=dps), limit_class(p, q, tb, dps=dps)
        if (ca == target) == (cb == target):
            raise ValueError(f"ends have classes {ca}, {cb}: the basin boundary of {target} is not bracketed")
        in_a = ca == target
        lo, hi = mp.mpf(0), mp.mpf(1)
        seen = {True: {ca if in_a else cb}, False: {cb if in_a else ca}}
        flows = 2
        while (hi - lo) * length >= mp.mpf(10) ** (-digits) and flows < max_iter:
            mid = (lo + hi) / 2
            cm = limit_class(p, q, point(mid), dps=dps)
            flows += 1
            seen[cm == target].add(cm)
            if (cm == target) == in_a:
                lo = mid
            else:
                hi = mid
        return {"s_lo": lo, "s_hi": hi, "theta_lo": point(lo), "theta_hi": point(hi), "width": (hi - lo) * length,
                "flows": flows, "classes_inside": sorted(map(str, seen[True])),
                "classes_outside": sorted(map(str, seen[False])), "inside_at": "lo" if in_a else "hi"}


def wilson_interval(k: int, n: int, z=1.959963984540054) -> tuple[float, float]:
    """95% Wilson score interval for a binomial proportion k/n."""
    if n == 0:
        return (0.0, 1.0)
    ph = k / n
    den = 1 + z * z / n
    centre = (ph + z * z / (2 * n)) / den
    half = z * ((ph * (1 - ph) / n + z * z / (4 * n * n)) ** 0.5) / den
    return (max(0.0, centre - half), min(1.0, centre + half))


def gaussian_fractions(p, q, sigma, n: int = 100, seed: int = 0, dps: int = 15) -> dict:
    """Thm 11 sampled: the fraction of N(0, σ^2 I_3) starts (`initialisation.gaussian_starts`) whose flow ends in
    each class, with 95% Wilson intervals (counts per class; `None` = not converged within the step budget)."""
    counts: dict = {}
    for th in gaussian_starts(sigma, n, seed):
        c = limit_class(p, q, th, dps=dps)
        counts[c] = counts.get(c, 0) + 1
    k = counts.get("local_min", 0)
    return {"p": str(p), "q": str(q), "sigma": str(sigma), "n": n, "seed": seed, "dps": dps,
            "counts": {str(c): v for c, v in sorted(counts.items(), key=lambda kv: str(kv[0]))},
            "local_min_fraction": k / n, "local_min_ci95": wilson_interval(k, n)}
