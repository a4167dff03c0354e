r"""Where the gradient flow of the untied model ends: predicted from its two conserved quantities, and integrated.

The untied model (θ = (e, w, h), A = eh(1 + 2w|w|); `symbolic.basins_untied`) conserves E_e = 2e² + f(w) and
E_h = 2h² + f(w) off w = 0 (f(w) = E(0, w), Lemma 12), so a trajectory stays on one component of the level set
{E_e = E_1, E_h = E_2}. Along it e² = (E_1 - f)/2, h² = (E_2 - f)/2 and A = s R(w) Q(w) with s = sign(eh),
R = sqrt((E_1 - f)(E_2 - f))/2, Q = 1 + 2w|w|; A is strictly monotone along a regular component and |A| -> ∞ at
both of its ends, so the flow, which lowers L = G(A), ends at the one point of the component where A = A*.

`predict` finds that point without integrating (a bracketed root in w), or the saddle a start on the exceptional
set reaches; `flow_report` puts it next to an integrated flow (`numeric.flow.ReducedFlow(untied=True)`, whose
stopping rule knows only the critical sets) and the drift of both conserved quantities: the contract of
`l2g flow --untied`.

The component, for a start with w_0 ≠ 0 and m = min(E_1, E_2) (the variable with the smaller level vanishes
where f(w) = m; the other never does):

* w_0 > 0: w ranges over [w_b, ∞) with f(w_b) = m (f decreasing), a U-shaped curve: s changes sign at w_b;
* w_0 < 0, m < E_sad: the piece (-∞, w_1] or [w_2, 0) of {f <= m} that holds w_0, U-shaped likewise;
* w_0 < 0, m > E_sad: all of (-∞, 0) with s = s_0 fixed (e and h never vanish).

On a U-shaped component Q keeps its sign σ_Q, so A = A* lies on the half s* = sign(A*) σ_Q, where R|Q| = |A*|.
The exceptional starts: E_1 = E_2 (the turning point is then e = h = 0, a saddle of Θ_0: reached when s* ≠ s_0),
min(E_1, E_2) = E_sad for w_0 < 0 (the component runs into Θ_sad^e or Θ_sad^h: reached when A* is not on the
start's side), and w_0 = 0 (the invariant plane, where A = eh and e² - h² is conserved).
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import mpmath as mp

from local2global.numeric.chain import NumericChain
from local2global.numeric.dynamics.basins import (TheoremsDoNotApply, bracketed_root, class_text, short_text, integrated_error,
                                                    record_agreement, report_tail, start_shown, two_precisions)
from local2global.numeric.dynamics.flow import ReducedFlow
from local2global.numeric.evaluate.lambdify import mpf_exact
from local2global.numeric.evaluate.landscape import Landscape, compiled_model
from local2global.numeric.precision import limit_accuracy, limit_tolerances, shown_point, shown_text, working


@dataclass(frozen=True)
class UntiedPrediction:
    """Class and limit (e, w, h) of the untied flow from θ_0, the levels (E_1, E_2) and how they were obtained."""

    limit_class: str
    limit: tuple
    levels: tuple | None
    reason: str


def _fns():
    return compiled_model(False, True)


def _f(w):
    fns = _fns()
    return fns["f_w>0"](w) if w > 0 else fns["f_w<0"](w)


def _sgn(x) -> int:
    return (x > 0) - (x < 0)


def _far(g, start, toward_zero: bool):
    """A point beyond `start` (towards 0, or away from it) where g > 0 (g -> +∞ at that end)."""
    x = start
    for _ in range(4000):
        x = x / 2 if toward_zero else x * 2
        if g(x) > 0:
            return x
    raise ArithmeticError("no sign change towards the end of the level curve")


def predict(p, q, theta0, dps: int = 50) -> UntiedPrediction:
    r"""The limit of the untied flow from θ_0 = (e, w, h) (exact numbers), from the conserved quantities alone
    (module docstring); raises `TheoremsDoNotApply` for p + q = 1."""
    chain = NumericChain.of(p, q)
    if chain.regime == 0:
        raise TheoremsDoNotApply("the untied classes assume p + q != 1 (G'(0) = 0 and A* = 0 there)")
    e0, w0, h0 = (Fraction(x) for x in theta0)
    with working(dps):
        A_star = Landscape(chain, untied=True).A_star()
        sA = _sgn(A_star)
        if w0 == 0:
            return _predict_plane(e0, h0, A_star)
        E_sad = _fns()["E_sad"]()
        w_sad = _fns()["w_sad"]()
        wm = mpf_exact(w0)
        E1 = 2 * mpf_exact(e0) ** 2 + _f(wm)
        E2 = 2 * mpf_exact(h0) ** 2 + _f(wm)
        s0 = _sgn(e0 * h0)
        m = min(E1, E2)
        levels = (E1, E2)

        def R(x):
            return mp.sqrt(max(E1 - _f(x), 0) * max(E2 - _f(x), 0)) / 2

        def Q(x):
            return 1 + 2 * x * abs(x)

        def point(x, s):
            """(e, w, h) on the level set at w = x on the half s: the variable with the larger level keeps the sign
            it started with, the other one takes the sign that makes sign(eh) = s."""
            ae, ah = mp.sqrt(max(E1 - _f(x), 0) / 2), mp.sqrt(max(E2 - _f(x), 0) / 2)
            if E1 >= E2:
                se = _sgn(e0) or 1
                sh = s * se
            else:
                sh = _sgn(h0) or 1
                se = s * sh
            return (se * ae, x, sh * ah)

        if e0 * h0 == 0 and (w0 < 0 and mp.almosteq(wm, w_sad) or e0 == h0 == 0):
            return UntiedPrediction("saddle", (mpf_exact(e0), wm, mpf_exact(h0)), levels, "the start is critical")
        if w0 < 0 and m > E_sad:
            # the whole half-line, s = s0 fixed: s0 R Q runs from -s0 ∞ (w -> -∞) to s0 ∞ (w -> 0-)
            def g(x):
                return s0 * R(x) * Q(x) - A_star
            lo = wm if (s0 * g(wm) < 0) else _far(lambda x: -s0 * g(x), wm, toward_zero=False)
            hi = wm if (s0 * g(wm) > 0) else _far(lambda x: s0 * g(x), wm, toward_zero=True)
            x = bracketed_root(g, lo, hi)
            return UntiedPrediction("global_min", point(x, s0), levels,
                                    "min(E_e, E_h) > E_sad: e and h never vanish; the one point of the level curve "
                                    "with A = A*")
        # U-shaped component with its turning point w_b (f(w_b) = m) on the side of w0
        if w0 > 0:
            lo = wm / 2
            while _f(lo) <= m:
                lo /= 2
            wb, far_zero, sQ = bracketed_root(lambda x: _f(x) - m, lo, wm), False, 1
        elif wm > w_sad:
            wb, far_zero, sQ = bracketed_root(lambda x: _f(x) - m, w_sad, wm), True, 1
        else:
            wb, far_zero, sQ = bracketed_root(lambda x: _f(x) - m, wm, w_sad), False, -1
        s_star = sA * sQ
        if mp.almosteq(m, E_sad) and w0 < 0:
            # the component runs into Θ_sad^e or Θ_sad^h at w_sad: A* on this side, or the saddle
            side_sign = s0 * (1 if wm > w_sad else -1)
            if s0 != 0 and side_sign == sA:
                return _on_half(R, Q, A_star, w_sad, wm, wm > w_sad, s0, point, levels,
                                "min(E_e, E_h) = E_sad: A* lies on the start's side of the saddle")
            return UntiedPrediction("saddle", point(w_sad, 0), levels,
                                    "min(E_e, E_h) = E_sad and A* is beyond the saddle: the flow ends on "
                                    + ("Theta_sad_e" if E1 <= E2 else "Theta_sad_h"))
        if e0 * e0 == h0 * h0 and s_star != s0:
            return UntiedPrediction("saddle", (mp.mpf(0), wb, mp.mpf(0)), levels,
                                    "E_e = E_h (|e| = |h|): the turning point is e = h = 0 (Theta_0), reached before A*")
        return _on_half(R, Q, A_star, wb, wb, far_zero, s_star, point, levels,
                        "the one point of the level curve with A = A*" + (" (past its turning point, where "
                        + ("e" if E1 < E2 else "h") + " changes sign)" if s_star != s0 else ""))


def _on_half(R, Q, A_star, wb, start, toward_zero, s, point, levels, reason):
    """Solve s R(w) Q(w) = A* on the half-curve from its end wb (where R Q = 0) to its far end (|R Q| -> ∞)."""
    def g(x):
        return abs(R(x) * Q(x)) - abs(A_star)
    far = start if g(start) > 0 else _far(g, start, toward_zero)
    x = bracketed_root(g, wb, far)
    return UntiedPrediction("global_min", point(x, s), levels, reason)


def _predict_plane(e0: Fraction, h0: Fraction, A_star) -> UntiedPrediction:
    """w_0 = 0: the plane w = 0 is invariant (∂A/∂w = 4eh|w| = 0 there), A = eh, C = e² - h² is conserved and
    (eh)' = -G'(eh)(e² + h²) with e² + h² = sqrt(C² + 4(eh)²): eh -> A* unless C = 0 and sign(eh) ≠ sign(A*)."""
    C = e0 * e0 - h0 * h0
    u0 = e0 * h0
    sA = _sgn(A_star)
    if C == 0 and (u0 == 0 or _sgn(u0) != sA):
        return UntiedPrediction("saddle", (mp.mpf(0), mp.mpf(0), mp.mpf(0)), None,
                                "w = 0 and |e| = |h| with sign(eh) != sign(A*): e = h = 0 (the origin)")
    Cm = mpf_exact(C)
    big = (Cm + mp.sqrt(Cm * Cm + 4 * A_star * A_star)) / 2          # the larger of e², h² at eh = A*
    if C >= 0:
        ae, ah = mp.sqrt(big), mp.sqrt(big - Cm)
        se = _sgn(e0) or 1
        sh = sA * se
    else:
        ah, ae = mp.sqrt(big), mp.sqrt(big + Cm)
        sh = _sgn(h0) or 1
        se = sA * sh
    return UntiedPrediction("global_min", (se * ae, mp.mpf(0), sh * ah), None,
                            "w = 0 (invariant): eh -> A* with e² - h² conserved")


def end_class(flow: ReducedFlow, theta, *, tol_e, tol_sad, tol_A) -> str | None:
    """The class of the untied critical set θ lies on (by the flow's own distances), else None: Θ* within tol_A,
    the saddle sets (e = h = 0, or w = w_sad with e or h = 0) within tol_sad."""
    dist = flow.distances(theta)
    if dist["star"] <= tol_A and min(dist["zero"], dist["sad_e"], dist["sad_h"]) > tol_e:
        return "global_min"
    if min(dist["zero"], dist["sad_e"], dist["sad_h"]) <= tol_sad:
        return "saddle"
    return None


def flow_report(chain: NumericChain, e0, w0, h0, dps: int = 30, progress: bool = False) -> dict:
    """The JSON contract of `l2g flow --untied`: predicted {class, limit, reason}, integrated {class, limit,
    accuracy, t, status, ...}, the drifts of E_e and E_h, limit_gap and agree (as `basins.flow_report`)."""
    theta0 = (Fraction(e0), Fraction(w0), Fraction(h0))
    rep = {"p": str(chain.p), "q": str(chain.q), "theta0": [str(x) for x in theta0], "dps": dps,
           "model": "untied"}
    notes = []
    if chain.regime == 0:
        raise TheoremsDoNotApply("the untied flow is characterised for p + q != 1 (at p + q = 1 its limit is not "
                                 "derived)")
    pred, err_pred = two_precisions(lambda d: predict(chain, None, theta0, dps=d), theta0, dps)
    fl = ReducedFlow(chain, untied=True)
    res = fl.run(theta0, dps=dps, progress=progress)
    with working(dps):
        stationary = res.status == "stationary"
        cls = end_class(fl, res.theta, **limit_tolerances(dps, stationary)) if res.converged else None
        rep["predicted"] = {"class": pred.limit_class, "reason": pred.reason,
                            **shown_point(pred.limit, err_pred, "estimate", key="limit",
                                          exact=start_shown(theta0) if err_pred is None else None)}
        if pred.levels is not None:
            rep["predicted"]["levels"] = shown_point(pred.levels, mp.mpf(10) ** (-dps) * max(1, *map(abs, pred.levels)),
                                                     "estimate")
        acc = limit_accuracy(dps, cls or pred.limit_class, stationary)
        err_int = None if stationary else integrated_error(fl, res, acc)
        rep["integrated"] = {"class": class_text(cls, res), **shown_point(
            res.theta, err_int, "estimate", key="limit", exact=start_shown(theta0) if stationary else None),
            "t": short_text(res.t, 6), "status": res.status, "steps": res.steps, "evaluations": res.evals,
            "order": res.order}
        drift_e = res.energy_drift
        drift_h = None
        if theta0[1] != 0:
            E_h = fl.fns["E_h"]
            drift_h = abs(E_h(*res.theta) - E_h(*[mpf_exact(x) for x in theta0]))
        rep["drift_E_e"] = "undefined" if drift_e is None else short_text(drift_e, 2)
        rep["drift_E_h"] = "undefined" if drift_h is None else short_text(drift_h, 2)
        if theta0[1] == 0:
            notes.append("start on w = 0: E_e, E_h are undefined there; the plane is invariant and e^2 - h^2 is "
                         "conserved")
        record_agreement(rep, notes, res, pred, cls, err_int, err_pred, cls == pred.limit_class)
        if pred.limit_class == "saddle":
            notes.append("a start on the exceptional set: the saddle is reached only in exact arithmetic; a "
                         "finite-precision flow passes it and is classified within its tolerance")
    rep["notes"] = notes
    return rep


def flow_report_text(rep: dict) -> str:
    """Human-readable form of `flow_report`."""
    th = rep["theta0"]
    lines = [f"p = {rep['p']}, q = {rep['q']}, theta0 = (e, w, h) = ({th[0]}, {th[1]}, {th[2]}), untied, "
             f"dps = {rep['dps']}"]
    pr = rep["predicted"]
    lines.append(f"predicted limit:   {pr['class']} at {shown_text(pr, '(e, w, h)')} ({pr['reason']})")
    if "levels" in pr:
        lines.append(f"levels:            {shown_text(pr['levels'], '(E_e, E_h)')}")
    it = rep["integrated"]
    lines.append(f"integrated limit:  {it['class']} at {shown_text(it, '(e, w, h)')}, "
                 f"t = {it['t']} ({it['status']}, {it['steps']} steps, order {it['order']})")
    lines.append(f"drift of E_e, E_h: {rep['drift_E_e']}, {rep['drift_E_h']}")
    return "\n".join(lines + report_tail(rep))
