r"""Claims of Sec. 4 and App. F, M: the energy of the gradient flow in R^2, its conservation, the energy on
the w-axis (Lemma 12), the saddle asymptotes g(w), the basins of Thms 2 and 8, I_common, the limit in I*,
convergence (Lemmas 10, 11), Fig. 1 and the Gaussian-initialisation statement.

The theorems are proved along the paper's own route, as steps with `uses` edges: the energy is conserved
(Lemma 9), the flow runs along gradient lines of A towards the level A* (structure), w moves monotonically
with the sign of -(A - A*) and e keeps its sign, the contours' geometry (Lemma 12, the facts of
`symbolic.basins.contour_facts`). The limit of every flow is then computed, per sign datum, by walking along
its contour (`symbolic.basins.limit_walk`: the direction of motion, the end of each piece of the w-line ahead,
the value of A there, the first zero of the one-dimensional field met, its class from Thm 1's derived
families); what the walk takes from arguments in prose is printed as the argued steps of Lemma 10. Thms 2 and
8 and I_common compare the printed sets with those limits on every feasible sign datum. Integrated flows (at
`Context.flows` digits, no energy projection, a stopping rule that knows only the critical sets of Thm 1 or
only |∇L|) stay as corroboration.
"""
from __future__ import annotations

import random
import zlib
from fractions import Fraction
from functools import lru_cache

import mpmath as mp
import sympy as sp

from local2global.numeric.dynamics import basins as nbasins
from local2global.numeric.dynamics.flow import ReducedFlow, integrate
from local2global.numeric.evaluate.mpfr import MPFR, rebind
from local2global.numeric.precision import limit_tolerances, working
from local2global.proofs import _steps as steps
from local2global.proofs._checks import W_BRANCHES_0, identity, matrix_identity, rational_in
from local2global.proofs._registry import Outcome, claim, combine
from local2global.symbolic import basins as sbasins
from local2global.symbolic import energy as senergy
from local2global.symbolic import landscape as slandscape
from local2global.symbolic import symbols as S
from local2global.symbolic.model import canonical_model

_M = canonical_model()

e, w, w_pos, w_neg = S.e, S.w, S.w_pos, S.w_neg
E_SAD_PRINTED = -(1 + sp.log(2)) / 2
ENERGY_PRINTED = e**2 - (w**2 + sp.sign(w) * sp.log(sp.Abs(w)))
G_PRINTED = sp.sqrt(w**2 - sp.log(-w) + E_SAD_PRINTED)
A_PRINTED = e**2 * (1 + 2 * w * sp.Abs(w))
PAIRS_GT1 = ((Fraction(9, 10), Fraction(9, 10)), (Fraction(3, 5), Fraction(4, 5)))
PAIRS_LT1 = ((Fraction(1, 10), Fraction(1, 10)), (Fraction(1, 5), Fraction(3, 10)))
R2 = "(p, q) in (0,1)^2, p + q != 1; theta_0 in R^2"
HALF_WORDS = {"w>0": "$w > 0$", "w<0": "$w < 0$"}


@lru_cache(maxsize=None)
def _flow(p, q, e0, w0, dps, project=False, stop="critical"):
    """An integrated flow for corroboration: no energy projection by default; `stop="critical"` stops near the
    critical sets of Thm 1 (not the basin sets under test), `stop="gradient"` only when |∇L| is tiny."""
    fl = ReducedFlow(p, q)
    if stop == "gradient":
        with working(dps):
            th = [mp.mpf(x.numerator) / x.denominator for x in (e0, w0)]
        # |∇L| <= 10^-(dps/2 - 2): the integrator tracks its path to ~10^-(dps/2), so |∇L| cannot fall much
        # lower; the end point is then within ~|∇L|/λ of Θ* (λ > 0 in the normal direction)
        cb = fl.callbacks_at(dps, MPFR)
        return integrate(cb["grad"], th, dps=dps, energy_fn=cb["energy"] if w0 != 0 else None,
                         grad_tol=mp.mpf(10) ** (-(dps // 2 - 2)), arithmetic=MPFR)
    return fl.run((e0, w0), dps=dps, project=project)


_PREDICTIONS: dict = {}


def _predicted_class(p, q, theta0, dps: int = 30) -> str:
    """The class of `nbasins.predict`, memoised in this process: the analytic prediction does not involve the
    form under test, so the printed statement and its control (which share their starts) compute it once; each
    is still decided by its own sets and its own comparison. Keyed by the exact start (an mpf by its bits)."""
    key = (p, q, dps, tuple(x._mpf_ if isinstance(x, mp.mpf) else Fraction(x) for x in theta0))
    if key not in _PREDICTIONS:
        _PREDICTIONS[key] = nbasins.predict(p, q, theta0, dps=dps).limit_class
    return _PREDICTIONS[key]


def _ended_class(p, q, res, dps):
    with working(dps):
        return (nbasins.critical_class(ReducedFlow(p, q), res.theta, **limit_tolerances(dps, res.status == "stationary"))
                if res.converged else None)


def _words(x) -> str:
    """A SymPy value in a reader's notation, as mathematics ($+\\infty$ for oo)."""
    return {sp.oo: r"$+\infty$", -sp.oo: r"$-\infty$"}.get(x, steps.tex(x))


def _sign_word(s) -> str:
    return {1: "positive", -1: "negative", 0: "zero"}.get(s, str(s))


def _class_words(c) -> str:
    return {"global_min": "global minimum", "local_min": "local minimum", "local_max": "local maximum",
            "saddle": "saddle", "unbounded": "unbounded"}.get(c, str(c))


# --- Eq. 11 / Lemma 9 ------------------------------------------------------------------------

@claim("eq11.energy", ref="Eq. 11 / Eq. 48", title="Energy function",
       statement=r"$E(e, w) = e^2 - (w^2 + \mathrm{sign}(w)\log|w|)$ for $w \neq 0$: the first integral of "
                 r"$de/dw = (\partial_e L)/(\partial_w L)$ on each half-plane.",
       printed=lambda: ENERGY_PRINTED, mutant=lambda: e**2 - (w**2 - sp.sign(w) * sp.log(sp.Abs(w))),
       section="flow", domain="(e, w) in R^2, w != 0")
def _energy_form(form, ctx):
    """The printed E equals the first integral derived from the flow equations (exact on each half-plane)."""
    return combine(*[identity(senergy.energy(lab), form.subs(w, wb), ctx, f"eq11.energy/{lab}",
                              states=f"On {HALF_WORDS[lab]} the form equals the first integral derived from the flow "
                                     r"equations ($\sum_x k_x x\,\dot x = m(w)\,\dot w$, integrated)")
                     for lab, wb in senergy.HALF_PLANES.items()])


def _drift_step(form, ctx) -> steps.Step:
    """|E(θ_t) - E(θ_0)| along flows integrated without projection, E the form under test (a corroboration)."""
    fl = ReducedFlow(*PAIRS_GT1[0])
    fn = {lab: rebind(sp.lambdify((e, w), form.subs(w, wb).subs(wb, w), "mpmath"))
          for lab, wb in senergy.HALF_PLANES.items()}
    grad = fl.callbacks_at(ctx.flows, MPFR)["grad"]
    drifts = []
    starts = ((Fraction(1, 2), Fraction(-1, 2)), (Fraction(3, 10), Fraction(1, 2)))
    for th in starts:
        res = integrate(grad, th, dps=ctx.flows, energy_fn=lambda y: fn["w>0" if y[1] > 0 else "w<0"](*y), t_max=3,
                        arithmetic=MPFR)
        drifts.append(res.energy_drift)
    tol = mp.mpf(10) ** (-(ctx.flows // 2 - 2))
    return steps.sampled(r"The form stays constant along integrated flows: $|E(\theta_t) - E(\theta_0)|$ is below the "
                         "tolerance for $t \\in [0, 3]$", max(drifts) < tol,
                         method=f"flows integrated without energy projection at {ctx.flows} digits",
                         domain="(p, q) = (9/10, 9/10), starts (1/2, -1/2) and (3/10, 1/2), t in [0, 3]",
                         count=len(starts), digits=ctx.flows,
                         values={"max drift": mp.nstr(max(drifts), 3), "tolerance": mp.nstr(tol, 2)})


@claim("lemma9.conservation", ref="Lemma 1 / Lemma 9", title="Energy is constant along the flow",
       statement=r"$\frac{d}{dt}E(\theta_t) = -\nabla E\cdot\nabla L = -G'(A)\,\nabla E\cdot\nabla A = 0$ for $w_0 \neq 0$.",
       printed=lambda: ENERGY_PRINTED, mutant=lambda: 2 * e**2 - (w**2 + sp.sign(w) * sp.log(sp.Abs(w))),
       uses=("eq11.energy", "structure.G_prime"), section="flow", domain="theta_0 in R^2, w_0 != 0; all t >= 0")
def _conservation(form, ctx):
    """∇E·∇A ≡ 0 on both half-planes (exact), so ∇E·∇L = G'(A)∇E·∇A = 0 (∇L = G'(A)∇A: L = G∘A); the form must
    be Eq. 11's E (the lemma is about that E; E + 1 is conserved too). Corroboration: E(θ_t) constant along
    integrated flows."""
    Aexpr = _M.A
    dots = []
    for lab, wb in senergy.HALF_PLANES.items():
        Eb, Ab = form.subs(w, wb), Aexpr.subs(w, wb)
        dot = sp.diff(Eb, e) * sp.diff(Ab, e) + sp.diff(Eb, wb) * sp.diff(Ab, wb)
        o = identity(dot, sp.S.Zero, ctx, f"lemma9.conservation/{lab}",
                     states=rf"On {HALF_WORDS[lab]}, $\nabla E\cdot\nabla A = 0$ for the form, so "
                            r"$\frac{d}{dt}E = -\nabla E\cdot\nabla L = -G'(A)\,\nabla E\cdot\nabla A = 0$")
        # the four partial derivatives the dot product is made of, for the kernel to re-derive
        derivs = steps.derivative_obligations((Eb, Ab), (e, wb))
        dots.append(Outcome.of(*[steps.with_obligations(s, derivs) if s.kind == "exact" and s.obligations else s
                                 for s in o.steps]))
    return Outcome.of(*[s for o in dots for s in o.steps], *_energy_form(form, ctx).steps,
                      corroboration=[_drift_step(form, ctx)],
                      checked_domain="R^2 minus the e-axis, both half-planes (exact)")


def _dA_dw_at_0_step(form) -> steps.Step:
    d = sp.diff(form, w).subs(w, 0)
    return steps.exact(r"$\partial_w A(e, 0) = 0$ for the form, for every $e$", sp.expand(d) == 0,
                       method="SymPy derivative at w = 0 (w|w| differentiated as |w| + w sign(w))",
                       domain="the whole e-axis", values={"dA/dw at w = 0": steps.tex(sp.expand(d))},
                       obligations=[steps.Obligation("== 0", d, unit_pq=False)])


#: the published theorem the uniqueness of solutions rests on
PICARD_LINDELOF = (r"A solution of $\dot\theta = F(\theta)$ with $F$ locally Lipschitz through a given point exists on a "
                   r"neighbourhood of its time and is unique there.",
                   "Picard-Lindelof theorem (P. Hartman, Ordinary Differential Equations, Ch. II, Thm 1.1)")

#: the argument behind the invariance of the axes (printed in full in the record)
UNIQUENESS = (
    r"Solutions of $\dot\theta = -\nabla L(\theta)$ are unique; so the $e$-axis, on which $\partial_w L = 0$, is "
    r"invariant, and no solution from $e_0 \neq 0$ reaches the $w$-axis, which consists of critical points.",
    "grad L = G'(A) grad A with G' smooth (G'' exists, structure) and grad A = (2e V(w), e^2 4|w|), V = 1 + 2w|w|: "
    "the one-sided derivatives of grad A on w > 0 and w < 0 are polynomials in (e, w) and grad A is continuous "
    "across w = 0 (both exact steps here), so grad A, and with it grad L, is locally Lipschitz. By the "
    "Picard-Lindelof theorem the solution through any point is unique. The curve (e(t), 0) with e' = -dL/de(e, 0) "
    "solves the system (dL/dw(e, 0) = 0, exact), so it is the solution from (e_0, 0): w_t = 0 for all t. Every "
    "point of e = 0 is an equilibrium (grad A = 0 there, Thm 1), so a solution from e_0 != 0 cannot reach e = 0 "
    "in finite time (it would meet an equilibrium's constant solution): e keeps its sign.")


def _lipschitz_steps() -> list[steps.Step]:
    """The one-sided derivatives of ∇A are polynomials on w > 0, w < 0, and ∇A is continuous across w = 0."""
    polys, jumps = True, []
    for lab, wb in senergy.HALF_PLANES.items():
        H = sp.Matrix(2, 2, lambda i, j: sp.diff(_M.grad_A[i].subs(w, wb), (e, wb)[j]))
        polys &= all(sp.expand(x).is_polynomial(e, wb) for x in H)
    s = sp.Symbol("s", positive=True)
    for g in _M.grad_A:
        jumps.append(sp.expand(g.subs(w, s) - g.subs(w, -s)).subs(s, 0))
    return [steps.exact(r"On $w > 0$ and on $w < 0$ the derivatives of $\nabla A$ are polynomials in $(e, w)$",
                        polys, method="SymPy: the Jacobian of grad A on each half-plane, polynomial test",
                        domain="(e, w) in R^2, w != 0", values={"polynomial on both half-planes": "yes" if polys else "no"}),
            steps.exact(r"$\nabla A$ is continuous across $w = 0$: its one-sided values agree there",
                        all(j == 0 for j in jumps), method="SymPy: grad A at w = s and w = -s, difference at s = 0",
                        domain="the e-axis", obligations=[steps.Obligation("== 0", j, unit_pq=False) for j in jumps])]


@claim("lemma9.e_axis", ref="Lemma 1 / Lemma 9", title="The e-axis is invariant",
       statement=r"$\partial_w L(e, 0) = G'(A)\,\partial_w A(e, 0) = 0$: a flow started at $w_0 = 0$ keeps $w_t = 0$.",
       printed=lambda: A_PRINTED, mutant=lambda: e**2 * (1 + 2 * w), uses=("eq3.logit",), section="flow",
       domain="theta_0 = (e_0, 0), e_0 in R")
def _e_axis(form, ctx):
    """dA/dw vanishes on w = 0 for the slope `form`, which must be the derived slope (exact); ∂_wL(e, 0) = 0 for
    the gradient the flows integrate; ∇L is locally Lipschitz (exact pieces), so w_t = 0 is the unique solution
    (argued: ODE uniqueness). Corroboration: an integrated flow from (1/2, 0) keeps w exactly 0."""
    same = identity(form, _M.A, ctx, "lemma9.e_axis", branches=S.W_BRANCHES,
                    states="The form is the derived $A$ (on each sign branch of $w$)")
    dLdw = _M.gradient[1].subs(w, 0)
    grad_step = steps.exact(r"$\partial_w L(e, 0) = 0$ for the gradient the flows integrate, $G'(A)\nabla A$",
                            sp.expand(dLdw) == 0, method="SymPy substitution w = 0", domain="the whole e-axis",
                            obligations=[steps.Obligation("== 0", dLdw)])
    res = _flow(*PAIRS_LT1[0], Fraction(1, 2), Fraction(0), ctx.flows)
    corr = steps.sampled("A flow started on the e-axis keeps $w_t = 0$ exactly", res.theta[1] == 0,
                         method=f"flow integrated at {ctx.flows} digits", domain="(p, q) = (1/10, 1/10), start (1/2, 0)",
                         count=1, digits=ctx.flows, values={"w at the end": "exactly 0" if res.theta[1] == 0 else mp.nstr(res.theta[1], 3),
                                                            "t at the end": mp.nstr(res.t, 4)})
    return Outcome.of(_dA_dw_at_0_step(form), *same.steps, grad_step, *_lipschitz_steps(),
                      steps.cited(*PICARD_LINDELOF), steps.argued(*UNIQUENESS), corroboration=[corr],
                      checked_domain="the whole e-axis (exact)")


@claim("lemma9.barrier", ref="Sec. 4", title="The e-axis is an energy barrier",
       statement=r"$\lim_{w\to 0^-}E(e, w) = -\infty$, $\lim_{w\to 0^+}E(e, w) = +\infty$ for every e.",
       printed=lambda: ENERGY_PRINTED, mutant=lambda: e**2 - w**2 - sp.log(sp.Abs(w)), uses=("eq11.energy",),
       section="flow", domain="e in R")
def _barrier(form, ctx):
    s = sp.Symbol("s", positive=True)
    lm = sp.limit(form.subs(w, -s), s, 0, "+")
    lp = sp.limit(form.subs(w, s), s, 0, "+")
    lim = steps.exact(r"$E(e, w) \to -\infty$ as $w \to 0^-$ and $E(e, w) \to +\infty$ as $w \to 0^+$, for every $e$",
                      lm == -sp.oo and lp == sp.oo, method="SymPy limits with e a free real symbol",
                      domain="every e (symbolic)", values={"w -> 0-": _words(lm), "w -> 0+": _words(lp)})
    # the statement is about Eq. 11's E, not any function with these limits
    return Outcome.of(lim, *_energy_form(form, ctx).steps, checked_domain="every e (symbolic)")


# --- Lemma 12 and the saddle level -----------------------------------------------------------

@claim("esad.value", ref="Sec. 4", title="Energy of the saddle",
       statement=r"$E_{sad} = E(0, -1/\sqrt{2}) = -(1 + \log 2)/2$, where $-1/\sqrt2$ is the zero of $f'$ on $w<0$.",
       printed=lambda: E_SAD_PRINTED, mutant=lambda: -(1 - sp.log(2)) / 2, uses=("eq11.energy",), section="flow")
def _esad(form, ctx):
    return identity(senergy.E_sad(), form, ctx, "esad.value",
                    states=r"The form equals $f(w_{sad})$, $f = E(0, \cdot)$ the derived energy on the $w$-axis and "
                           r"$w_{sad}$ the solved zero of $f'$ on $w < 0$")


def _interval_param(a, b, s):
    """w(s) mapping s in (0, oo) onto (a, b), with s -> 0+ at the end a and s -> oo at the end b."""
    if a == -sp.oo:
        return b - 1 / s
    if b == sp.oo:
        return a + s
    return a + (b - a) * s / (1 + s)


@lru_cache(maxsize=None)
def _end_limits(lab, a, b):
    """(f(a+), f(b-)) of f = E(0, .) on (a, b) within the half-line `lab`: the limits of f(w(s)) at s -> 0+ and
    s -> oo. A function of the interval alone (SymPy's limit, 0.1-0.3 s each): a printed form and its negative
    control on the same interval share one computation, and each compares the limits with its own values."""
    s = sp.Symbol("s", positive=True)
    f = senergy.f_w_axis(lab)
    wb = senergy.HALF_PLANES[lab]
    return (sp.limit(f.subs(wb, _interval_param(a, b, s)), s, 0, "+"),
            sp.limit(f.subs(wb, _interval_param(a, b, s)), s, sp.oo))


def _lemma12_check(form, ctx):
    """form = (a, b, sign, f(a+), f(b-)): f = E(0, .) is strictly monotone with f' of that sign on (a, b),
    decided by SymPy on the reparameterisation w = w(s), s > 0 (the whole interval), with those limits."""
    a, b, sgn, fa, fb = form
    lab = "w>0" if a >= 0 else "w<0"
    where = f"({_words(a)}, {_words(b)})"
    tex = rf"$({sp.latex(a)}, {sp.latex(b)})$"
    if not (b <= 0 or a >= 0):
        return Outcome.of(steps.exact(f"The interval {tex} lies in one half-line", False,
                                      method="comparison of its ends with 0", domain=where))
    s = sp.Symbol("s", positive=True)
    f = senergy.f_w_axis(lab)
    wb = senergy.HALF_PLANES[lab]
    df = sp.factor(sp.cancel(sp.diff(f, wb).subs(wb, _interval_param(a, b, s))))
    decided = bool(df.is_positive if sgn > 0 else df.is_negative)
    rel = "> 0" if sgn > 0 else "< 0"
    mono = steps.exact(f"$f' {rel[0]} 0$ on the whole interval {tex} ($w$ written as a function of $s > 0$)", decided,
                       method="SymPy sign of the factored derivative in s > 0", domain=where,
                       values={"f'(w(s))": steps.tex(df)}, obligations=[steps.Obligation(rel, df)])
    lim_a, lim_b = _end_limits(lab, a, b)
    obl, ends = [], True
    for lim, want in ((lim_a, fa), (lim_b, fb)):
        if lim.is_finite:
            ends &= sp.simplify(lim - want) == 0
            obl.append(steps.Obligation.equal(lim, want, unit_pq=False))
        else:
            ends &= lim == want
    ends_step = steps.exact(f"The limits of $f$ at the ends of {tex} are the printed ones", ends,
                            method="SymPy limits of f(w(s)) at s -> 0+ and s -> oo", domain=where,
                            values={"at the left end": f"{_words(lim_a)} (printed {_words(fa)})",
                                    "at the right end": f"{_words(lim_b)} (printed {_words(fb)})"},
                            obligations=obl)
    return Outcome.of(mono, ends_step, checked_domain="the whole open interval (s > 0)")


_WS = -1 / sp.sqrt(2)


@claim("lemma12.i", ref="Lemma 12 (i)", title="f increases on (-inf, -1/sqrt2]",
       statement=r"$f:(-\infty, -1/\sqrt2] \to (-\infty, E_{sad}]$ is increasing, $f(-\infty) = -\infty$, max $E_{sad}$.",
       printed=lambda: (-sp.oo, _WS, 1, -sp.oo, E_SAD_PRINTED),
       mutant=lambda: (-sp.oo, -sp.Rational(1, 2), 1, -sp.oo, -sp.Rational(1, 4) + sp.log(sp.Rational(1, 2))),
       uses=("esad.value",), section="flow", domain="w in (-oo, -1/sqrt 2]")
def _l12i(form, ctx):
    return _lemma12_check(form, ctx)


@claim("lemma12.ii", ref="Lemma 12 (ii)", title="f decreases on [-1/sqrt2, 0)",
       statement=r"$f:[-1/\sqrt2, 0) \to (-\infty, E_{sad}]$ is decreasing, $f(0^-) = -\infty$.",
       printed=lambda: (_WS, sp.S.Zero, -1, E_SAD_PRINTED, -sp.oo),
       mutant=lambda: (_WS, sp.S.Zero, 1, E_SAD_PRINTED, -sp.oo), uses=("esad.value",), section="flow",
       domain="w in [-1/sqrt 2, 0)")
def _l12ii(form, ctx):
    return _lemma12_check(form, ctx)


@claim("lemma12.iv", ref="Lemma 12 (iv)", title="f decreases on (0, inf)",
       statement=r"$f:(0, \infty) \to (-\infty, \infty)$ is decreasing, $f(0^+) = \infty$, $f(\infty) = -\infty$.",
       printed=lambda: (sp.S.Zero, sp.oo, -1, sp.oo, -sp.oo),
       mutant=lambda: (sp.Rational(1, 2), sp.oo, -1, sp.oo, -sp.oo), section="flow", domain="w in (0, oo)")
def _l12iv(form, ctx):
    return _lemma12_check(form, ctx)


@lru_cache(maxsize=None)
def _crossings(M, wM, dps: int) -> tuple[int, int]:
    """(levels, levels without exactly one crossing of f on each side of w_M) for 20 rational levels below M, on a
    1200-point log grid of w in [-e^10, -e^-20] at `dps` digits (M, w_M: the form's maximum and its place)."""
    f = sp.lambdify(w_neg, senergy.f_w_axis("w<0"), "mpmath")
    rng = random.Random(zlib.crc32(b"lemma12.iii"))
    bad = 0
    with working(dps, guard=False):
        Mv, wMv = mp.mpf(sp.N(M, dps + 5)), mp.mpf(sp.N(wM, dps + 5))
        grid = [-mp.exp(mp.mpf(k) / 40) for k in range(-800, 400)]       # w from -e^-20 to -e^10
        # f and the grid cells left and right of w_M are the same for every level: computed once
        f_grid = [f(x) for x in grid]
        left_cells = [i for i in range(len(grid) - 1) if grid[i + 1] < wMv]
        right_cells = [i for i in range(len(grid) - 1) if grid[i] > wMv]
        for _ in range(20):
            rr = rational_in(rng, 0, 2)
            E0 = Mv - mp.mpf(rr.p) / rr.q
            above = [fx > E0 for fx in f_grid]        # f - E0 > 0 (a rounded difference keeps the exact one's sign)
            left = sum(1 for i in left_cells if above[i] != above[i + 1])
            right = sum(1 for i in right_cells if above[i] != above[i + 1])
            bad += (left != 1) + (right != 1)
    return 20, bad


@claim("lemma12.iii", ref="Lemma 12 (iii) [reconstructed]", title="E_sad is the maximum of f on w < 0",
       statement=r"[missing in our copy; what the proof of Thm 2 uses] On $w<0$, $f(w) \le E_{sad}$ with equality "
                 r"only at $w=-1/\sqrt2$; so every level $E_0<E_{sad}$ is taken exactly once on $(-1/\sqrt2, 0)$ "
                 r"and once on $(-\infty,-1/\sqrt2)$, and no level above $E_{sad}$ is taken.",
       printed=lambda: (E_SAD_PRINTED, _WS), mutant=lambda: (E_SAD_PRINTED + sp.Rational(1, 10), _WS),
       uses=("lemma12.i", "lemma12.ii"), section="flow", domain="w < 0")
def _l12iii(form, ctx):
    """form = (M, w_M). Exact: E_sad - f(w) = (t - 1 - log t)/2 with t = 2w^2; phi(t) = t - 1 - log t has
    phi(1) = 0 and phi' = (t-1)/t < 0 on (0, 1), > 0 on (1, oo), so phi > 0 off t = 1: max f = E_sad at -1/sqrt2
    only; (M, w_M) must equal (E_sad, w_sad). Each level below is then taken once on each side by Lemma 12
    (i), (ii) (strictly monotone, continuous, with the limits there). Corroboration: for 20 rational levels
    E0 < M, f - E0 changes sign exactly once on each side of w_M on a 1200-point log grid of w."""
    M, wM = form
    r = senergy.energy_on_w_axis()
    t = senergy.t_pos
    phi = r["t_minus_1_minus_log_t_over_2"]
    s = sp.Symbol("s", positive=True)
    gap = identity(r["E_sad_minus_f_in_t"], phi, ctx, "lemma12.iii/gap",
                   states=r"$E_{sad} - f(w) = \varphi(t) = (t - 1 - \log t)/2$ with $t = 2w^2$, on $w < 0$")
    dphi = sp.factor(sp.diff(phi, t))
    left, right = sp.factor(dphi.subs(t, 1 / (1 + s))), sp.factor(dphi.subs(t, 1 + s))
    shape = steps.exact(r"$\varphi(1) = 0$, $\varphi' < 0$ on $(0, 1)$ and $\varphi' > 0$ on $(1, \infty)$; so "
                        r"$\varphi > 0$ off $t = 1$, and $f < E_{sad}$ on $w < 0$ except at $w = -1/\sqrt2$",
                        phi.subs(t, 1) == 0 and bool(left.is_negative) and bool(right.is_positive),
                        method="SymPy signs of phi' with t = 1/(1+s) and t = 1 + s, s > 0", domain="t > 0 (all w < 0)",
                        values={"phi'(t)": steps.tex(dphi)},
                        obligations=[steps.Obligation.at("== 0", phi, {t: 1}, unit_pq=False),
                                     steps.Obligation("< 0", left, unit_pq=False),
                                     steps.Obligation("> 0", right, unit_pq=False)])
    where = matrix_identity(sp.Matrix([r["E_sad"], r["w_sad"]]), sp.Matrix([M, wM]), ctx, "lemma12.iii/where",
                            states=r"$(M, w_M)$ is the derived $(E_{sad}, w_{sad})$")
    levels, bad = _crossings(M, wM, ctx.dps)
    corr = steps.sampled(r"Every sampled level $E_0 < M$ is crossed by $f$ exactly once on each side of $w_M$",
                         bad == 0, method=f"sign changes of f - E_0 on a 1200-point log grid, {ctx.dps} digits",
                         domain="w in [-e^10, -e^-20]; 20 random rational levels below M", count=levels,
                         digits=ctx.dps, values={"levels without one crossing per side": str(bad)})
    return Outcome.of(*gap.steps, shape, *where.steps, corroboration=[corr], checked_domain="all w < 0 (exact)")


@claim("g.asymptotes", ref="Thm 2 (ii) / Thm 8 (ii)", title="Saddle asymptotes",
       statement=r"$E(e, w) = E_{sad}$, $w<0$ $\iff$ $e = \pm g(w)$, $g(w) = \sqrt{w^2 - \log(-w) + E_{sad}}$.",
       printed=lambda: G_PRINTED, mutant=lambda: sp.sqrt(w**2 + sp.log(-w) + E_SAD_PRINTED),
       uses=("esad.value", "lemma12.iii"), section="flow", domain="w < 0")
def _g(form, ctx):
    return identity(senergy.g_of_w(), form.subs(w, w_neg), ctx, "g.asymptotes",
                    states=r"The form equals the derived $g$: the level set $E = E_{sad}$ solved for $e \geq 0$ on $w < 0$")


# --- The proof of Thms 2 and 8: the facts, the walk, the comparison ------------------------------

def _facts_printed():
    """Our statement of the facts the proof rests on (signs of V = 1 + 2w|w|, of ∂_wA/e^2, of f', of E_sad - f on
    the pieces of the w-line, the limits along a contour, the values of f and of A at the ends of the pieces, the
    sign of A* and the sign rule of G'); the check derives them."""
    return {"V_sign": {"w>0": 1, "(w_sad,0)": 1, "(-inf,w_sad)": -1, "w=0": 1, "w_sad": 0},
            "dA_dw_sign": {"w>0": 1, "(w_sad,0)": 1, "(-inf,w_sad)": 1, "w_sad": 1},
            "f_sign": {"w>0": -1, "(w_sad,0)": -1, "(-inf,w_sad)": 1},
            "E_sad_minus_f_sign": {"(w_sad,0)": 1, "(-inf,w_sad)": 1},
            "E_sad_minus_f_at_w_sad": 0,
            "limits": {"e2(0+)": -sp.oo, "e2(+oo)": sp.oo, "e2(0-)": sp.oo, "e2(-oo)": sp.oo,
                       "A(+oo)": sp.oo, "A(0-)": sp.oo, "A(-oo)": -sp.oo},
            "f_end": {"-oo": -sp.oo, "w_sad": E_SAD_PRINTED, "0-": -sp.oo, "0+": sp.oo, "+oo": -sp.oo},
            "A_end": {"-oo": -sp.oo, "0-": sp.oo, "+oo": sp.oo, "w_sad": 0},
            "A_on_w_axis": 0, "A_e_axis_end": sp.oo, "A_star_sign_times_regime": -1, "G_prime_sign_rule": True}


def _facts_mutant():
    f = _facts_printed()
    f["V_sign"] = dict(f["V_sign"], **{"(w_sad,0)": -1})
    return f


def _same_fact(a, b) -> bool:
    """A stated fact equals the derived one: dicts key by key, numbers exactly (oo only as oo)."""
    if isinstance(a, dict) or isinstance(b, dict):
        return isinstance(a, dict) and isinstance(b, dict) and set(a) == set(b) and all(_same_fact(a[k], b[k]) for k in a)
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    a, b = sp.sympify(a), sp.sympify(b)
    if not (a.is_finite and b.is_finite):
        return a == b
    return sp.simplify(a - b) == 0


def _fact_words(x, signs: bool = False) -> str:
    if isinstance(x, dict):
        return ", ".join(f"{sbasins.PIECE_WORDS.get(k, sbasins.END_WORDS.get(k, k))}: {_fact_words(v, signs)}"
                         for k, v in x.items())
    if signs and x in (1, -1, 0):
        return _sign_word(x)
    if isinstance(x, bool):
        return "yes" if x else "no"
    return _words(sp.sympify(x))


_SIGN_REL = {1: "> 0", -1: "< 0", 0: "== 0"}


def _sign_obligations(exprs: dict, signs: dict, pieces=None) -> list[steps.Obligation]:
    """The sign statements decided: expr (a function of s > 0 on each piece) has the derived sign."""
    return [steps.Obligation(_SIGN_REL[signs[k]], x, unit_pq=False, label=k) for k, x in exprs.items()
            if pieces is None or k in pieces]


@claim("flow.contour_facts", ref="Thm 2 (proof)", title="Signs and limits the limit of every flow rests on",
       statement=r"With $A = e^2 V(w)$, $V = 1 + 2w|w|$: $V > 0$ on $(-1/\sqrt2, \infty)$, $V < 0$ on $(-\infty, -1/\sqrt2)$, "
                 r"$V(-1/\sqrt2) = 0$, $A = 0$ on $e = 0$; $\partial_w A = 4e^2|w| > 0$ off the axes; $f' < 0$ on $(0,\infty)$ and "
                 r"$(-1/\sqrt2, 0)$, $f' > 0$ on $(-\infty, -1/\sqrt2)$, $f < E_{sad}$ on $w < 0$ off $-1/\sqrt2$, "
                 r"$f \to -\infty$ as $w \to -\infty, 0^-, +\infty$ and $f \to +\infty$ as $w \to 0^+$; along $E = E_0$: "
                 r"$e^2 \to -\infty$ as $w \to 0^+$, $e^2 \to +\infty$ as $w \to 0^-, \pm\infty$, and $A \to +\infty$ "
                 r"($w \to +\infty, 0^-$), $A \to -\infty$ ($w \to -\infty$), $A \to 0$ ($w \to -1/\sqrt2$), "
                 r"$A \to +\infty$ on the $e$-axis as $|e| \to \infty$; $A^\star$ has the sign of $1 - p - q$, and $G'(A)$ "
                 r"that of $A - A^\star$.",
       printed=_facts_printed, mutant=_facts_mutant,
       uses=("eq11.energy", "lemma12.iii", "lemma12.i", "lemma12.ii", "lemma12.iv", "structure.G_convex",
             "structure.G_prime"),
       section="flow", domain="w on each open piece of the real line; E_0 in R; (p, q) in (0,1)^2, p + q != 1")
def _facts(form, ctx):
    """Each stated fact against the derived one (`symbolic.basins.contour_facts`: signs decided by SymPy on the
    whole pieces written as functions of s > 0, limits by sp.limit with E0 free), one step per group of facts;
    every sign decided carries its obligation (the expression in s and its sign)."""
    F = sbasins.contour_facts().expressions
    names = steps.exact("The stated facts are the derived ones, by name", set(form) <= set(F) and set(_facts_printed()) <= set(form),
                        method="comparison of names", values={"stated": ", ".join(sorted(form))})
    ew = senergy.energy_on_w_axis()
    w_sad, A_star = ew["w_sad"], slandscape.A_star()
    V0, Vs = F["V"].subs(w, 0), F["V"].subs(w, w_sad)
    groups = [
        (("V_sign",), r"$V = A/e^2 = 1 + 2w|w|$ has the stated sign on each piece of the $w$-line and at $w = 0$, "
                      r"$w = w_{sad}$ (so $A$ has the sign of $V$ off $e = 0$)",
         _sign_obligations(F["V_on"], F["V_sign"]) + [steps.Obligation("> 0", V0, unit_pq=False, label="w=0"),
                                                       steps.Obligation("== 0", Vs, unit_pq=False, label="w_sad")]),
        (("dA_dw_sign",), r"$\partial_w A / e^2 = 4|w|$ has the stated sign on each piece and at $w_{sad}$",
         _sign_obligations(F["dA_dw_on"], F["dA_dw_sign"])
         + [steps.Obligation("> 0", F["dA_dw_over_e2"].subs(w, w_sad), unit_pq=False, label="w_sad")]),
        (("f_sign",), r"$f'$ has the stated sign on each piece ($f = E(0, \cdot)$ strictly monotone there)",
         _sign_obligations(F["df_on"], F["f_sign"])),
        (("E_sad_minus_f_sign", "E_sad_minus_f_at_w_sad"),
         r"$f < E_{sad}$ on both pieces of $w < 0$ and $f(w_{sad}) = E_{sad}$ (Lemma 12 (iii))",
         [steps.Obligation("== 0", ew["E_sad"] - ew["f_w<0"].subs(w_neg, w_sad), unit_pq=False, label="w_sad")]),
        (("limits",), r"Along a contour $E = E_0$ ($E_0$ free), $e^2 = E_0 - f$ and $A = (E_0 - f)V$ have the stated "
                      r"limits at the ends of the pieces", []),
        (("f_end", "A_end", "A_on_w_axis", "A_e_axis_end"),
         r"$f$ and $A$ (on a contour with $e \neq 0$) take the stated values at the ends of the pieces; $A = 0$ on the "
         r"$w$-axis and $A \to +\infty$ on the $e$-axis as $|e| \to \infty$", []),
        (("A_star_sign_times_regime",), r"$A^\star$ has the sign of $1 - p - q$: $e^{A^\star} - 1 = (1 - p - q)/(pq)$",
         [steps.Obligation("== 0", sp.exp(A_star) - 1 - (1 - S.p - S.q) / (S.p * S.q))]),
        (("G_prime_sign_rule",), r"$G'(A)$ has the sign of $A - A^\star$: $G'' > 0$ and $G'(A^\star) = 0$",
         [steps.Obligation("== 0", _M.G_prime.subs(S.A, A_star))]),
    ]
    found = [names]
    for keys, states, obl in groups:
        same = all(k in form and _same_fact(form[k], F[k]) for k in keys)
        decided = all(0 not in (F[k].values() if isinstance(F[k], dict) else ()) for k in keys
                      if k in ("dA_dw_sign", "f_sign", "E_sad_minus_f_sign"))
        vals = [(k, _fact_words(F[k], k.endswith("_sign"))) for k in keys]
        if not same:
            vals += [(f"stated {k}", _fact_words(form.get(k, "(missing)"), k.endswith("_sign"))) for k in keys]
        found.append(steps.exact(states, same and decided,
                                 method="SymPy: signs of the factored expressions in s > 0 (each piece written as a "
                                        "function of s), limits by SymPy's limit with E_0 free",
                                 domain="each open piece of the w-line; every E_0", values=vals, obligations=obl,
                                 uses=("structure.G_convex", "structure.G_prime") if "G_prime_sign_rule" in keys else ()))
    return Outcome.of(*found, checked_domain="each open piece of the w-line, every E_0 (exact)")


def _g_steps(g, ctx) -> list[steps.Step]:
    """|e| < g(w) <=> E(e, w) < E_sad on w < 0 needs g^2 = E_sad - f(w) and g >= 0 (exact)."""
    gn = sp.sympify(g).subs(w, w_neg)
    sq = identity(gn**2, senergy.E_sad() - senergy.f_w_axis("w<0"), ctx, "basins.g_level_set",
                  states=r"$g(w)^2 = E_{sad} - f(w)$ on $w < 0$, so $|e| - g(w)$ has the sign of $E - E_{sad}$ there")
    is_sqrt = isinstance(gn, sp.Pow) and gn.exp == sp.S.Half
    principal = steps.exact(r"$g$ is a principal square root, so $g(w) \geq 0$", is_sqrt,
                            method="SymPy: the form is a power with exponent 1/2", domain="w < 0",
                            values={"g": steps.tex(g)},
                            obligations=[steps.Obligation(">= 0", gn, unit_pq=False)] if is_sqrt else [])
    return [*sq.steps, principal]


def _not_real(g) -> Outcome | None:
    """A rejection if the claimed g(w) is not real on w < 0 (sampled at w = -k/8, k = 1..24), else None."""
    gfun = sp.lambdify(w, g, "mpmath")
    with working(30, guard=False):
        for k in range(1, 25):
            gv = mp.mpmathify(gfun(mp.mpf(-k) / 8))
            if isinstance(gv, mp.mpc) and gv.imag != 0:
                return Outcome.of(steps.sampled(r"The claimed $g$ is real on $w < 0$ (no set $|e| < g(w)$ otherwise)",
                                                False, method="evaluated at w = -k/8, k = 1..24, 30 digits",
                                                domain="w = -k/8, k = 1..24", count=k, digits=30,
                                                values={"first complex value": f"g(-{k}/8) = {mp.nstr(gv, 5)}"}))
    return None


def _walks(reg: int) -> dict:
    """The walk (`sbasins.limit_walk`) of every feasible sign datum of the regime: datum -> Limit, or the
    ValueError of a datum the facts do not decide (kept as its message)."""
    out = {}
    for c in sbasins.sign_cases(reg):
        try:
            out[c] = sbasins.limit_walk(reg, *c)
        except ValueError as ex:
            out[c] = str(ex)
    return out


def _regime_words(reg: int) -> str:
    return "$p + q > 1$" if reg > 0 else "$p + q < 1$"


def _rule_step(regime, sets, g) -> steps.Step:
    """The printed sets give every feasible sign datum the class of its computed limit (exhaustive)."""
    reg = 1 if regime == "p+q>1" else -1
    rows, bad = [], 0
    for c, lim in _walks(reg).items():
        try:
            said = sbasins.set_class(regime, *c, g=g, sets=sets)
        except ValueError as ex:
            said = f"not read ({ex})"
        if isinstance(lim, str):
            got, where = "undecided", lim
        else:
            got, where = lim.limit_class, lim.point
        bad += said != got
        rows.append((sbasins.datum_words(*c), f"sets: {_class_words(said)}; limit: {_class_words(got)} at {where}"
                     + ("" if said == got else " (DIFFERENT)")))
    return steps.exact(
        rf"For {_regime_words(reg)}, the printed sets give each of the {len(rows)} feasible sign data "
        r"($w$ on a piece of the $w$-line, the sign of $e$, that of $E - E_{sad}$ on $w < 0$) the class of the "
        r"limit computed by walking along its contour",
        bad == 0, method="case analysis over the sign data: the sets read through |e| - g ~ E - E_sad; the limit by "
        "symbolic.basins.limit_walk from flow.contour_facts and Thm 1's derived families",
        domain=f"every start of R^2 (the sign data cover it; Lemma 12 (iii) removes the infeasible ones); every (p, q) "
               f"with {regime} (the sets and the walk depend on (p, q) only through sign(p + q - 1))",
        values=rows, uses=("lemma10.convergence", "flow.contour_facts", "thm1.classification", "lemma12.iii"))


def _starts(key, regime):
    """Random rational starts in [-2, 2]^2 plus starts straddling the curves e = +-g(w) (factor 1 +- 1/20)."""
    rng = random.Random(zlib.crc32(key.encode()))
    pts = [(Fraction(str(rational_in(rng, -2, 2))), Fraction(str(rational_in(rng, -2, 2)))) for _ in range(14)]
    pts += [(Fraction(1, 3), Fraction(0)), (Fraction(0), Fraction(-1, 3)), (Fraction(0), Fraction(-1))]
    ws = (Fraction(-3, 5), Fraction(-1, 5)) if regime == "p+q>1" else (Fraction(-1), Fraction(-3, 2))
    gfun = sp.lambdify(w_neg, senergy.g_of_w(), "mpmath")
    with working(40, guard=False):
        for wv in ws:
            gv = gfun(mp.mpf(wv.numerator) / wv.denominator)
            for fac in (Fraction(19, 20), Fraction(21, 20)):
                for sgn in (1, -1):
                    pts.append((sgn * gv * fac.numerator / fac.denominator, wv))
    return pts


def _basin_check(form, ctx, regime, pairs, key):
    """form = (g, the printed sets built with g). Proof: g is the level set (g^2 = E_sad - f, g >= 0), so the sets
    can be read on sign data, and on every feasible sign datum they give the class of the limit computed by the
    walk along the contour (`_rule_step`). Corroboration: the sets vs the analytic predictor (contour ∩ critical
    set) at sampled starts for two chains, and integrated flows stopped by Thm 1's critical sets."""
    g, sets = form
    if (bad := _not_real(g)) is not None:
        return bad
    proof = [*_g_steps(g, ctx), _rule_step(regime, sets, g)]
    mism, n = [], 0
    for p, q in pairs:
        for th in _starts(key, regime):
            n += 1
            _, cls = nbasins.classify_theorem(p, q, th, dps=30, regime=regime, g=g, sets=sets)
            pred = _predicted_class(p, q, th)
            if cls != pred:
                mism.append(f"(p, q) = ({p}, {q}), theta_0 = ({mp.nstr(mp.mpmathify(th[0]), 6)}, {th[1]}): sets "
                            f"{_class_words(cls)}, predicted {_class_words(pred)}")
    pred_step = steps.sampled("At sampled starts the printed sets give the class of the analytic predictor (the contour "
                              "through the start met with the critical sets, no basin set used)", not mism,
                              method="numeric.dynamics.basins.predict vs the sets, 30 digits",
                              domain=f"{len(_starts(key, regime))} starts in [-2, 2]^2 and beside e = +-g(w), "
                                     f"(p, q) = {', '.join(f'({a}, {b})' for a, b in pairs)}",
                              count=n, digits=30, values={"disagreements": str(len(mism))}
                              | ({"first": mism[0]} if mism else {}))
    flows = []
    p, q = pairs[0]
    for th in ((Fraction(1, 2), Fraction(-1, 2)), (Fraction(1, 10), Fraction(-1, 2) if regime == "p+q>1" else Fraction(-1))):
        _, cls = nbasins.classify_theorem(p, q, th, dps=30, regime=regime, g=g, sets=sets)
        flows.append((th, cls, _ended_class(p, q, _flow(p, q, *th, ctx.flows), ctx.flows)))
    flow_step = steps.sampled("Integrated flows end in the class their start's set gives", all(c == d for _, c, d in flows),
                              method=f"flows integrated at {ctx.flows} digits without projection, stopped near Thm 1's "
                                     "critical sets", domain=f"(p, q) = ({p}, {q}), two starts", count=len(flows),
                              digits=ctx.flows,
                              values=[(f"({a}, {b})", f"set {_class_words(c)}, flow {_class_words(d)}") for (a, b), c, d in flows])
    return Outcome.of(*proof, corroboration=[pred_step, flow_step],
                      checked_domain="every start in R^2, every (p, q) of the regime (the sets and the walk depend on "
                                     "(p, q) only through sign(p+q-1))")


def _printed_basins(regime, g=G_PRINTED):
    return (g, sbasins.basins(regime, g))


def _moved(regime, basin: str, drop=None, add=None, g=G_PRINTED):
    """The printed sets with a region moved: the piece `drop` taken out of `basin` (it falls to a later basin, I*
    in the end) or the piece `add` put into it."""
    out = []
    for b in sbasins.basins(regime, g):
        if b.name == basin:
            pieces = tuple(pc for pc in b.pieces if pc != drop) + ((add,) if add is not None else ())
            b = sbasins.Basin(b.name, b.limit_class, pieces)
        out.append(b)
    return (g, tuple(out))


#: the altered statements: Thm 2 with {w > 0} moved from I_min to I*, Thm 8 with the e-axis moved from I* to I_min
_W_POSITIVE, _W_ZERO = sbasins.Piece(((w, ">"),)), sbasins.Piece(((w, "=="),))
_G_MUTANT = sp.sqrt(w**2 - sp.log(-w) + E_SAD_PRINTED + sp.Rational(1, 5))
_BASIN_USES = ("g.asymptotes", "lemma12.iii", "lemma9.conservation", "lemma9.e_axis", "thm1.critical_points",
               "thm1.classification", "structure.G_prime", "structure.G_convex", "flow.contour_facts",
               "lemma10.convergence")


@claim("thm2.basins", ref="Thm 2", title="Basins of the flow for p+q > 1",
       statement=r"$p+q>1$: $\theta_{lim}$ is a local min on $I_{min} = \{w>0\}\cup\{w=0\}\cup\{-1/\sqrt2<w<0, |e|<g(w)\}$, "
                 r"a saddle on $I_{sad} = \{-1/\sqrt2\le w<0, |e| = g(w)\}$, a local max on $\Theta_{max}$, "
                 r"a global min otherwise.",
       printed=lambda: _printed_basins("p+q>1"), mutant=lambda: _moved("p+q>1", "I_min", drop=_W_POSITIVE),
       uses=_BASIN_USES, section="flow", domain="every (p, q) in (0,1)^2 with p+q > 1; every theta_0 in R^2")
def _thm2(form, ctx):
    return _basin_check(form, ctx, "p+q>1", PAIRS_GT1, "thm2.basins")


@claim("thm8.basins", ref="Thm 8", title="Basins of the flow for p+q < 1",
       statement=r"$p+q<1$: local min on $I_{min} = \{w<-1/\sqrt2, |e|<g(w)\}$, saddle on "
                 r"$I_{sad} = \{w\le-1/\sqrt2, |e| = g(w)\}$, local max on $\Theta_{max}$ (origin included), "
                 r"global min otherwise (the e-axis without the origin included).",
       printed=lambda: _printed_basins("p+q<1"), mutant=lambda: _moved("p+q<1", "I_min", add=_W_ZERO),
       uses=_BASIN_USES, section="flow", domain="every (p, q) in (0,1)^2 with p+q < 1; every theta_0 in R^2")
def _thm8(form, ctx):
    return _basin_check(form, ctx, "p+q<1", PAIRS_LT1, "thm8.basins")


def _icommon_printed(g=G_PRINTED):
    return (g, sbasins.I_common(g))


def _icommon_mutant():
    """I_common with the curves |e| = g(w) (which lead to the saddle for p + q > 1, Thm 2) moved into it."""
    piece = sbasins.I_common(G_PRINTED)
    return (G_PRINTED, sbasins.Piece((piece.conditions[0], (piece.conditions[1][0], ">="))))


@claim("icommon", ref="Sec. 4 (I_common)", title="A data-agnostic basin of the global minima",
       statement=r"$I_{common} = \{w<0, |e|>g(w)\}$ leads to a global minimum for every $(p, q)$.",
       printed=_icommon_printed, mutant=_icommon_mutant, uses=("thm2.basins", "thm8.basins", "lemma10.convergence"),
       section="flow", domain="every (p, q) in (0,1)^2 with p+q != 1; theta_0 in R^2")
def _icommon(form, ctx):
    """form = (g, the set I_common as a piece). Proof: with |e| - g ~ E - E_sad (g^2 = E_sad - f, g >= 0) the set is
    read on sign data; on every datum in it the computed limit is global for both regimes (sufficiency), and every
    datum outside it has a non-global limit for at least one regime (the set is the largest such set).
    Corroboration: members at sampled w with the analytic predictor, four chains."""
    g, piece = form
    if (bad_g := _not_real(g)) is not None:
        return bad_g
    walks = {reg: _walks(reg) for reg in (1, -1)}
    rows, inside_bad, outside_global = [], 0, 0
    for c in sbasins.sign_cases(1):
        try:
            member = sbasins.piece_holds(piece, *c, g=g)
        except ValueError:
            member = None
        classes = [walks[reg][c].limit_class if not isinstance(walks[reg][c], str) else "undecided" for reg in (1, -1)]
        all_global = all(x == "global_min" for x in classes)
        inside_bad += bool(member) and not all_global
        outside_global += (member is False) and all_global
        rows.append((sbasins.datum_words(*c), f"{'in' if member else ('not in' if member is False else 'not read in')} "
                     f"the set; limit {_class_words(classes[0])} for p + q > 1, {_class_words(classes[1])} for p + q < 1"))
    rule = steps.exact(r"On every feasible sign datum in the set the computed limit is a global minimum for both "
                       r"$p + q > 1$ and $p + q < 1$, and every datum outside it has a non-global limit for one of them "
                       r"(the set is the largest with that property)", inside_bad == 0 and outside_global == 0,
                       method="case analysis over the sign data: the set read through |e| - g ~ E - E_sad; the limits "
                              "by symbolic.basins.limit_walk (the limits of thm2.basins and thm8.basins)",
                       domain="every start of R^2, both regimes (all (p, q) with p + q != 1)",
                       values=[("in the set, not global for some regime", str(inside_bad)),
                               ("outside, global for both", str(outside_global)), *rows],
                       uses=("lemma10.convergence", "flow.contour_facts"))
    gfun = sp.lambdify(w_neg, senergy.g_of_w(), "mpmath")
    bad, n = [], 0
    with working(40, guard=False):
        for k in (1, 3, 5, 6, 8, 12):
            wv = Fraction(-k, 8)
            gv = gfun(mp.mpf(wv.numerator) / wv.denominator)
            for r in (Fraction(3, 5), Fraction(21, 20), Fraction(2)):
                th = (gv * r.numerator / r.denominator + (mp.mpf(1) / 100 if gv == 0 else 0), wv)
                if not nbasins.in_I_common(th, dps=30, g=g, piece=piece):
                    continue
                for p, q in PAIRS_GT1 + PAIRS_LT1:
                    n += 1
                    cls = _predicted_class(p, q, th)
                    if cls != "global_min":
                        bad.append(f"({mp.nstr(th[0], 5)}, {wv}) at (p, q) = ({p}, {q}) -> {_class_words(cls)}")
    corr = steps.sampled("At sampled starts of the set the analytic predictor gives a global minimum for four chains",
                         not bad, method="numeric.dynamics.basins.predict, 30 digits",
                         domain="w = -k/8 (k = 1, 3, 5, 6, 8, 12), |e| = (3/5, 21/20, 2) g(w), four chains", count=n,
                         digits=30, values={"not global": str(len(bad))} | ({"first": bad[0]} if bad else {}))
    return Outcome.of(*_g_steps(g, ctx), rule, corroboration=[corr],
                      checked_domain="every start of R^2, both regimes (all (p, q) with p+q != 1)")


def _pair_printed():
    E0 = sp.Symbol("E_0")
    A_star = sp.log((1 - S.p) * (1 - S.q) / (S.p * S.q))
    return sp.Matrix([e**2 - w**2 + sp.log(-w) - E0, e**2 * (1 - 2 * w**2) - A_star])


def _pair_mutant():
    E0 = sp.Symbol("E_0")
    A_star = sp.log((1 - S.p) * (1 - S.q) / (S.p * S.q))
    return sp.Matrix([e**2 - w**2 + sp.log(-w) - E0, e**2 * (1 + 2 * w**2) - A_star])


@claim("thm2.limit_pair", ref="Thm 2 (proof)", title="The limit of a start in I*",
       statement=r"For $\theta_0\in I_\star$, $w_0<0$: $\theta_{lim}$ solves $e^2 - w^2 + \log(-w) = E_0$, "
                 r"$e^2(1-2w^2) = \log\frac{(1-p)(1-q)}{pq}$.",
       printed=_pair_printed, mutant=_pair_mutant, uses=("thm2.basins", "lemma11.energy", "thm1.critical_points"),
       section="flow", domain="theta_0 in I*, w_0 < 0; (p, q) in (0,1)^2")
def _limit_pair(form, ctx):
    """Proof: θ_lim is on the contour E = E_0 (Lemma 11) and on Θ* = {A = A*} (a global limit, Thm 2/8, Thm 1):
    the printed pair must be (E - E_0, A - A*) on w < 0 exactly. Corroboration: three flows from I* starts,
    integrated without projection and stopped only by |∇L| (no knowledge of Θ* in the stopping rule)."""
    E0s = sp.Symbol("E_0")
    derived = sp.Matrix([senergy.energy("w<0") - E0s, _M.A.subs(w, w_neg) - _M.critical_sets()[0].equations[0].rhs])
    says = (r"The first equation is $E(e, w) - E_0 = 0$ on $w < 0$ (Lemma 11: the limit is on the start's contour)",
            r"The second equation is $A - A^\star = 0$ on $w < 0$ (the limit is a point of $\Theta^\star$, Thm 1)")
    ex = [identity(derived[i], sp.sympify(form[i]).subs(w, w_neg), ctx, f"limit_pair/{i}", states=says[i]) for i in range(2)]
    fn = sp.lambdify((e, w, S.p, S.q, E0s), form, "mpmath")
    worst, cases = mp.mpf(0), []
    for (p, q), th in ((PAIRS_GT1[0], (Fraction(1, 2), Fraction(-1, 2))), (PAIRS_GT1[0], (Fraction(1), Fraction(-1))),
                       (PAIRS_LT1[0], (Fraction(1, 2), Fraction(-1, 2)))):
        res = _flow(p, q, *th, ctx.flows + 10, stop="gradient")     # 10 more digits: |∇L| < 10^-(flows/2 + 3)
        with working(ctx.flows, extra=10):
            E0v = ReducedFlow(p, q).energy([mp.mpf(x.numerator) / x.denominator for x in th])
            r = fn(res.theta[0], res.theta[1], mp.mpf(p.numerator) / p.denominator, mp.mpf(q.numerator) / q.denominator, E0v)
            worst = max(worst, max(abs(x) for x in r))
            cases.append(res.status)
    tol = mp.mpf(10) ** (-(ctx.flows // 2))
    corr = steps.sampled("The pair vanishes at the ends of integrated flows from starts in $I_\\star$",
                         worst < tol and all(s.startswith("converged") for s in cases),
                         method=f"flows at {ctx.flows + 10} digits without projection, stopped only by |grad L|",
                         domain="(p, q) = (9/10, 9/10) from (1/2, -1/2), (1, -1); (1/10, 1/10) from (1/2, -1/2)",
                         count=len(cases), digits=ctx.flows + 10,
                         values={"max residual": mp.nstr(worst, 3), "tolerance": mp.nstr(tol, 2),
                                 "ends": ", ".join(sorted(set(cases)))})
    return Outcome.of(*[s for o in ex for s in o.steps], corroboration=[corr], checked_domain="w < 0 (exact)")


# --- Lemmas 10 and 11 --------------------------------------------------------------------------

#: starts of the corroborating flows of Lemmas 10, 11 (both half-planes)
_L10_STARTS = ((Fraction(3, 10), Fraction(1, 2)), (Fraction(-1), Fraction(1, 10)), (Fraction(1, 2), Fraction(-1, 2)),
               (Fraction(1, 10), Fraction(-1)))
L_E, L_W = sp.symbols("L_e L_w", real=True)      # the components of grad L at the current point
LYAPUNOV_PRINTED = (-(L_E**2 + L_W**2), sp.S.Zero)


def _lyapunov_step(rate, ctx) -> list[steps.Step]:
    r"""d/dt L(θ_t) along θ' = -G'(A)∇A (the field the flows integrate), ∇L the derivative of the loss
    L(θ, b*(θ)) itself (not G'(A)∇A): ∇L·θ' against the printed rate at ∇L, exactly on every branch of w."""
    gd, field = _M.gradient_direct(), _M.gradient
    lhs = -(gd[0] * field[0] + gd[1] * field[1])
    rhs = sp.sympify(rate).subs({L_E: gd[0], L_W: gd[1]}, simultaneous=True)
    return identity(lhs, rhs, ctx, "lemma10.lyapunov", W_BRANCHES_0,
                    states=r"Along $\dot\theta = -G'(A)\nabla A$, the field the flows integrate, "
                           r"$\frac{d}{dt}L(\theta_t) = \nabla L\cdot\dot\theta$, with $\nabla L$ the derivative of the "
                           r"loss $L(\theta, b^\star(\theta))$, equals the printed rate at $\nabla L$").steps


def _motion_steps(ctx) -> list[steps.Step]:
    """The two rates the walk reads its direction from, on the field the flows integrate: dA/dt = ∇A·θ' =
    -G'(A)|∇A|^2 and dw/dt = -G'(A) ∂_wA (exact; G' has the sign of A - A*, flow.contour_facts)."""
    gA, field, Gp = _M.grad_A, _M.gradient, _M.G_prime.subs(S.A, _M.A)
    rates = sp.Matrix([-(gA[0] * field[0] + gA[1] * field[1]), -field[1]])
    return matrix_identity(rates, sp.Matrix([-Gp * (gA[0] ** 2 + gA[1] ** 2), -Gp * gA[1]]), ctx, "lemma10.rates",
                           W_BRANCHES_0,
                           states=r"Along $\dot\theta = -G'(A)\nabla A$: $\dot A = -G'(A)|\nabla A|^2$ and "
                                  r"$\dot w = -G'(A)\,\partial_w A$, so $A$ moves towards $A^\star$ and $w$ with the sign "
                                  r"of $-(A - A^\star)\,\partial_w A$ (the sign rule of $G'$)").steps


def _walk_rows(walks: dict, reg: int) -> list[tuple[str, str]]:
    return [(f"{'p + q > 1' if reg > 0 else 'p + q < 1'}; {sbasins.datum_words(*c)}",
             lim if isinstance(lim, str) else f"{'; '.join(lim.events)} -> {_class_words(lim.limit_class)}")
            for c, lim in walks.items()]


def _convergence_step(walks: dict) -> steps.Step:
    """Every sign datum's walk ends at a finite critical point: the flow is bounded and converges."""
    rows, bad = [], 0
    for reg in (1, -1):
        rows += _walk_rows(walks[reg], reg)
        bad += sum(isinstance(x, str) or not x.finite or x.limit_class not in sbasins.CLASSES for x in walks[reg].values())
    return steps.exact(
        r"For every feasible sign datum of both regimes, the one-dimensional field along the contour (or along the "
        r"$e$-axis) has a first zero in the direction of motion, at finite distance, and it is a critical point of "
        r"Thm 1: every flow is bounded and converges to it", bad == 0,
        method="symbolic.basins.limit_walk on the derived facts: the sign of the field -(A - A*) dA/dw, the end of "
               "each piece ahead, the value of A there, the class from Thm 1's derived families",
        domain="every start of R^2 (the sign data cover it); every (p, q) with p + q != 1",
        values=[("data without a finite critical limit", str(bad)), *rows],
        uses=("flow.contour_facts", "thm1.classification", "lemma9.conservation", "lemma9.e_axis"))


def _lyapunov_consistency_step(walks: dict) -> steps.Step:
    r"""The limits agree with the decrease of the loss: L = G(A), G strictly convex with its minimum at A*
    (structure), so L < G(0) = L(w-axis) wherever A lies strictly between 0 and A*; a datum whose starts include
    such values (A0 of the sign of A*: |A0| takes every small value, e0 -> 0 or w0 -> w_sad on E = E_sad, where
    A -> 0, facts) must end on Θ*, the only critical set with L < G(0); a start on e = 0 is its own limit."""
    F = sbasins.contour_facts().expressions
    rows, bad = [], 0
    for reg in (1, -1):
        sA = F["A_star_sign_times_regime"] * reg
        for c, lim in walks[reg].items():
            w_side, e_sign, _ = c
            got = lim if isinstance(lim, str) else lim.limit_class
            if e_sign == 0:
                want, why = sbasins.axis_family_class(reg, w_side), "a critical point is its own limit"
            elif F["V_sign"].get(w_side) == sA:
                want, why = "global_min", "its starts include A strictly between 0 and A*, where L < G(0)"
            else:
                continue
            bad += got != want
            rows.append((f"{'p + q > 1' if reg > 0 else 'p + q < 1'}; {sbasins.datum_words(*c)}",
                         f"{why}: must be a {_class_words(want)}; the walk gives a {_class_words(got)}"))
    return steps.exact(
        r"The limits agree with the decrease of the loss: $L = G(A)$ with $G$ strictly convex and minimal at "
        r"$A^\star$, so a datum whose starts include values of $A$ strictly between $0$ and $A^\star$ (where "
        r"$L < G(0)$, the loss on the $w$-axis) has its limit on $\Theta^\star$, and a start on $e = 0$ is its own "
        r"limit, of its derived class", bad == 0,
        method="comparison, per sign datum, of the computed limit with what the Lyapunov decrease and Thm 1's derived "
               "classes allow", domain="every feasible sign datum of both regimes",
        values=[("data against the loss", str(bad)), *rows],
        uses=("structure.G_convex", "structure.G_prime", "thm1.classification"))


def _critical_limit_steps(form1) -> list[steps.Step]:
    """|∇L(θ_lim)| = form1: the limits the walks reach are critical (∇L = 0 on e = 0 and on Θ*), exactly."""
    on_axis = [sp.expand(_M.gradient[i].subs(e, 0)) for i in range(2)]
    st = slandscape.structure()
    zero = steps.exact(r"$\nabla L = G'(A)\nabla A$ vanishes at every limit: on $e = 0$ ($\nabla A = 0$) and on "
                       r"$\Theta^\star$ ($G'(A^\star) = 0$)", all(x == 0 for x in on_axis) and st["G_prime_at_A_star"] == 0,
                       method="SymPy substitution e = 0; G'(A*) from structure", domain="the critical families of Thm 1",
                       obligations=[steps.Obligation.at("== 0", _M.gradient[i], {e: 0}, label=f"e = 0, entry {i}")
                                    for i in range(2)], uses=("structure.G_prime",))
    form = steps.exact(r"The printed $|\nabla L(\theta_{lim})|$ is that value, 0", sp.sympify(form1) == 0,
                       method="exact comparison", domain="every start",
                       values={"printed": steps.tex(form1)}, obligations=[steps.Obligation("== 0", sp.sympify(form1), unit_pq=False)])
    return [zero, form]


def _argued_steps() -> list[steps.Step]:
    return [steps.argued(*sbasins.ARGUED[k], uses=("lemma9.conservation", "lemma9.e_axis", "structure.G_prime"))
            for k in ("one_dimensional", "a_towards_A_star")]


def _datum_of(p, q, th) -> tuple:
    """The sign datum of an exact start (E - E_sad decided at 60 digits: the starts are far from E_sad)."""
    e0, w0 = th
    w_sad = senergy.energy_on_w_axis()["w_sad"]
    if w0 > 0:
        side = "w>0"
    elif w0 == 0:
        side = "w=0"
    else:
        side = "(w_sad,0)" if sp.Rational(w0.numerator, w0.denominator) > w_sad else "(-inf,w_sad)"
    es = (e0 > 0) - (e0 < 0)
    if w0 >= 0:
        return side, es, None
    E = sp.Rational(e0.numerator, e0.denominator) ** 2 + senergy.f_w_axis("w<0").subs(w_neg, sp.Rational(w0.numerator, w0.denominator))
    d = sp.N(E - senergy.E_sad(), 60)
    return side, es, int(bool(d > 0)) - int(bool(d < 0))


def _lemma10_flows(rate, ctx) -> list[steps.Step]:
    """Corroboration: flows from starts on both half-planes end at the critical point the walk of their sign datum
    names (stopped by Thm 1's critical sets only), and dL/dt measured by differentiating the loss along the path
    matches the printed rate."""
    rate_fn = sp.lambdify((L_E, L_W), rate, "mpmath")
    rows, worst_rate, agree, n = [], mp.mpf(0), True, 0
    for p, q in (PAIRS_GT1[0], PAIRS_LT1[0]):
        reg = 1 if p + q > 1 else -1
        fl = ReducedFlow(p, q)
        cb = fl.callbacks_at(ctx.flows, MPFR)
        for th in _L10_STARTS:
            res = integrate(cb["grad"], th, dps=ctx.flows, critical_distance=cb["critical_distance"], norm_max=100,
                            max_steps=400, record=True, arithmetic=MPFR)
            with working(ctx.flows):
                for _, y in res.path[:: max(1, len(res.path) // 4)][:4]:
                    g = fl.grad(y)
                    measured = mp.diff(lambda s: fl.loss([a - s * b for a, b in zip(y, g)]), 0)
                    worst_rate = max(worst_rate, abs(measured - rate_fn(*g)) / max(abs(measured), mp.mpf(10) ** -30))
            ended = _ended_class(p, q, res, ctx.flows)
            try:
                walked = sbasins.limit_walk(reg, *_datum_of(p, q, th)).limit_class
            except ValueError:
                walked = "undecided"
            agree &= res.status.startswith("converged") and ended == walked
            n += 1
            rows.append((f"(p, q) = ({p}, {q}), theta_0 = ({th[0]}, {th[1]})",
                         f"flow ends at a {_class_words(ended)}, the walk says {_class_words(walked)}; "
                         f"sup |theta_t| = {mp.nstr(res.max_norm, 4)}"))
    tol = mp.mpf(10) ** (-(ctx.flows - 15))
    return [steps.sampled("Integrated flows converge to a critical point of the class the walk of their sign datum gives",
                          agree, method=f"flows at {ctx.flows} digits without projection, stopped near Thm 1's critical "
                                        "sets", domain="(p, q) = (9/10, 9/10), (1/10, 1/10); four starts on both half-planes",
                          count=n, digits=ctx.flows, values=rows),
            steps.sampled("Along the flows, $dL/dt$ measured by differentiating the loss alone matches the printed rate",
                          worst_rate < tol, method=f"mpmath derivative of L along -grad L at {ctx.flows + 10} digits",
                          domain="four points of each flow", count=4 * n, digits=ctx.flows,
                          values={"max relative difference": mp.nstr(worst_rate, 3), "tolerance": mp.nstr(tol, 2)})]


@claim("lemma10.convergence", ref="Lemma 10", title="Gradient flow is bounded and converges",
       statement=r"Along $\dot\theta = -\nabla L(\theta)$, $\frac{d}{dt}L(\theta_t) = -|\nabla L(\theta_t)|^2$ ($L$ is a "
                 r"Lyapunov function, the engine of the proof); for every $\theta_0$, $(\theta_t)$ is bounded, "
                 r"$\theta_t \to \theta_{lim}$ and $|\nabla L(\theta_{lim})| = 0$.",
       printed=lambda: LYAPUNOV_PRINTED, mutant=lambda: (L_E**2 + L_W**2, sp.S.Zero),
       uses=("thm1.critical_points", "thm1.classification", "flow.contour_facts", "lemma9.conservation",
             "lemma9.e_axis", "lemma9.barrier", "structure.G_convex", "structure.G_prime"),
       section="flow", domain="every theta_0 in R^2; (p, q) in (0,1)^2, p+q != 1")
def _lemma10(form, ctx):
    """form = (dL/dt along the flow as a function of ∇L = (L_e, L_w), |∇L(θ_lim)|). Proof: (1) the Lyapunov
    identity on the loss, exact (`_lyapunov_step`); (2) for every sign datum the walk along the contour reaches a
    finite critical point (`sbasins.limit_walk`: bounded, convergent), resting on the argued steps
    `sbasins.ARGUED` (the one-dimensional flow converges to the first zero of its field; A moves monotonically
    towards A*), which are printed in full; (3) the limits agree with the decrease of the loss; (4) ∇L = 0 at the
    limits and the printed |∇L(θ_lim)| is 0. Corroboration: flows at ctx.flows digits end where the walk of
    their datum says, and dL/dt measured along them."""
    walks = {reg: _walks(reg) for reg in (1, -1)}
    return Outcome.of(*_lyapunov_step(form[0], ctx), *_motion_steps(ctx), _convergence_step(walks),
                      _lyapunov_consistency_step(walks),
                      *_critical_limit_steps(form[1]), *_argued_steps(),
                      corroboration=_lemma10_flows(form[0], ctx),
                      checked_domain="every start in R^2 (exact identity, exhaustive sign data)")


@claim("lemma11.energy", ref="Lemma 11", title="Energy at the limit point",
       statement=r"$\theta_0 \notin$ e-axis $\Rightarrow E(\theta_{lim}) = E(\theta_0)$: $\theta_{lim}$ is on the contour "
                 r"through $\theta_0$ and on the critical set.",
       printed=lambda: sp.S.Zero, mutant=lambda: sp.Rational(1, 10),
       uses=("lemma9.conservation", "lemma10.convergence", "lemma9.barrier"), section="flow",
       domain="theta_0 in R^2 with w_0 != 0")
def _lemma11(form, ctx):
    """form = the claimed E(θ_lim) - E(θ_0) (0 printed). Proof: for every sign datum with w_0 != 0 the walk ends at
    a finite point of the contour E = E_0 with w != 0 (a point of Θ* on the branch, an end (0, w_1) with
    f(w_1) = E_0, or the saddle when E_0 = E_sad), where E is continuous: E(θ_lim) = lim E(θ_t) = E_0; the form
    must be that difference, 0. Corroboration: flows without projection, |E(θ_lim) - E(θ_0) - form|."""
    rows, bad = [], 0
    for reg in (1, -1):
        for c, lim in _walks(reg).items():
            if c[0] == "w=0" or c[1] == 0:
                continue
            ok = not isinstance(lim, str) and lim.finite and lim.point != "(0, 0)"
            bad += not ok
            rows.append((f"{'p + q > 1' if reg > 0 else 'p + q < 1'}; {sbasins.datum_words(*c)}",
                         f"ends at {lim.point if not isinstance(lim, str) else 'an undecided point'} on the contour"))
    on_contour = steps.exact(r"For every sign datum with $w_0 \neq 0$, $e_0 \neq 0$ the flow ends at a finite point of its "
                             r"contour $E = E_0$ with $w \neq 0$, where $E$ is continuous: $E(\theta_{lim}) - E(\theta_0) = 0$",
                             bad == 0, method="symbolic.basins.limit_walk (the limits of lemma10.convergence); a start "
                             "on e = 0 is its own limit", domain="every start with w_0 != 0, both regimes",
                             values=[("data ending off the contour", str(bad)), *rows],
                             uses=("lemma10.convergence", "lemma9.conservation", "lemma9.barrier"))
    same = steps.exact(r"The printed $E(\theta_{lim}) - E(\theta_0)$ is that difference, 0", sp.sympify(form) == 0,
                       method="exact comparison", domain="every start with w_0 != 0", values={"printed": steps.tex(form)},
                       obligations=[steps.Obligation("== 0", sp.sympify(form), unit_pq=False)])
    worst = mp.mpf(0)
    for th in _L10_STARTS[:2]:
        res = _flow(*PAIRS_GT1[0], *th, ctx.flows)
        with working(ctx.flows):
            worst = max(worst, abs(res.energy_end - res.energy0 - mp.mpf(sp.N(form, ctx.flows + 10))))
    tol = mp.mpf(10) ** (-(ctx.flows // 2))
    corr = steps.sampled(r"At the ends of integrated flows $E(\theta_{lim}) - E(\theta_0)$ equals the printed difference",
                         worst < tol, method=f"flows at {ctx.flows} digits without projection",
                         domain="(p, q) = (9/10, 9/10), starts (3/10, 1/2), (-1, 1/10)", count=2, digits=ctx.flows,
                         values={"max |E(lim) - E(0) - printed|": mp.nstr(worst, 3), "tolerance": mp.nstr(tol, 2)})
    return Outcome.of(on_contour, same, corroboration=[corr], checked_domain="every start with w_0 != 0")


_FIG1_E = (Fraction(-1), Fraction(1, 5), Fraction(2))
_FIG1_W = (Fraction(-9, 4), Fraction(-1, 2), Fraction(1, 2), Fraction(2))


@claim("fig1.basins", ref="Fig. 1 (b), (d)", title="The basin panels of Fig. 1 are where the flows go",
       statement=r"In the window $[-2.5, 2.5]^2$ of Fig. 1 (b) ($p = q = 0.9$) and (d) ($p = q = 0.1$), the gradient "
                 r"flow from a start painted $I_{min}$ ends at a local minimum, from a start painted $I_\star$ at a "
                 r"global minimum.",
       printed=lambda: {"I_min": "local_min", "I_star": "global_min"},
       mutant=lambda: {"I_min": "global_min", "I_star": "local_min"},
       uses=("thm2.basins", "thm8.basins"), section="flow", domain="the window [-2.5, 2.5]^2 of the figure")
def _fig1(form, ctx):
    """form: painted region -> class of the limit. Starts on a 3 x 4 grid of the figure's window for each
    panel's chain: the colour is read from the figure's own float64 map (`basin_grid`, what the PNG shows),
    the class from a flow integrated at ctx.flows digits (the Thm 1 class of its end)."""
    import numpy as np

    from local2global.proofs.outputs.figures import fig_flow
    seen, bad = {}, []
    for p_, q_ in ((Fraction(9, 10), Fraction(9, 10)), (Fraction(1, 10), Fraction(1, 10))):
        for w0 in _FIG1_W:
            for e0 in _FIG1_E:
                pix = fig_flow.basin_grid(float(p_), float(q_), np.array([[float(w0)]]), np.array([[float(e0)]]))
                label = "I_min" if pix[0, 0] == 1 else "I_star"
                cls = _ended_class(p_, q_, _flow(p_, q_, e0, w0, ctx.flows), ctx.flows)
                seen[label] = seen.get(label, 0) + 1
                if cls != form[label]:
                    bad.append(f"p = q = {p_}, (e, w) = ({e0}, {w0}): painted {label} (claimed "
                               f"{_class_words(form[label])}), the flow ends at a {_class_words(cls)}")
    return Outcome.of(steps.sampled(
        "Every start of the grid flows to the class its colour in the figure claims, and both colours occur",
        not bad and len(seen) == 2, method=f"the figure's own float64 basin map vs flows integrated at {ctx.flows} digits",
        domain="a 3 x 4 grid of starts in the window, per panel (p = q = 9/10 and p = q = 1/10)",
        count=sum(seen.values()), digits=ctx.flows,
        values=[(f"painted {k}", f"{v} starts") for k, v in sorted(seen.items())] + [("disagreements", str(len(bad)))]
        + ([("first", bad[0])] if bad else []), software=("mpmath", "numpy")))


# --- Gaussian initialization -----------------------------------------------------------------

@lru_cache(maxsize=None)
def _gaussian_discs() -> tuple:
    """Per regime, the disc of `_gaussian` and what is derived about it: (regime, radius r, r <= -w_sad with its
    obligation expression, the step bounding E - E_sad on w < 0 for p+q > 1 (None otherwise) as (H'(t)'s positive
    zeros, H(r), ok), the sign data of the disc off the null lines, the classes the stated sets give them, the
    bound 1 - exp(-r^2/(2 sigma^2)), the disc's Gaussian mass minus it, and the bound's limit as sigma -> 0). None
    of it involves the form under test (the claimed classes): derived once per process."""
    ax = senergy.energy_on_w_axis()
    w_sad, E_sad, f_neg = ax["w_sad"], ax["E_sad"], ax["f_w<0"]
    t, rho, sig = sp.Symbol("t", positive=True), sp.Symbol("rho", positive=True), sp.Symbol("sigma", positive=True)
    out = []
    for regime, r in (("p+q>1", sp.exp(E_sad)), ("p+q<1", -w_sad)):
        margin = sp.simplify(-w_sad - r)                 # r <= -w_sad: the disc's w stays in (w_sad, +oo)
        e_sides, bound = (-1, 0, 1), None
        if regime == "p+q>1":
            H = r ** 2 - t ** 2 + f_neg.subs({v: -t for v in f_neg.free_symbols}) - E_sad
            dH = sp.diff(H, t)
            zeros = [z for z in sp.solve(dH, t) if z.is_positive]
            mono = all(bool(sp.simplify(z - r) >= 0) for z in zeros) and bool(dH.subs(t, r / 2) > 0)
            end = sp.simplify(H.subs(t, r))
            below = mono and bool(end < 0)
            e_sides = (-1,) if below else (-1, 0, 1)
            bound = (tuple(zeros), end, below, dH.subs(t, r / 2))
        data = [(side, es, Es) for side in ("w>0", "(w_sad,0)") for es in (-1, 1)
                for Es in (e_sides if side == "(w_sad,0)" else (None,))]
        classes = tuple(sorted({sbasins.set_class(regime, *d) for d in data}))
        mass = sp.integrate(rho / sig ** 2 * sp.exp(-rho ** 2 / (2 * sig ** 2)), (rho, 0, r))
        bnd = 1 - sp.exp(-r ** 2 / (2 * sig ** 2))
        out.append((regime, r, margin, bound, data, classes, bnd, sp.simplify(mass - bnd), sp.limit(bnd, sig, 0, "+")))
    return tuple(out)


@claim("gaussian.whp", ref="Thm 2 / Thm 8 (Gaussian init.)", title="Small Gaussian initialization",
       statement=r"$\theta_0\sim N(0,\sigma^2 I_2)$, $\sigma^2 \ll 1/\sqrt2$: $\theta_{lim}$ is a local minimum with "
                 r"high probability if $p+q>1$, a global minimum with high probability if $p+q<1$. Made precise: "
                 r"for every $\sigma > 0$ the probability is at least $1 - e^{-r^2/(2\sigma^2)}$, with "
                 r"$r = e^{E_{sad}} = 1/\sqrt{2e}$ ($p+q>1$) and $r = 1/\sqrt2$ ($p+q<1$), so it tends to 1 as $\sigma \to 0$.",
       printed=lambda: {"p+q>1": "local_min", "p+q<1": "global_min"},
       mutant=lambda: {"p+q>1": "global_min", "p+q<1": "local_min"}, uses=("thm2.basins", "thm8.basins"),
       section="flow", domain="every sigma > 0; every (p, q) in (0,1)^2 with p+q != 1")
def _gaussian(form, ctx):
    """Proof: a disc around the origin lies, up to the null lines e = 0 and w = 0, in the basin of the claimed
    class; the Gaussian mass of the disc is 1 - exp(-r^2/(2 sigma^2)) -> 1.

    The disc: radius r = e^{E_sad} (p+q > 1) or r = -w_sad (p+q < 1), read off the derived energy on the
    w-axis (`energy_on_w_axis`: f, w_sad, E_sad). Every start of the disc has w in (w_sad, 0), w = 0 or w > 0
    (r <= -w_sad, exact); for p+q > 1 and w = -t < 0 in the disc, E - E_sad < H(t) = r^2 - t^2 + f(-t) - E_sad,
    and H < 0 on (0, r) (H' has its only positive zero at or beyond r, H(r) < 0: exact), so the sign datum is
    E < E_sad there. Each sign datum realised in the disc (off the null lines) is given its class by the
    stated sets (`basins.set_class`, whose agreement with the flow is thm2.basins / thm8.basins, proved).
    The disc's mass is the exact integral of the Gaussian density in polar coordinates. Corroboration: the
    certified enclosures of the basin probabilities (arb, `gaussian.certified_probabilities`) at sigma = 1/2 and
    1/10 must lie above the proved bound."""
    from local2global.numeric.dynamics import gaussian
    from local2global.numeric.evaluate.arb import endpoints

    radius, found = {}, []
    for regime, r, margin, bound, data, classes, bnd, mass_gap, lim in _gaussian_discs():
        radius[regime] = r
        reg_w = _regime_words(1 if regime == "p+q>1" else -1)
        found.append(steps.exact(rf"For {reg_w}, the disc of radius $r = {sp.latex(r)}$ lies in $w > w_{{sad}}$: "
                                 r"$r \leq -w_{sad}$", bool(margin >= 0), method="SymPy comparison", domain="exact",
                                 values={"-w_sad - r": steps.tex(margin)},
                                 obligations=[steps.Obligation(">= 0", margin, unit_pq=False)]))
        if bound is not None:
            zeros, end, below, dH_mid = bound
            found.append(steps.exact(
                rf"For {reg_w}, on $w = -t < 0$ in the disc $E - E_{{sad}} < H(t) = r^2 - t^2 + f(-t) - E_{{sad}} < 0$: "
                r"$H'$ has no zero in $(0, r)$, is positive there, and $H(r) < 0$; so the disc's starts with $w < 0$ "
                r"have $E < E_{sad}$", below, method="SymPy: the positive zeros of H' solved, the sign of H' at r/2 "
                "and of H(r)", domain="t in (0, r)",
                values={"positive zeros of H'": ", ".join(steps.tex(z) for z in zeros) or "none", "H(r)": steps.tex(end)},
                obligations=[steps.Obligation("< 0", end, unit_pq=False), steps.Obligation("> 0", dH_mid, unit_pq=False)]))
        holds = list(classes) == [form[regime]]
        found.append(steps.exact(
            rf"For {reg_w}, the {len(data)} sign data of the disc off $e = 0$, $w = 0$ all get the claimed class from "
            r"the stated sets (whose agreement with the limits is Thm 2 / Thm 8)", holds,
            method="the stated sets read on the sign data (symbolic.basins.set_class)", domain="the disc off the null lines",
            values={"sign data": "; ".join(sbasins.datum_words(*d) for d in data),
                    "classes": ", ".join(_class_words(c) for c in classes), "claimed": _class_words(form[regime])},
            uses=("thm2.basins",) if regime == "p+q>1" else ("thm8.basins",)))
        found.append(steps.exact(
            rf"For {reg_w}, the Gaussian mass of the disc is $1 - e^{{-r^2/(2\sigma^2)}}$, which tends to 1 as "
            r"$\sigma \to 0$", mass_gap == 0 and lim == 1, method="SymPy integral of the density in polar coordinates; "
            "limit", domain="every sigma > 0", values={"bound": steps.tex(bnd), "limit as sigma -> 0": steps.tex(lim)},
            obligations=[steps.Obligation("== 0", mass_gap, unit_pq=False)]))
    corr = []
    for regime, (p, q) in (("p+q>1", PAIRS_GT1[0]), ("p+q<1", PAIRS_LT1[0])):
        cls = {"p+q>1": "local_min", "p+q<1": "global_min"}[regime]
        for k in (2, 10):
            lo, hi = endpoints(gaussian.certified_probabilities(p, q, Fraction(1, k), dps=30)[cls])
            tail = sp.exp(-radius[regime] ** 2 * k ** 2 / 2)
            corr.append(steps.interval(
                f"At $(p, q) = ({p}, {q})$, $\\sigma = 1/{k}$ the certified probability of a {_class_words(cls)} lies above "
                "the proved bound", bool(sp.Rational(hi) >= 1 - tail),
                method="arb enclosure of the basin probability (numeric.dynamics.gaussian.certified_probabilities)",
                domain=f"sigma = 1/{k}, (p, q) = ({p}, {q})",
                values={"enclosure": f"[{_dec6(lo)}, {_dec6(hi, 'up')}]", "bound": f"1 - {sp.N(tail, 3)}"}))
    return Outcome.of(*found, corroboration=corr,
                      checked_domain="every sigma > 0 and every chain of each regime (the sets and the disc involve no "
                                     "p, q); the sign data of the disc exhaustively")


def _dec6(x, mode="down"):
    from local2global.numeric.evaluate.arb import format_fraction
    return format_fraction(x, 6, mode)
