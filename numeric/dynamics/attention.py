r"""High-precision evaluation of the attention model (Sec. 4.1, App. G, N) from `symbolic.attention`.

Everything is evaluated in the coordinates (A, z0) of the derivation: L(e, w, a, b) = F(A, z0) and
L(e, w, a) = G(A) with A = e^2(1 + ae^2)(1 + 2w|w|) (`symbolic.attention.slope_A`) and
z0 = b + offset(e, w, a) (`symbolic.attention.offset_z0`, with the kink |1 + ae^2|). The reduced
values use `Landscape(p, q).G_parts(A)` (stable c*(A) for |A| up to 1e4): grad L = G'(A) grad A,
Hess L = G''(A) grad A grad A^T + G'(A) Hess A. The flow, limit classifier (classes `global_min`,
`local_min`, `local_max`, `saddle`, `station`), basin slices and the Gaussian-start experiment of
Thm 11 build on these.
"""
from __future__ import annotations

from functools import lru_cache

import mpmath as mp
import sympy as sp

from local2global.symbolic import _symbols as S
from local2global.symbolic import attention as satt
from local2global.symbolic import bias as sbias
from local2global.symbolic import landscape as sland
from local2global.symbolic.markov import MarkovChain

from local2global.numeric.evaluate.lambdify import compile_mp, mpf_exact
from local2global.numeric.evaluate.landscape import GUARD, Landscape

#: symbol standing for sign(1 + a e^2) in the one-sided derivatives of z0 (kink at 1 + ae^2 = 0)
_sg = sp.Symbol("sg", real=True)
CLASSES = ("global_min", "local_min", "local_max", "saddle", "station")


class _Lazy(dict):
    """name -> compiled callable, each built on first use (the R^4 pieces cost more to derive)."""

    def __init__(self, makers):
        super().__init__()
        self.makers = makers

    def __missing__(self, key):
        val = self[key] = self.makers[key]()
        return val


@lru_cache(maxsize=None)
def _compiled():
    """The derived expressions of `symbolic.attention`, compiled for mpmath on first use."""
    s_expr = 1 + S.a * S.e**2
    v3, v4 = satt.VARS3, satt.VARS4
    pq = (S.p, S.q)
    st = lambda: sland.structure()      # noqa: E731
    return _Lazy({
        "A": lambda: compile_mp(satt.slope_A(), v3),
        "s": lambda: compile_mp(s_expr, v3),
        "t": lambda: compile_mp(1 + 2 * S.w * sp.Abs(S.w), v3),
        "offset": lambda: compile_mp(satt.derive_logit()["offset"], v3),
        "grad_A": lambda: compile_mp(satt.grad_A().T, v3),
        "hess_A": lambda: compile_mp(S.hessian(satt.slope_A(), v3), v3),
        "grad_z0": lambda: compile_mp(sp.Matrix([[sp.diff(satt.offset_z0(), v) for v in v4]]).subs(sp.sign(s_expr), _sg),
                                      v4 + (_sg,)),
        "hess_z0": lambda: compile_mp(S.hessian(satt.offset_z0(), v4).subs(sp.sign(s_expr), _sg), v4 + (_sg,)),
        "F": lambda: compile_mp(sbias.F(), pq + (S.A, S.c)),
        "dF": lambda: compile_mp(st()["dF"].T, pq + (S.A, S.c)),
        "hF": lambda: compile_mp(st()["hessian_F"], pq + (S.A, S.c)),
        "E": lambda: compile_mp(satt.energy(), v3),
        "grad_E": lambda: compile_mp(satt.grad_E().T, v3),
    })


def _rows(m) -> list[list]:
    return [[m[i, j] for j in range(m.cols)] for i in range(m.rows)]


def _num(x):
    return x if isinstance(x, mp.mpf) else mpf_exact(x)


class AttentionLandscape:
    """The attention loss of chain (p, q) in R^3 (reduced) and R^4 (with b), at the caller's precision.

    All methods work at the current mpmath precision (wrap calls in `mp.workdps`); inputs are exact
    numbers (Fraction, int, str, sympy Rational) or mpf.
    """

    def __init__(self, p, q):
        self.land = Landscape(p, q)
        self.p_exact, self.q_exact = p, q
        self.chain = MarkovChain(sp.Rational(str(p)), sp.Rational(str(q)))
        self.fns = _compiled()

    def pq(self):
        return self.land._pq()

    # -- reduced loss L(e, w, a) = G(A) -----------------------------------------------------
    def A(self, e, w, a):
        return self.fns["A"](_num(e), _num(w), _num(a))

    def loss(self, e, w, a):
        return self.land.G_parts(self.A(e, w, a))[0]

    def grad(self, e, w, a) -> list:
        """grad L(e, w, a) = G'(A) grad A, order (e, w, a)."""
        e, w, a = _num(e), _num(w), _num(a)
        G1 = self.land.G_parts(self.fns["A"](e, w, a))[1]
        gA = self.fns["grad_A"](e, w, a)
        return [G1 * gA[j] for j in range(3)]

    def hessian(self, e, w, a) -> list:
        """Hess L(e, w, a) = G'' grad A grad A^T + G' Hess A (w != 0: d^2(w|w|) = 2 sign w)."""
        e, w, a = _num(e), _num(w), _num(a)
        _, G1, G2, _ = self.land.G_parts(self.fns["A"](e, w, a))
        gA = self.fns["grad_A"](e, w, a)
        hA = self.fns["hess_A"](e, w, a)
        return [[G2 * gA[i] * gA[j] + G1 * hA[i, j] for j in range(3)] for i in range(3)]

    def b_star(self, e, w, a):
        """Lemma 13: b* = c*(A) - offset(e, w, a)."""
        e, w, a = _num(e), _num(w), _num(a)
        return self.land.c_star(self.fns["A"](e, w, a)) - self.fns["offset"](e, w, a)

    def energy(self, e, w, a):
        r"""$E = e^2 - 2a^2 - (w^2 + \mathrm{sign}(w)\log|w|)$ (derived), w != 0."""
        return self.fns["E"](_num(e), _num(w), _num(a))

    # -- loss with bias L(e, w, a, b) = F(A, z0) ---------------------------------------------
    def loss_b(self, e, w, a, b):
        e, w, a, b = map(_num, (e, w, a, b))
        p, q = self.pq()
        return self.fns["F"](p, q, self.fns["A"](e, w, a), b + self.fns["offset"](e, w, a))

    def grad_b(self, e, w, a, b, side: int | None = None):
        """grad L(e, w, a, b), order (e, w, a, b). On 1 + ae^2 = 0 pass side=+1/-1 for a one-sided
        gradient; with side=None there the two sides are compared and None is returned if they differ."""
        e, w, a, b = map(_num, (e, w, a, b))
        p, q = self.pq()
        Av, cv = self.fns["A"](e, w, a), b + self.fns["offset"](e, w, a)
        dF = self.fns["dF"](p, q, Av, cv)
        gA = self.fns["grad_A"](e, w, a)
        sv = self.fns["s"](e, w, a)

        def one(sg):
            gz = self.fns["grad_z0"](e, w, a, b, sg)
            return [dF[0] * (gA[j] if j < 3 else 0) + dF[1] * gz[j] for j in range(4)]

        if sv != 0:
            return one(mp.sign(sv))
        if side is not None:
            return one(mp.mpf(side))
        g_plus, g_minus = one(mp.mpf(1)), one(mp.mpf(-1))
        tol = mp.mpf(10) ** (-(mp.mp.dps - GUARD // 2))
        if max(abs(x - y) for x, y in zip(g_plus, g_minus)) <= tol * (1 + max(abs(x) for x in g_plus)):
            return g_plus
        return None

    def hessian_b(self, e, w, a, b):
        """Hess L(e, w, a, b) = J^T Hess F J + F_A Hess A + F_c Hess z0; None on 1 + ae^2 = 0 (e != 0), where
        z0 has a kink and the Hessian does not exist."""
        e, w, a, b = map(_num, (e, w, a, b))
        sv = self.fns["s"](e, w, a)
        if sv == 0 and e != 0:
            return None
        p, q = self.pq()
        Av, cv = self.fns["A"](e, w, a), b + self.fns["offset"](e, w, a)
        dF, hF = self.fns["dF"](p, q, Av, cv), self.fns["hF"](p, q, Av, cv)
        sg = mp.sign(sv) if sv != 0 else mp.mpf(1)
        gA = self.fns["grad_A"](e, w, a)
        hA = self.fns["hess_A"](e, w, a)
        gz = self.fns["grad_z0"](e, w, a, b, sg)
        hz = self.fns["hess_z0"](e, w, a, b, sg)
        J = mp.matrix(2, 4)
        for j in range(4):
            J[0, j] = gA[j] if j < 3 else 0
            J[1, j] = gz[j]
        H = J.T * hF * J
        for i in range(4):
            for j in range(4):
                H[i, j] += dF[1] * hz[i, j] + (dF[0] * hA[i, j] if i < 3 and j < 3 else 0)
        return _rows(H)


# ---------------------------------------------------------------------------------------------
# Critical sets and limit classes
# ---------------------------------------------------------------------------------------------

def A_star(p, q):
    """A* = log((1-p)(1-q)/(pq)) (from `landscape.structure`), at the current precision."""
    return compile_mp(sland.structure()["A_star"], (S.p, S.q))(mpf_exact(p), mpf_exact(q))


def classify_point(p, q, e, w, a, tol) -> str | None:
    """Which critical set of Thm 10 (R^3) the point lies on, within `tol`, or None.

    Order of tests: Theta_station (e away from 0, 1 + ae^2 ~ 0, 1 + 2w|w| ~ 0), Theta_star (A ~ A*),
    then e ~ 0 with the sign of (p+q-1)(1+2w|w|): local_min / local_max / saddle.
    """
    L = AttentionLandscape(p, q)
    e, w, a = map(_num, (e, w, a))
    f = L.fns
    Av, sv, tv = f["A"](e, w, a), f["s"](e, w, a), f["t"](e, w, a)
    reg = mp.sign(sum(L.pq()) - 1)
    if abs(e) > tol and abs(sv) <= tol and abs(tv) <= tol:
        return "station"
    if abs(Av - A_star(p, q)) <= tol and abs(e) > tol:
        return "global_min"
    if abs(e) <= tol:
        if abs(tv) <= tol:
            return "saddle"
        return "local_min" if reg * tv > 0 else "local_max"
    return None


def critical_name(cls: str | None, space: str = "R3") -> str | None:
    """Name of the paper's set for a class (Thm 10 in R^3, Thm 9 in R^4)."""
    names3 = {"global_min": "Theta_star", "local_min": "Theta_min", "local_max": "Theta_max",
              "saddle": "Theta_sad", "station": "Theta_station"}
    if cls is None:
        return None
    name = names3[cls]
    return name if space == "R3" else name.replace("Theta", "Gamma").replace("Gamma_max", "Gamma_sad")


def _s(x, dps):
    return mp.nstr(x, dps) if x is not None else None


def _fmt(obj, dps):
    if obj is None:
        return None
    if isinstance(obj, list):
        return [_fmt(x, dps) for x in obj]
    return _s(obj, dps)


def attention_point(p, q, e, w, a, b=None, dps: int = 50) -> dict:
    """`l2g eval --a`: the values at (e, w, a[, b]) in eval's JSON contract, vectors in the order e, w, a, b.

    Keys: "A", "b_star", "loss", "grad" [dL/de, dL/dw, dL/da], "hessian" (3x3), "critical" (Theta_* name of
    Thm 10 or None) and with b: "loss_b", "grad_b" [de, dw, da, db], "hessian_b" (4x4; None on 1 + ae^2 = 0
    with e != 0, where it does not exist), "critical_b" (Gamma_* name of Thm 9 or None); "dps". Numbers are
    decimal strings with `dps` significant digits; inputs exact (Fraction, int, decimal string).
    """
    with mp.workdps(20):
        big = max(abs(_num(x)) for x in (e, w, a, b if b is not None else 0))
    extra = 3 * int(mp.log10(1 + big)) + 2       # z0 has a e^4 terms: cancellation grows with the inputs
    with mp.workdps(dps + GUARD + extra):
        L = AttentionLandscape(p, q)
        out = {
            "A": L.A(e, w, a), "b_star": L.b_star(e, w, a), "loss": L.loss(e, w, a),
            "grad": L.grad(e, w, a), "hessian": L.hessian(e, w, a),
        }
        tol = mp.mpf(10) ** (-(dps - 10))
        gnorm = max(abs(x) for x in out["grad"])
        cls = classify_point(p, q, e, w, a, tol) if gnorm <= tol else None
        res = {k: _fmt(v, dps) for k, v in out.items()}
        res["critical"] = critical_name(cls, "R3")
        if b is not None:
            gb = L.grad_b(e, w, a, b)
            res.update(loss_b=_fmt(L.loss_b(e, w, a, b), dps), grad_b=_fmt(gb, dps),
                       hessian_b=_fmt(L.hessian_b(e, w, a, b), dps))
            crit_b = cls is not None and gb is not None and max(abs(x) for x in gb) <= tol
            res["critical_b"] = critical_name(cls, "R4") if crit_b else None
        res["dps"] = dps
        return res


# ---------------------------------------------------------------------------------------------
# Gradient flow in R^3 (Thm 3, Lemmas 14-16) through the generic integrator of `numeric.flow`
# ---------------------------------------------------------------------------------------------

@lru_cache(maxsize=None)
def _compiled_flow():
    """Lean pieces for the vector field: the components of grad A and grad E (G' is `Landscape.G_prime`)."""
    v3 = satt.VARS3
    gA, gE = satt.grad_A(), satt.grad_E()
    return {
        "gA": tuple(compile_mp(g, v3) for g in gA),
        "gE": tuple(compile_mp(g, v3) for g in gE),
    }


class AttentionFlow:
    r"""Gradient flow $\dot\theta = -\nabla L(\theta)$ of the reduced loss in R^3, θ = (e, w, a) (GF-Attention).

    ∇L = G'(A) ∇A with G'(A) = F_A(A, c*(A)) (derived; `Landscape.G_prime`), energy E of
    `symbolic.attention.energy` (None on the ea-plane w = 0, which is invariant: Lemma 14).
    """

    def __init__(self, p, q):
        self.L = AttentionLandscape(p, q)
        self.p_exact, self.q_exact = p, q
        self.fl = _compiled_flow()

    def _pq(self):
        return self.L.land._pq()

    def G_prime(self, Aval):
        return self.L.land.G_prime(Aval)

    def grad(self, th) -> list:
        e, w, a = th
        G1 = self.G_prime(self.L.fns["A"](e, w, a))
        return [G1 * g(e, w, a) for g in self.fl["gA"]]

    def loss(self, th):
        return self.L.land.G_parts(self.L.fns["A"](*th))[0]

    def energy(self, th):
        return None if th[1] == 0 else self.L.fns["E"](*th)

    def energy_grad(self, th) -> list:
        return [g(*th) for g in self.fl["gE"]]

    def critical_distance(self, th):
        r"""min(|e|, |A - A*|/|∇A|, |(1+ae^2, 1+2w|w|)|): a distance-like measure to the critical sets of Thm 10."""
        e, w, a = th
        gA = mp.sqrt(mp.fsum(g(e, w, a) ** 2 for g in self.fl["gA"]))
        p, q = self._pq()
        dA = abs(self.L.fns["A"](e, w, a) - _A_star_mp(p, q)) / gA if gA != 0 else mp.inf
        station = abs(e) * mp.sqrt(self.L.fns["s"](e, w, a) ** 2 + self.L.fns["t"](e, w, a) ** 2) \
            if abs(e) > mp.mpf(10) ** (-3) else mp.inf
        return min(abs(e), dA, station)

    def run(self, theta0, *, dps: int = 30, project: bool = False, record: bool = False, max_steps: int = 20000,
            rtol=None, **kw):
        """Integrate from θ_0 = (e0, w0, a0) with the energy monitor (no projection by default: the
        reported drift is then the plain |E(θ_t) - E(θ_0)|)."""
        from local2global.numeric.dynamics.flow import integrate
        with mp.workdps(dps + 10):
            th = [_num(x) for x in theta0]
        on_plane = th[1] == 0
        return integrate(self.grad, th, dps=dps, energy_fn=None if on_plane else self.energy,
                         energy_grad_fn=None if on_plane else self.energy_grad, project=project and not on_plane,
                         critical_distance=self.critical_distance, record=record, max_steps=max_steps,
                         rtol=rtol, **kw)


def _A_star_mp(p, q):
    return _compiled_A_star()(p, q)


@lru_cache(maxsize=None)
def _compiled_A_star():
    return compile_mp(sland.structure()["A_star"], (S.p, S.q))


def classify_limit(p, q, theta, tol=None) -> str | None:
    """The class of a flow's end point: the critical set of Thm 10 it is on (within tol), or None."""
    tol = mp.mpf(10) ** (-(mp.mp.dps // 3)) if tol is None else tol
    return classify_point(p, q, *theta, tol=tol)


def attention_flow(p, q, e0, w0, a0, dps: int = 30, rtol=None, **kw) -> dict:
    """`l2g flow --a0`: integrate GF-Attention from (e0, w0, a0) and classify the limit (Thm 3, Lemma 16).

    The dict follows `l2g flow`'s contract: "predicted" is None (the basins in R^3 have no closed form;
    Sec. 4.1 leaves them open), "integrated" {"class" (global_min, local_min, local_max, saddle, station
    or None), "limit" [e, w, a], "t", "status", "steps", "evaluations", "order"}, "energy_drift" (max
    |E(θ_t) - E(θ_0)| over the steps; None on the ea-plane w0 = 0), "agree" None, and "energy0",
    "energy_limit", "notes". The local tolerance is 10^-(3 dps/4), so the drift at dps 50 is ~1e-40.
    """
    from fractions import Fraction
    rtol = mp.mpf(10) ** (-(3 * dps // 4)) if rtol is None else rtol
    fl = AttentionFlow(p, q)
    th0 = tuple(Fraction(str(x)) if not isinstance(x, mp.mpf) else x for x in (e0, w0, a0))
    res = fl.run(th0, dps=dps, rtol=rtol, **kw)
    notes = ["R^3 basins have no closed form (Sec. 4.1): no analytic prediction"]
    if th0[1] == 0:
        notes.append("start on the ea-plane (w0 = 0): E is undefined there; the plane is invariant (Lemma 14)")
    with mp.workdps(dps + 10):
        cls = classify_limit(p, q, res.theta, tol=mp.mpf(10) ** (-(dps // 2 - 4))) if res.converged else None
        if not res.converged:
            notes.append(f"integration stopped without converging ({res.status})")
        return {
            "p": str(p), "q": str(q), "theta0": [str(x) for x in th0], "dps": dps,
            "basin": None, "theorem_class": None, "predicted": None,
            "integrated": {"class": cls, "limit": [_s(x, dps) for x in res.theta], "t": _s(res.t, 15),
                           "status": res.status, "steps": res.steps, "evaluations": res.evals, "order": res.order},
            "energy_drift": mp.nstr(res.energy_drift, 3) if res.energy_drift is not None else None,
            "agree": None,
            "energy0": _s(res.energy0, dps) if res.energy0 is not None else None,
            "energy_limit": _s(res.energy_end, dps) if res.energy_end is not None else None,
            "notes": notes,
        }


# ---------------------------------------------------------------------------------------------
# Basins on slices, boundaries by bisection, Gaussian starts (Thm 11)
# ---------------------------------------------------------------------------------------------

def limit_class(p, q, theta0, dps: int = 15, max_steps: int = 3000, **kw) -> str | None:
    """Class of the limit of GF-Attention from θ_0 (None if the flow did not converge within max_steps:
    far from the origin |grad A| ~ e^4 makes the flow stiff for this explicit integrator)."""
    fl = AttentionFlow(p, q)
    res = fl.run(theta0, dps=dps, max_steps=max_steps, **kw)
    if not res.converged:
        return None
    with mp.workdps(dps):
        return classify_limit(p, q, res.theta, tol=mp.mpf(10) ** (-(dps // 2 - 4)))


def slice_point(fixed: str, value, x, y):
    """θ = (e, w, a) on a slice: fixed='a' gives (x, y, value) = (e, w, a0); fixed='w' gives (x, value, y) = (e, w0, a)."""
    return (x, y, value) if fixed == "a" else (x, value, y)


def basin_slice(p, q, fixed: str, value, xs, ys, dps: int = 15) -> list[list]:
    """Limit classes on a grid of a slice (rows = ys, columns = xs); exact grid values in."""
    return [[limit_class(p, q, slice_point(fixed, value, x, y), dps=dps) for x in xs] for y in ys]


def bisect_boundary(p, q, theta_a, theta_b, *, digits: int = 10, dps: int = 30, target: str = "local_min",
                    max_iter: int = 80) -> dict:
    """The boundary of the basin of `target` on the segment [θ_a, θ_b], located by bisection.

    Exactly one end must flow to `target`. Each midpoint is integrated at `dps` digits (the flow error,
    ~10^-(dps/2), is far below the bracket width) and the bracket halves until its length is below
    10^-digits. Starts next to the boundary pass close to the unstable critical sets, where the flow can
    stop next to a local maximum or saddle; only "reaches `target`" versus "does not" is used, so the
    boundary found is that of the basin of `target`. Returns the bracket (parameters s_lo < s_hi on the
    segment and end points), the classes met on each side and the number of flows.
    """
    with mp.workdps(dps + 10):
        ta, tb = [_num(x) for x in theta_a], [_num(x) for x in theta_b]
        length = mp.sqrt(mp.fsum((x - y) ** 2 for x, y in zip(ta, tb)))
        point = lambda s: [x + s * (y - x) for x, y in zip(ta, tb)]      # noqa: E731
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


def gaussian_starts(sigma, n: int, seed: int):
    """n starts θ_0 ~ N(0, σ^2 I_3), reproducible (random.Random(seed)); exact Fractions of the float draws."""
    import random
    from fractions import Fraction
    rng = random.Random(seed)
    s = float(Fraction(str(sigma)))
    return [tuple(Fraction(rng.gauss(0.0, s)) for _ in range(3)) for _ in range(n)]


def gaussian_fractions(p, q, sigma, n: int = 100, seed: int = 0, dps: int = 15) -> dict:
    """Thm 11 quantified: the fraction of N(0, σ^2 I_3) starts whose flow ends in each class, with
    95% Wilson intervals (counts per class; `None` = not converged within the step budget)."""
    counts: dict = {}
    for th in gaussian_starts(sigma, n, seed):
        c = limit_class(p, q, th, dps=dps)
        counts[c] = counts.get(c, 0) + 1
    k = counts.get("local_min", 0)
    return {"p": str(p), "q": str(q), "sigma": str(sigma), "n": n, "seed": seed, "dps": dps,
            "counts": {str(c): v for c, v in sorted(counts.items(), key=lambda kv: str(kv[0]))},
            "local_min_fraction": k / n, "local_min_ci95": wilson_interval(k, n)}
