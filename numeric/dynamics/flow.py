r"""Gradient flow dθ/dt = -∇L(θ) at arbitrary precision (mpmath), in any dimension.

`integrate(grad_fn, theta0, dps=...)` is generic: it knows nothing about the paper. It is an explicit
Gragg-Bulirsch-Stoer extrapolation method (modified midpoint rule, polynomial extrapolation in h^2,
step-number sequence n_j = 2j): its coefficients are *computed* (Aitken-Neville), so the same code
reaches any order at any precision without a transcribed Butcher tableau; the order 2k is chosen
from the requested tolerance. Steps adapt to a mixed relative/absolute error estimate (the difference
of the last two extrapolation columns), so the huge time spans of slow convergence near degenerate
critical points (polynomial approach to a saddle whose Hessian vanishes, rates ~ |1+2w|w|| near it)
cost a number of steps that grows only logarithmically in time.

Error monitoring: with `energy_fn` (a conserved quantity such as the energy E of Lemma 9) the
largest deviation |E(θ_n) - E(θ_0)| over the accepted steps is reported as `energy_drift`. With
`project=True` (and `energy_grad_fn`) every accepted step is followed by a Newton projection back to
E = E(θ_0); `energy_drift` then reports the per-step integration error *before* projection (the
error monitor), and the projection keeps the trajectory on its contour, so which critical point the
flow reaches is decided by the dynamics, not by accumulated drift.

Limit detector: a run stops when the gradient vanishes exactly (a critical start), when |∇L| <=
`grad_tol` *and not increasing*, or when `critical_distance(θ)` (distance to a known critical set) is <=
`dist_tol` *and not increasing* (so a start next to an unstable critical point is not mistaken for
convergence: next to the degenerate saddle of Thm 1 |∇L| ~ e^2 is below `grad_tol` within `dist_tol` of it,
and it grows while the flow leaves).
The paper's problems (R^2, and R^3 with attention) are wrapped by `ReducedFlow(chain, attention=...)`,
whose gradient is G'(A)∇A with G' = F_A(A, c*(A)) and A derived (no formula retyped here).

Arithmetic: `integrate` runs in mpmath by default; `ReducedFlow.run` integrates in MPFR (gmpy2, the same
binary precision, `numeric.evaluate.mpfr`), with the same compiled code rebound, about five times faster.
The steps are the same operations; tests/test_mpfr.py holds the two to the same steps and end points.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Callable, Sequence

import mpmath as mp

from local2global.numeric.evaluate.lambdify import mpf_exact
from local2global.numeric.evaluate.mpfr import MPFR, MPMATH, rebind, specialise
from local2global.numeric.evaluate.landscape import Landscape, compiled_model
from local2global.numeric.precision import (flow_atol, flow_dist_tol, flow_grad_tol, flow_rtol,
                                            limit_tolerances, working)


@dataclass
class FlowResult:
    """Outcome of one integration: end point, time, counts, stop status and the error monitors."""

    theta: list
    t: mp.mpf
    status: str     # "stationary", "converged_distance", "converged_gradient", "max_steps", "t_max", "unbounded",
                    # "stalled" (60 rejected steps in a row)
    steps: int
    rejected: int
    evals: int
    grad_norm: mp.mpf
    distance: mp.mpf | None = None
    energy0: mp.mpf | None = None
    energy_end: mp.mpf | None = None
    energy_drift: mp.mpf | None = None       # max |E(theta_n) - E0| over accepted steps (before projection)
    projected: bool = False
    loss_monotone: bool | None = None
    order: int = 0
    max_norm: mp.mpf | None = None            # sup of |theta_n| over accepted steps (Lemma 10: bounded)
    path: list = field(default_factory=list)

    @property
    def converged(self) -> bool:
        return self.status in ("stationary", "converged_distance", "converged_gradient")


def _norm(v, ar=MPMATH):
    return ar.sqrt(ar.fsum(x * x for x in v))


def _neville_ratios(k: int, ar=MPMATH) -> list:
    """(n_j / n_{j-l})^2 - 1 for the Aitken-Neville recursion in h^2 (n_j = 2j), row j (1..k), entry l (1..j-1):
    the same numbers for every step of a run, computed once at its precision."""
    return [[ar.num(2 * j) ** 2 / ar.num(2 * (j - l)) ** 2 - 1 for l in range(1, j)] for j in range(1, k + 1)]


def _gbs_step(grad, y0, g0, H, k, ratios):
    """One extrapolated midpoint step of size H with k columns along θ' = -grad(θ), g0 = grad(y0):
    (T_kk, error vector, evals). `ratios` is `_neville_ratios(k)`.

    The field -grad is never formed: a + h(-g) is computed as a - hg, the same number (round-to-nearest is
    symmetric, so the rounded h(-g) is minus the rounded hg, and a + (-x) and a - x are one operation)."""
    T = []
    evals = 0
    for j in range(1, k + 1):
        n = 2 * j
        h = H / n
        h2 = 2 * h                                 # (2h)g: the product 2*h*g is evaluated left to right
        z_prev = y0
        z = [a - h * b for a, b in zip(y0, g0)]
        for _ in range(n - 1):
            z_prev, z = z, [a - h2 * b for a, b in zip(z_prev, grad(z))]
        evals += n - 1
        row = [z]
        for l, ratio in enumerate(ratios[j - 1], 1):     # Aitken-Neville in h^2
            row.append([a + (a - b) / ratio for a, b in zip(row[l - 1], T[j - 2][l - 1])])
        T.append(row)
    best, prev = T[k - 1][k - 1], T[k - 1][k - 2]
    return best, [a - b for a, b in zip(best, prev)], evals


def integrate(grad_fn: Callable[[list], Sequence], theta0: Sequence, *, dps: int = 30,
              energy_fn: Callable[[list], mp.mpf] | None = None,
              energy_grad_fn: Callable[[list], Sequence] | None = None, project: bool = False,
              critical_distance: Callable[[list], mp.mpf] | None = None, dist_tol=None, grad_tol=None,
              rtol=None, atol=None, order: int | None = None, t_max=None, max_steps: int = 20000,
              loss_fn: Callable[[list], mp.mpf] | None = None, record: bool = False,
              progress: bool = False, norm_max=None, arithmetic=MPMATH) -> FlowResult:
    r"""Integrate dθ/dt = -grad_fn(θ) from θ_0 (any dimension) at `dps` digits until a limit is detected.

    grad_fn, energy_fn, energy_grad_fn, critical_distance, loss_fn take the state (a list of numbers of
    `arithmetic`) and
    are evaluated at dps + GUARD digits. Defaults: rtol = 10^-(dps/2), atol = 10^-dps, order 2k with
    k from rtol, grad_tol = 10^-(dps-5), dist_tol = 10^-(dps/2 - 2); with `norm_max` a run whose |θ|
    exceeds it stops with status "unbounded". Returns a FlowResult whose
    numbers are mpf at the working precision. Never raises on non-convergence: the status says so.

    `arithmetic` is the number type of the state and of every callback: `MPMATH` (mpf, the default) or
    `MPFR` (gmpy2.mpfr at the same binary precision, `numeric.evaluate.mpfr`).
    The steps are the same arithmetic operations either way; only the rounding of exp, log and sqrt
    (correctly rounded in MPFR) can differ, in the last bit of the working precision.
    """
    ar = arithmetic
    with working(dps), ar.context():
        rtol = flow_rtol(dps) if rtol is None else mp.mpf(rtol)
        atol = flow_atol(dps) if atol is None else mp.mpf(atol)
        grad_tol = flow_grad_tol(dps) if grad_tol is None else mp.mpf(grad_tol)
        dist_tol = flow_dist_tol(dps) if dist_tol is None else mp.mpf(dist_tol)
        digits = max(4, int(-mp.log10(rtol)))
        y = [ar.num(mpf_exact(x)) for x in theta0]
        rtol, atol, grad_tol, dist_tol = map(ar.num, (rtol, atol, grad_tol, dist_tol))
        t_max = None if t_max is None else ar.num(mpf_exact(t_max))
        norm_max = None if norm_max is None else ar.num(mpf_exact(norm_max))
        one, tenth, fifth, nine_tenths, five = (ar.num(1), ar.num(1) / 10, ar.num(1) / 5, ar.num(9) / 10,
                                                ar.num(5))
        loss_slack = ar.num(10) ** (-dps)
        k = order // 2 if order else min(12, max(4, (digits + 3) // 2))
        ratios = _neville_ratios(k, ar)
        E0 = energy_fn(y) if energy_fn else None
        drift = ar.num(0)
        L_prev = loss_fn(y) if loss_fn else None
        monotone = True if loss_fn else None
        t = ar.num(0)
        g0 = grad_fn(y)                                  # the field is -g0 (`_gbs_step`)
        evals, steps, rejected, consecutive = 1, 0, 0, 0
        path = [(t, list(y))] if record else []
        gnorm = _norm(g0, ar)
        dist = critical_distance(y) if critical_distance else None
        max_norm = _norm(y, ar)

        def result(status):
            m = ar.to_mpf
            opt = lambda x: None if x is None else m(x)
            return FlowResult(theta=[m(x) for x in y], t=m(t), status=status, steps=steps, rejected=rejected,
                              evals=evals, grad_norm=m(gnorm), distance=opt(dist), energy0=opt(E0),
                              energy_end=m(energy_fn(y)) if energy_fn else None,
                              energy_drift=m(drift) if energy_fn else None, projected=bool(project and energy_fn),
                              loss_monotone=monotone, order=2 * k, max_norm=m(max_norm),
                              path=[(m(s), [m(x) for x in th]) for s, th in path])

        if gnorm == 0:
            return result("stationary")
        scale = max(abs(x) for x in y) + atol
        H = min(one, tenth * scale / gnorm)
        bar = None
        if progress:
            from tqdm import tqdm
            bar = tqdm(total=None, unit="step", delay=2.0, file=sys.stderr, leave=False)
        try:
            while True:
                if steps >= max_steps:
                    return result("max_steps")
                if t_max is not None and t >= t_max:
                    return result("t_max")
                y1, err_vec, ev = _gbs_step(grad_fn, y, g0, H, k, ratios)
                evals += ev
                err = max(abs(d) / (atol + rtol * max(abs(a), abs(b))) for d, a, b in zip(err_vec, y, y1))
                if err > 1 or not all(ar.isfinite(x) for x in y1):
                    rejected += 1
                    consecutive += 1
                    if consecutive > 60:          # step size collapsed: a singularity ahead (e.g. blow-up)
                        return result("stalled")
                    H = H * max(fifth, nine_tenths * (err ** (-one / (2 * k - 1)) if ar.isfinite(err) and err > 0
                                                      else fifth))
                    continue
                t += H
                steps += 1
                consecutive = 0
                if energy_fn:
                    drift = max(drift, abs(energy_fn(y1) - E0) if not project else drift + abs(energy_fn(y1) - energy_fn(y)))
                    if project and energy_grad_fn:
                        y1 = _project(y1, energy_fn, energy_grad_fn, E0, atol, ar=ar)
                y = y1
                max_norm = max(max_norm, _norm(y, ar))
                g0 = grad_fn(y)
                evals += 1
                gnorm_prev, gnorm = gnorm, _norm(g0, ar)
                if loss_fn:
                    L_now = loss_fn(y)
                    if L_now > L_prev + loss_slack * (1 + abs(L_prev)):
                        monotone = False
                    L_prev = L_now
                if record:
                    path.append((t, list(y)))
                if bar is not None:
                    bar.update(1)
                fac = nine_tenths * (err ** (-one / (2 * k - 1)) if err > 0 else five)
                H = H * min(five, max(fifth, fac))
                if gnorm == 0:
                    return result("stationary")
                if norm_max is not None and max_norm > norm_max:
                    return result("unbounded")
                if critical_distance:
                    d_new = critical_distance(y)
                    if d_new <= dist_tol and d_new <= dist:
                        dist = d_new
                        return result("converged_distance")
                    dist = d_new
                if gnorm <= grad_tol and gnorm <= gnorm_prev:
                    return result("converged_gradient")
        finally:
            if bar is not None:
                bar.close()


def _project(y, energy_fn, energy_grad_fn, E0, atol, iterations: int = 3, ar=MPMATH):
    """Newton projection onto {E = E0} along grad E; skipped where |grad E| is too small to be safe."""
    for _ in range(iterations):
        r = energy_fn(y) - E0
        if r == 0:
            break
        g = energy_grad_fn(y)
        g2 = ar.fsum(x * x for x in g)
        if g2 <= atol:       # next to a critical point of E (the saddle): leave the step as integrated
            break
        y = [a - r * b / g2 for a, b in zip(y, g)]
    return y


# ---------------------------------------------------------------------------------------------
# The paper's flows (R^2, and R^3 with attention)
# ---------------------------------------------------------------------------------------------

class ReducedFlow:
    r"""The gradient flow θ' = -∇L(θ) of the reduced loss L(θ) = G(A(θ)) of one chain (Sec. 4, 4.1).

    θ = (e, w), (e, w, a) with `attention`, or (e, w, h) `untied`. ∇L = G'(A)∇A (chain rule;
    `landscape.structure`) is evaluated as one compiled expression (G' written through e^A: `G_prime_expr`);
    `energy` is the derived E (Eq. 11 / Eq. 49; untied the conserved E_e = 2e^2 + f(w) of `basins_untied`, whose
    partner E_h the untied reports check at the end), None on w = 0 (an invariant set, Lemmas 9, 14).
    """

    def __init__(self, chain, q=None, attention: bool = False, untied: bool = False):
        self.landscape = Landscape(chain, q, attention=attention, untied=untied)
        self.chain = self.landscape.chain
        self.attention = self.landscape.attention
        self.untied = self.landscape.untied

    @property
    def fns(self):
        return self.landscape.fns

    def _pq(self):
        return self.chain.mp()

    def A(self, theta) -> mp.mpf:
        return self.fns["A"](*theta)

    def A_star(self) -> mp.mpf:
        return self.landscape.A_star()

    def G_prime(self, Aval) -> mp.mpf:
        return self.landscape.G_prime(Aval)

    def grad_A(self, theta) -> list:
        return [g(*theta) for g in self.fns["grad_A_list"]]

    def grad(self, theta) -> list:
        """∇L(θ) = G'(A)∇A (one compiled function; tests/test_flow.py holds it to `Landscape.at`)."""
        return list(self.fns["grad_L"](*self._pq(), *theta))

    def loss(self, theta) -> mp.mpf:
        return self.landscape.G_parts(self.A(theta))[0]

    def energy(self, theta) -> mp.mpf | None:
        return None if theta[1] == 0 else self.fns[self._energy_key](*theta)

    def energy_grad(self, theta) -> list:
        return [g(*theta) for g in self.fns["grad_E"]]

    @property
    def _energy_key(self) -> str:
        return "E_e" if self.untied else "E"

    def distances(self, theta) -> dict:
        r"""Distance-like measures to each critical set: "star" = |A - A*|/|∇A| (to first order the distance to
        Θ*), "e" = |e| (to the line/plane e = 0), and with attention "station" = |e| |(1 + ae^2, 1 + 2w|w|)|
        (to Θ_station, away from e = 0); untied "zero" = |(e, h)| (to Θ_0), "sad_e" = |(e, w - w_sad)| and "sad_h" =
        |(h, w - w_sad)| (to the saddle sets) instead of "e". The stopping rule and the classifier of a limit both
        use these."""
        return _distances(self.fns, self.A_star(), self.attention, MPMATH, theta, self.untied)

    def critical_distance(self, theta) -> mp.mpf:
        """min of `distances`: the integrator stops when it is small and not increasing."""
        return min(self.distances(theta).values())

    def _mpfr_fns(self):
        """The compiled functions of `fns` the flow calls, rebound to MPFR (`numeric.evaluate.mpfr`)."""
        if "_mpfr" not in self.__dict__:
            self._mpfr = _Rebound(self.fns)
        return self._mpfr

    def callbacks(self, arithmetic=MPMATH) -> dict:
        """grad, energy, energy_grad, critical_distance and loss as functions of a state in `arithmetic`'s
        numbers (the same compiled code and the same formulas as the methods above). Build them inside the
        integrator's precision context: p, q and A* are converted, and the gradient's terms in p, q alone
        computed (`specialise`), once, at that precision."""
        if arithmetic is MPMATH:
            return dict(grad=self.grad, energy=self.energy, energy_grad=self.energy_grad,
                        critical_distance=self.critical_distance, loss=self.loss)
        ar, F = arithmetic, self._mpfr_fns()
        p, q = (ar.num(x) for x in self._pq())
        A_star = ar.num(self.A_star())
        grad_L = specialise(self.fns["grad_L"], p, q)      # its terms in p, q alone computed once, here
        E, grad_E = F[self._energy_key], F["grad_E"]
        return dict(
            grad=lambda th: grad_L(*th),
            energy=lambda th: None if th[1] == 0 else E(*th),
            energy_grad=lambda th: [g(*th) for g in grad_E],
            critical_distance=lambda th: min(_distances(F, A_star, self.attention, ar, th, self.untied).values()),
            # only a monitor (off by default): evaluated in mpmath, exactly converted both ways
            loss=lambda th: ar.num(self.loss([ar.to_mpf(x) for x in th])))

    def callbacks_at(self, dps: int, arithmetic=MPFR) -> dict:
        """`callbacks(arithmetic)` built at the working precision of a flow integrated at `dps` digits (for
        `integrate(..., dps=dps, arithmetic=arithmetic)`)."""
        with working(dps), arithmetic.context():
            return self.callbacks(arithmetic)

    def run(self, theta0, *, dps: int = 30, project: bool | None = None, record: bool = False,
            progress: bool = False, max_steps: int = 20000, loss: bool = False, arithmetic=MPFR,
            **kw) -> FlowResult:
        """Integrate from θ_0 with the energy monitor (projection onto E = E(θ_0): on by default in R^2 off
        the e-axis, off by default with attention, where the reported drift is the plain |E(θ_t) - E(θ_0)|).
        The state is integrated in MPFR by default (`arithmetic=MPMATH` for mpmath); the result is mpf."""
        with working(dps):
            th = [mpf_exact(x) for x in theta0]
        on_axis = th[1] == 0
        if project is None:
            project = not on_axis and not self.attention and not self.untied
        cb = self.callbacks_at(dps, arithmetic)
        return integrate(cb["grad"], th, dps=dps,
                         energy_fn=None if on_axis else cb["energy"],
                         energy_grad_fn=None if on_axis else cb["energy_grad"], project=project and not on_axis,
                         critical_distance=cb["critical_distance"], record=record, progress=progress,
                         max_steps=max_steps, loss_fn=cb["loss"] if loss else None, arithmetic=arithmetic, **kw)


class _Rebound(dict):
    """name -> the compiled function fns[name] rebound to MPFR (a tuple of functions, each), on first use."""

    def __init__(self, fns):
        super().__init__()
        self.fns = fns

    def __missing__(self, key):
        fn = self.fns[key]
        val = self[key] = tuple(map(rebind, fn)) if isinstance(fn, tuple) else rebind(fn)
        return val


def _distances(F, A_star, attention: bool, ar, theta, untied: bool = False) -> dict:
    """`ReducedFlow.distances` with the compiled functions F in arithmetic `ar` (one formula for both)."""
    gA = _norm([g(*theta) for g in F["grad_A_list"]], ar)
    out = {"star": abs(F["A"](*theta) - A_star) / gA if gA != 0 else ar.inf}
    if untied:
        e, w, h = theta
        w_sad = F["w_sad"]()
        out.update(zero=ar.sqrt(e * e + h * h), sad_e=ar.sqrt(e * e + (w - w_sad) ** 2),
                   sad_h=ar.sqrt(h * h + (w - w_sad) ** 2))
        return out
    out["e"] = abs(theta[0])
    if attention:
        out["station"] = (abs(theta[0]) * ar.sqrt(F["gain"](*theta) ** 2 + F["t"](*theta) ** 2)
                          if abs(theta[0]) > ar.num(10) ** (-3) else ar.inf)
    return out


# ---------------------------------------------------------------------------------------------
# naming the end point of a flow: the critical sets of Thm 1 (Thm 10 with attention)
# ---------------------------------------------------------------------------------------------

def critical_class(flow: ReducedFlow, theta, *, tol_e, tol_sad, tol_A) -> str | None:
    """The class of the critical set (Thm 1, or Thm 10 with attention) that θ lies on, else None.

    Membership is measured with the flow's own `distances` (the quantities its stopping rule uses):
    Θ_station within tol_A, Θ* within tol_A, the line e = 0 within tol_e; on e = 0 the saddle w = -1/√2
    within tol_sad, otherwise the derived condition of Θmin (`CanonicalModel.critical_sets`) decides
    between local minimum and maximum."""
    d = compiled_model(False)
    dist = flow.distances(theta)
    if dist.get("station", mp.inf) <= tol_A:
        return "station"
    if dist["star"] <= tol_A and dist["e"] > tol_e:
        return "global_min"
    if dist["e"] <= tol_e:
        if abs(theta[1] - d["w_sad"]()) <= tol_sad:
            return "saddle"
        return "local_min" if flow.fns["regime_sign"](*flow._pq(), *theta) > 0 else "local_max"
    return None


def integrate_class(p, q, theta0, dps: int = 30, attention: bool = False, flow: ReducedFlow | None = None, **kw):
    """(class of the integrated end point by the derived critical sets, or None; FlowResult). `flow`: the caller's
    `ReducedFlow` of this chain and model, else one is built."""
    fl = flow if flow is not None else ReducedFlow(p, q, attention=attention)
    res = fl.run(theta0, dps=dps, **kw)
    with working(dps):
        cls = (critical_class(fl, res.theta, **limit_tolerances(dps, res.status == "stationary"))
               if res.converged else None)
    return cls, res
