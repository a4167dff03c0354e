r"""Claims of Sec. 4 and App. F, M: the energy of the gradient flow in R^2, its conservation, the energy on
the w-axis (Lemma 12), the saddle asymptotes g(w), the basins of Thms 2 and 8, I_common, the limit in I*,
convergence (Lemmas 10, 11), Fig. 1 and the Gaussian-initialisation statement.

The theorems are proved along the paper's own route, as steps with `uses` edges: the energy is conserved
(Lemma 9), the flow runs along gradient lines of A towards the level A* (structure), w moves monotonically
with the sign of -(A - A*) and e keeps its sign, the contours' geometry (Lemma 12, the facts of
`symbolic.basins.contour_facts`), and the limit rule (`symbolic.basins.limit_rule`) that turns them into
the class of every start. Thms 2 and 8 are then an exhaustive comparison, over every feasible sign datum,
of the printed sets with that rule. Integrated flows (at `Context.flows` digits, no energy projection, a
stopping rule that knows only the critical sets of Thm 1 or only |∇L|) stay as corroboration.
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
from local2global.numeric.precision import limit_tolerances
from local2global.proofs._checks import identity, rational_in
from local2global.proofs._registry import Outcome, claim, combine
from local2global.symbolic import basins as sbasins
from local2global.symbolic import energy as senergy
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


@lru_cache(maxsize=None)
def _flow(p, q, e0, w0, dps, project=False, stop="critical"):
    """An integrated flow for corroboration: no energy projection by default; `stop="critical"` stops near the
    critical sets of Thm 1 (not the basin sets under test), `stop="gradient"` only when |∇L| is tiny."""
    fl = ReducedFlow(p, q)
    if stop == "gradient":
        with mp.workdps(dps + 10):
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
    with mp.workdps(dps + 10):
        return (nbasins.critical_class(ReducedFlow(p, q), res.theta, **limit_tolerances(dps, res.status == "stationary"))
                if res.converged else None)


# --- Eq. 11 / Lemma 9 ------------------------------------------------------------------------

@claim("eq11.energy", ref="Eq. 11 / Eq. 48", title="Energy function",
       statement=r"$E(e, w) = e^2 - (w^2 + \mathrm{sign}(w)\log|w|)$ for $w \neq 0$: the first integral of "
                 r"$de/dw = (\partial_e L)/(\partial_w L)$ on each half-plane.",
       printed=lambda: ENERGY_PRINTED, mutant=lambda: e**2 - (w**2 - sp.sign(w) * sp.log(sp.Abs(w))),
       section="flow", domain="(e, w) in R^2, w != 0")
def _energy_form(form, ctx):
    """The printed E equals the first integral derived from the flow equations (exact on each half-plane)."""
    return _branchwise(lambda lab, wb: senergy.energy(lab) - form.subs(w, wb), ctx, "eq11.energy")


def _branchwise(diff_of, ctx, key):
    outs = {lab: identity(diff_of(lab, wb), sp.S.Zero, ctx, f"{key}/{lab}") for lab, wb in senergy.HALF_PLANES.items()}
    return combine(*outs.values(), method="+".join(sorted({o.method for o in outs.values()})),
                   evidence="; ".join(f"{lab}: {o.evidence}" for lab, o in outs.items()))


def _drift_corroboration(form, ctx):
    """|E(θ_t) - E(θ_0)| along a flow integrated without projection, E the form under test."""
    fl = ReducedFlow(*PAIRS_GT1[0])
    fn = {lab: rebind(sp.lambdify((e, w), form.subs(w, wb).subs(wb, w), "mpmath"))
          for lab, wb in senergy.HALF_PLANES.items()}
    grad = fl.callbacks_at(ctx.flows, MPFR)["grad"]
    drifts = []
    for th in ((Fraction(1, 2), Fraction(-1, 2)), (Fraction(3, 10), Fraction(1, 2))):
        res = integrate(grad, th, dps=ctx.flows, energy_fn=lambda y: fn["w>0" if y[1] > 0 else "w<0"](*y), t_max=3,
                        arithmetic=MPFR)
        drifts.append(res.energy_drift)
    tol = mp.mpf(10) ** (-(ctx.flows // 2 - 2))
    return max(drifts) < tol, (f"max |E(theta_t) - E(theta_0)| over t in [0, 3] on 2 flows (no projection, "
                               f"{ctx.flows} digits) = {mp.nstr(max(drifts), 3)} (tolerance {mp.nstr(tol, 2)})")


@claim("lemma9.conservation", ref="Lemma 1 / Lemma 9", title="Energy is constant along the flow",
       statement=r"$\frac{d}{dt}E(\theta_t) = -\nabla E\cdot\nabla L = -G'(A)\,\nabla E\cdot\nabla A = 0$ for $w_0 \neq 0$.",
       printed=lambda: ENERGY_PRINTED, mutant=lambda: 2 * e**2 - (w**2 + sp.sign(w) * sp.log(sp.Abs(w))),
       uses=("eq11.energy", "structure.G_prime"), section="flow", domain="theta_0 in R^2, w_0 != 0; all t >= 0")
def _conservation(form, ctx):
    """∇E·∇A ≡ 0 on both half-planes (exact), so ∇E·∇L = G'(A)∇E·∇A = 0; the form must be Eq. 11's E (the
    lemma is about that E; E + 1 is conserved too). Corroboration: E(θ_t) constant along integrated flows."""
    Aexpr = _M.A

    def dot(lab, wb):
        Eb, Ab = form.subs(w, wb), Aexpr.subs(w, wb)
        return sp.diff(Eb, e) * sp.diff(Ab, e) + sp.diff(Eb, wb) * sp.diff(Ab, wb)
    sym = _branchwise(dot, ctx, "lemma9.conservation")
    same = _energy_form(form, ctx)
    ok_num, corr = _drift_corroboration(form, ctx)
    out = combine(sym, same, method=sym.method, evidence=f"grad E . grad A = 0: {sym.evidence}; the form is Eq. 11's "
                  f"derived E: {same.ok}")
    return Outcome(out.ok and ok_num, out.method, out.evidence, strength=out.level, checked_domain="R^2 minus the "
                   "e-axis, both half-planes (exact)", corroboration=corr)


@claim("lemma9.e_axis", ref="Lemma 1 / Lemma 9", title="The e-axis is invariant",
       statement=r"$\partial_w L(e, 0) = G'(A)\,\partial_w A(e, 0) = 0$: a flow started at $w_0 = 0$ keeps $w_t = 0$.",
       printed=lambda: A_PRINTED, mutant=lambda: e**2 * (1 + 2 * w), uses=("eq3.logit",), section="flow",
       domain="theta_0 = (e_0, 0), e_0 in R")
def _e_axis(form, ctx):
    """dA/dw vanishes on w = 0 for the slope `form`, which must be the derived slope (exact); ∇L is locally
    Lipschitz (w|w| is C^{1,1}), so w_t = 0 is the unique solution (ODE uniqueness). Corroboration: an
    integrated flow from (1/2, 0) keeps w exactly 0."""
    dAdw0 = sp.expand(sp.diff(form, w).subs(w, 0))
    same = identity(form, _M.A, ctx, "lemma9.e_axis", branches=S.W_BRANCHES)
    res = _flow(*PAIRS_LT1[0], Fraction(1, 2), Fraction(0), ctx.flows)
    ok = dAdw0 == 0 and same.ok
    return Outcome(ok and res.theta[1] == 0, "symbolic", f"dA/dw at w=0: {dAdw0}; slope vs derived: {same.evidence}",
                   strength=same.level if ok else None, checked_domain="the whole e-axis (exact)",
                   corroboration=f"flow from (1/2, 0) at {ctx.flows} digits: w_t = {res.theta[1]} after "
                                 f"t = {mp.nstr(res.t, 4)}")


@claim("lemma9.barrier", ref="Sec. 4", title="The e-axis is an energy barrier",
       statement=r"$\lim_{w\to 0^-}E(e, w) = -\infty$, $\lim_{w\to 0^+}E(e, w) = +\infty$ for every e.",
       printed=lambda: ENERGY_PRINTED, mutant=lambda: e**2 - w**2 - sp.log(sp.Abs(w)), uses=("eq11.energy",),
       section="flow", domain="e in R")
def _barrier(form, ctx):
    s = sp.Symbol("s", positive=True)
    lm = sp.limit(form.subs(w, -s), s, 0, "+")
    lp = sp.limit(form.subs(w, s), s, 0, "+")
    same = _energy_form(form, ctx)      # the statement is about Eq. 11's E, not any function with these limits
    return Outcome(lm == -sp.oo and lp == sp.oo and same.ok, "symbolic",
                   f"limits (e a free symbol): w->0^-: {lm}, w->0^+: {lp}; form is the derived E: {same.ok}",
                   checked_domain="every e (symbolic)")


# --- Lemma 12 and the saddle level -----------------------------------------------------------

@claim("esad.value", ref="Sec. 4", title="Energy of the saddle",
       statement=r"$E_{sad} = E(0, -1/\sqrt{2}) = -(1 + \log 2)/2$, where $-1/\sqrt2$ is the zero of $f'$ on $w<0$.",
       printed=lambda: E_SAD_PRINTED, mutant=lambda: -(1 - sp.log(2)) / 2, uses=("eq11.energy",), section="flow")
def _esad(form, ctx):
    return identity(senergy.E_sad(), form, ctx, "esad.value")


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
    if not (b <= 0 or a >= 0):
        return Outcome(False, "symbolic", "interval contains w = 0")
    s = sp.Symbol("s", positive=True)
    f = senergy.f_w_axis(lab)
    wb = senergy.HALF_PLANES[lab]
    df = sp.factor(sp.cancel(sp.diff(f, wb).subs(wb, _interval_param(a, b, s))))
    decided = df.is_positive if sgn > 0 else df.is_negative
    lim_a, lim_b = _end_limits(lab, a, b)
    ends = sp.simplify(lim_a - fa) == 0 if lim_a.is_finite else lim_a == fa
    ends = ends and (sp.simplify(lim_b - fb) == 0 if lim_b.is_finite else lim_b == fb)
    ok = bool(decided) and bool(ends)
    return Outcome(ok, "symbolic", f"f' on ({sp.sstr(a)}, {sp.sstr(b)}) = {sp.sstr(df)} is "
                   f"{'positive' if sgn > 0 else 'negative'}: {decided}; f({sp.sstr(a)}+) = {sp.sstr(lim_a)}, "
                   f"f({sp.sstr(b)}-) = {sp.sstr(lim_b)}", checked_domain="the whole open interval (s > 0)")


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
    gap_ok = sp.expand(r["E_sad_minus_f_in_t"] - phi) == 0
    dphi = sp.factor(sp.diff(phi, t))
    s = sp.Symbol("s", positive=True)
    phi_ok = (phi.subs(t, 1) == 0 and bool(sp.factor(dphi.subs(t, 1 / (1 + s))).is_negative)
              and bool(sp.factor(dphi.subs(t, 1 + s)).is_positive))
    exact = gap_ok and phi_ok and sp.simplify(M - r["E_sad"]) == 0 and sp.simplify(wM - r["w_sad"]) == 0
    f = sp.lambdify(w_neg, senergy.f_w_axis("w<0"), "mpmath")
    rng = random.Random(zlib.crc32(b"lemma12.iii"))
    bad = 0
    with mp.workdps(ctx.dps):
        Mv, wMv = mp.mpf(sp.N(M, ctx.dps + 5)), mp.mpf(sp.N(wM, ctx.dps + 5))
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
    return Outcome(exact and bad == 0, "symbolic",
                   f"E_sad - f = (t-1-log t)/2 with t = 2w^2: {gap_ok}; phi(1) = 0, phi' = {sp.sstr(dphi)} negative on "
                   f"(0, 1) and positive on (1, oo): {phi_ok}; (M, w_M) = derived (E_sad, w_sad): {exact}",
                   checked_domain="all w < 0 (exact)",
                   corroboration=f"20 levels below M, 1200-point log grid of w in [-e^10, -e^-20] at {ctx.dps} digits: "
                                 f"{bad} levels without exactly one crossing per side")


@claim("g.asymptotes", ref="Thm 2 (ii) / Thm 8 (ii)", title="Saddle asymptotes",
       statement=r"$E(e, w) = E_{sad}$, $w<0$ $\iff$ $e = \pm g(w)$, $g(w) = \sqrt{w^2 - \log(-w) + E_{sad}}$.",
       printed=lambda: G_PRINTED, mutant=lambda: sp.sqrt(w**2 + sp.log(-w) + E_SAD_PRINTED),
       uses=("esad.value", "lemma12.iii"), section="flow", domain="w < 0")
def _g(form, ctx):
    return identity(senergy.g_of_w(), form.subs(w, w_neg), ctx, "g.asymptotes")


# --- The proof of Thms 2 and 8: the facts, the rule, the comparison ------------------------------

def _facts_printed():
    """Our statement of the facts the proof rests on (sign of 1 + 2w|w| on the pieces of the w-line, of
    ∂_wA/e^2, of f', of E_sad - f, and the contours' limits); the check derives them."""
    return {"V_sign": {"w>0": 1, "(w_sad,0)": 1, "(-inf,w_sad)": -1, "w=0": 1, "w_sad": 0},
            "dA_dw_sign": {"w>0": 1, "(w_sad,0)": 1, "(-inf,w_sad)": 1},
            "f_sign": {"w>0": -1, "(w_sad,0)": -1, "(-inf,w_sad)": 1},
            "E_sad_minus_f_sign": {"(w_sad,0)": 1, "(-inf,w_sad)": 1},
            "limits": {"e2(0+)": -sp.oo, "e2(+oo)": sp.oo, "e2(0-)": sp.oo, "e2(-oo)": sp.oo,
                       "A(+oo)": sp.oo, "A(0-)": sp.oo, "A(-oo)": -sp.oo}}


def _facts_mutant():
    f = _facts_printed()
    f["V_sign"] = dict(f["V_sign"], **{"(w_sad,0)": -1})
    return f


@claim("flow.contour_facts", ref="Thm 2 (proof)", title="Signs and limits the limit of every flow rests on",
       statement=r"With $A = e^2 V(w)$, $V = 1 + 2w|w|$: $V > 0$ on $(-1/\sqrt2, \infty)$, $V < 0$ on $(-\infty, -1/\sqrt2)$; "
                 r"$\partial_w A = 4e^2|w| > 0$ off the axes; $f' < 0$ on $(0,\infty)$ and $(-1/\sqrt2, 0)$, $f' > 0$ on "
                 r"$(-\infty, -1/\sqrt2)$, $f < E_{sad}$ on $w < 0$ off $-1/\sqrt2$; along $E = E_0$: $e^2 \to -\infty$ as "
                 r"$w \to 0^+$, $e^2 \to +\infty$ as $w \to 0^-, \pm\infty$, and $A \to +\infty$ ($w \to +\infty, 0^-$), "
                 r"$A \to -\infty$ ($w \to -\infty$).",
       printed=_facts_printed, mutant=_facts_mutant, uses=("eq11.energy", "lemma12.iii", "lemma12.i", "lemma12.ii",
                                                           "lemma12.iv"),
       section="flow", domain="w on each open piece of the real line; E_0 in R")
def _facts(form, ctx):
    """Each stated fact against the derived one (`symbolic.basins.contour_facts`: signs decided by SymPy on
    the whole pieces written as functions of s > 0, limits by sp.limit with E0 free)."""
    F = sbasins.contour_facts().expressions
    bad = [k for k in form if {a: sp.sympify(b) for a, b in form[k].items()} != {a: sp.sympify(b) for a, b in F[k].items()}]
    return Outcome(not bad, "symbolic", "every fact equals the derived one" if not bad else f"facts differ: {bad}",
                   checked_domain="each open piece of the w-line, every E_0 (exact)")


def _g_is_the_level_set(form) -> tuple[bool, str]:
    """|e| < g(w) <=> E(e, w) < E_sad on w < 0 needs g^2 = E_sad - f(w) and g >= 0 (exact)."""
    gn = sp.sympify(form).subs(w, w_neg)
    sq = sp.expand_log(sp.expand(gn**2 - (senergy.E_sad() - senergy.f_w_axis("w<0"))), force=True)
    is_sqrt = isinstance(gn, sp.Pow) and gn.exp == sp.S.Half
    square = sp.simplify(sq) == 0
    return square and is_sqrt, f"g^2 = E_sad - f(w) on w < 0: {square}; g is a principal square root (>= 0): {is_sqrt}"


def _not_real(form) -> Outcome | None:
    """A rejection if the claimed g(w) is not real on w < 0 (sampled at w = -k/8, k = 1..24), else None."""
    gfun = sp.lambdify(w, form, "mpmath")
    with mp.workdps(30):
        for k in range(1, 25):
            gv = mp.mpmathify(gfun(mp.mpf(-k) / 8))
            if isinstance(gv, mp.mpc) and gv.imag != 0:
                return Outcome(False, "sampled w < 0 (30 digits)",
                               f"the claimed g is not real at w = -{k}/8 (g = {mp.nstr(gv, 5)}): no set |e| < g(w)")
    return None


def _starts(key, regime):
    """Random rational starts in [-2, 2]^2 plus starts straddling the curves e = +-g(w) (factor 1 +- 1/20)."""
    rng = random.Random(zlib.crc32(key.encode()))
    pts = [(Fraction(str(rational_in(rng, -2, 2))), Fraction(str(rational_in(rng, -2, 2)))) for _ in range(14)]
    pts += [(Fraction(1, 3), Fraction(0)), (Fraction(0), Fraction(-1, 3)), (Fraction(0), Fraction(-1))]
    ws = (Fraction(-3, 5), Fraction(-1, 5)) if regime == "p+q>1" else (Fraction(-1), Fraction(-3, 2))
    gfun = sp.lambdify(w_neg, senergy.g_of_w(), "mpmath")
    with mp.workdps(40):
        for wv in ws:
            gv = gfun(mp.mpf(wv.numerator) / wv.denominator)
            for fac in (Fraction(19, 20), Fraction(21, 20)):
                for sgn in (1, -1):
                    pts.append((sgn * gv * fac.numerator / fac.denominator, wv))
    return pts


def _basin_check(form, ctx, regime, pairs, key):
    """form = g(w). Proof: the printed sets built with g, read through |e| - g ~ E - E_sad (valid since g^2 =
    E_sad - f, g >= 0), give the same class as the limit rule on every feasible sign datum (exhaustive:
    every piece of the w-line, every sign of e and of E - E_sad). Corroboration: the sets vs the analytic
    predictor (contour ∩ critical set) at sampled starts for two chains, and integrated flows."""
    if (bad := _not_real(form)) is not None:
        return bad
    level_ok, level_ev = _g_is_the_level_set(form)
    reg = 1 if regime == "p+q>1" else -1
    cases = sbasins.sign_cases(reg)
    diff = []
    for c in cases:
        try:
            rule = sbasins.limit_rule(reg, *c)
        except ValueError as ex:
            diff.append(f"{c}: rule undecided ({ex})")
            continue
        sets = sbasins.set_class(regime, *c, g=form)
        if rule != sets:
            diff.append(f"{c}: sets say {sets}, the rule {rule}")
    mism, n = [], 0
    for p, q in pairs:
        for th in _starts(key, regime):
            n += 1
            _, cls = nbasins.classify_theorem(p, q, th, dps=30, regime=regime, g=form)
            pred = _predicted_class(p, q, th)
            if cls != pred:
                mism.append(f"(p,q)=({p},{q}), theta0 = ({mp.nstr(mp.mpmathify(th[0]), 6)}, {th[1]}): sets {cls}, "
                            f"predicted {pred}")
    flows = []
    p, q = pairs[0]
    for th in ((Fraction(1, 2), Fraction(-1, 2)), (Fraction(1, 10), Fraction(-1, 2) if regime == "p+q>1" else Fraction(-1))):
        _, cls = nbasins.classify_theorem(p, q, th, dps=30, regime=regime, g=form)
        flows.append((th, cls, _ended_class(p, q, _flow(p, q, *th, ctx.flows), ctx.flows)))
    fbad = [f for f in flows if f[1] != f[2]]
    ok = level_ok and not diff and not mism and not fbad
    return Outcome(ok, "symbolic (exhaustive case analysis over proved steps)",
                   f"{level_ev}; the sets and the limit rule agree on all {len(cases)} feasible sign data"
                   + (f" except {diff[:2]}" if diff else ""),
                   strength="proved", checked_domain="every start in R^2, every (p, q) of the regime (the rule and the "
                   "sets depend on (p, q) only through sign(p+q-1))",
                   corroboration=f"{n} sampled starts x 2 chains, sets vs analytic predictor: {len(mism)} disagreements"
                   + (f" (first: {mism[0]})" if mism else "") + f"; {len(flows)} flows at {ctx.flows} digits (no projection) end "
                   "in the class of their set: " + ", ".join(f"({a}, {b}) -> {c}/{d}" for (a, b), c, d in flows))


_G_MUTANT = sp.sqrt(w**2 - sp.log(-w) + E_SAD_PRINTED + sp.Rational(1, 5))
_BASIN_USES = ("g.asymptotes", "lemma12.iii", "lemma9.conservation", "lemma9.e_axis", "thm1.critical_points",
               "thm1.classification", "structure.G_prime", "structure.G_convex", "flow.contour_facts")


@claim("thm2.basins", ref="Thm 2", title="Basins of the flow for p+q > 1",
       statement=r"$p+q>1$: $\theta_{lim}$ is a local min on $I_{min} = \{w>0\}\cup\{w=0\}\cup\{-1/\sqrt2<w<0, |e|<g(w)\}$, "
                 r"a saddle on $I_{sad} = \{-1/\sqrt2\le w<0, |e| = g(w)\}$, a local max on $\Theta_{max}$, "
                 r"a global min otherwise.",
       printed=lambda: G_PRINTED, mutant=lambda: _G_MUTANT, uses=_BASIN_USES, section="flow",
       domain="every (p, q) in (0,1)^2 with p+q > 1; every theta_0 in R^2")
def _thm2(form, ctx):
    return _basin_check(form, ctx, "p+q>1", PAIRS_GT1, "thm2.basins")


@claim("thm8.basins", ref="Thm 8", title="Basins of the flow for p+q < 1",
       statement=r"$p+q<1$: local min on $I_{min} = \{w<-1/\sqrt2, |e|<g(w)\}$, saddle on "
                 r"$I_{sad} = \{w\le-1/\sqrt2, |e| = g(w)\}$, local max on $\Theta_{max}$ (origin included), "
                 r"global min otherwise (the e-axis without the origin included).",
       printed=lambda: G_PRINTED, mutant=lambda: _G_MUTANT, uses=_BASIN_USES, section="flow",
       domain="every (p, q) in (0,1)^2 with p+q < 1; every theta_0 in R^2")
def _thm8(form, ctx):
    return _basin_check(form, ctx, "p+q<1", PAIRS_LT1, "thm8.basins")


@claim("icommon", ref="Sec. 4 (I_common)", title="A data-agnostic basin of the global minima",
       statement=r"$I_{common} = \{w<0, |e|>g(w)\}$ leads to a global minimum for every $(p, q)$.",
       printed=lambda: G_PRINTED, mutant=lambda: G_PRINTED / 2, uses=("thm2.basins", "thm8.basins"), section="flow",
       domain="every (p, q) in (0,1)^2 with p+q != 1; theta_0 in R^2")
def _icommon(form, ctx):
    """Proof: with |e| - g ~ E - E_sad (g^2 = E_sad - f, g >= 0), a start with w < 0 is in the set iff E - E_sad > 0;
    for both regimes the limit rule gives global_min on every such sign datum (sufficiency) and a non-global class
    on each datum with w < 0 outside it, for at least one regime (maximality: the set is the largest such set).
    Corroboration: members and non-members at sampled w with the analytic predictor, four chains."""
    if (bad_g := _not_real(form)) is not None:
        return bad_g
    level_ok, level_ev = _g_is_the_level_set(form)
    inside_bad, outside_all_global = [], []
    for side in ("(w_sad,0)", "w_sad", "(-inf,w_sad)"):
        for es in (-1, 1):
            for Es in ((1,) if side == "w_sad" else (-1, 0, 1)):
                classes = [sbasins.limit_rule(reg, side, es, Es) for reg in (1, -1)]
                if Es > 0 and any(c != "global_min" for c in classes):
                    inside_bad.append((side, es, Es, classes))
                if Es <= 0 and all(c == "global_min" for c in classes):
                    outside_all_global.append((side, es, Es))
    # the set as stated (with the form's g) must be exactly {w < 0, E > E_sad}: |e| > g
    piece = sbasins.I_common(form)
    stated = [(ex, op) for ex, op in piece.conditions]
    shape_ok = len(stated) == 2 and stated[0] == (w, "<") and stated[1][1] == ">"
    gfun = sp.lambdify(w_neg, senergy.g_of_w(), "mpmath")
    bad, n = [], 0
    with mp.workdps(40):
        for k in (1, 3, 5, 6, 8, 12):
            wv = Fraction(-k, 8)
            gv = gfun(mp.mpf(wv.numerator) / wv.denominator)
            for r in (Fraction(3, 5), Fraction(21, 20), Fraction(2)):
                th = (gv * r.numerator / r.denominator + (mp.mpf(1) / 100 if gv == 0 else 0), wv)
                if not nbasins.in_I_common(th, dps=30, g=form):
                    continue
                for p, q in PAIRS_GT1 + PAIRS_LT1:
                    n += 1
                    cls = _predicted_class(p, q, th)
                    if cls != "global_min":
                        bad.append(f"({mp.nstr(th[0], 5)}, {wv}) at (p,q)=({p},{q}) -> {cls}")
    ok = level_ok and shape_ok and not inside_bad and not outside_all_global and not bad
    return Outcome(ok, "symbolic (exhaustive case analysis over proved steps)",
                   f"{level_ev}; data with w < 0 and E > E_sad reaching a non-global limit for some regime: {len(inside_bad)}; "
                   f"data with w < 0 outside the set reaching a global limit for both regimes: {len(outside_all_global)}",
                   strength="proved", checked_domain="every start with w < 0, both regimes (all (p, q) with p+q != 1)",
                   corroboration=f"{n} (start, chain) cases by the analytic predictor, {len(bad)} not global"
                   + (f" (first: {bad[0]})" if bad else ""))


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
    ex = [identity(derived[i], sp.sympify(form[i]).subs(w, w_neg), ctx, f"limit_pair/{i}") for i in range(2)]
    fn = sp.lambdify((e, w, S.p, S.q, E0s), form, "mpmath")
    worst, cases = mp.mpf(0), []
    for (p, q), th in ((PAIRS_GT1[0], (Fraction(1, 2), Fraction(-1, 2))), (PAIRS_GT1[0], (Fraction(1), Fraction(-1))),
                       (PAIRS_LT1[0], (Fraction(1, 2), Fraction(-1, 2)))):
        res = _flow(p, q, *th, ctx.flows + 10, stop="gradient")     # 10 more digits: |∇L| < 10^-(flows/2 + 3)
        with mp.workdps(ctx.flows + 20):
            E0v = ReducedFlow(p, q).energy([mp.mpf(x.numerator) / x.denominator for x in th])
            r = fn(res.theta[0], res.theta[1], mp.mpf(p.numerator) / p.denominator, mp.mpf(q.numerator) / q.denominator, E0v)
            worst = max(worst, max(abs(x) for x in r))
            cases.append(res.status)
    tol = mp.mpf(10) ** (-(ctx.flows // 2))
    num_ok = worst < tol and all(s.startswith("converged") for s in cases)
    out = combine(*ex, method="symbolic", evidence="the pair is (E - E_0, A - A*) on w < 0: " + "; ".join(o.evidence for o in ex))
    return Outcome(out.ok and num_ok, out.method, out.evidence, strength=out.level, checked_domain="w < 0 (exact)",
                   corroboration=f"residual of the pair at 3 integrated limits ({ctx.flows + 10} digits, stopped by |grad L|) = "
                                 f"{mp.nstr(worst, 3)} (tolerance {mp.nstr(tol, 2)}); statuses {sorted(set(cases))}")


# --- Lemmas 10 and 11 --------------------------------------------------------------------------

_L10_STARTS = ((Fraction(3, 10), Fraction(1, 2)), (Fraction(-1), Fraction(1, 10)))
L_E, L_W = sp.symbols("L_e L_w", real=True)      # the components of grad L at the current point
LYAPUNOV_PRINTED = (-(L_E**2 + L_W**2), sp.S.Zero)


def _rule_is_total() -> tuple[bool, str]:
    """The limit rule decides every feasible sign datum in both regimes (no case left to a guess)."""
    n = 0
    for reg in (1, -1):
        for c in sbasins.sign_cases(reg):
            sbasins.limit_rule(reg, *c)
            n += 1
    return True, f"the limit rule decides all {n} sign data of both regimes"


@claim("lemma10.convergence", ref="Lemma 10", title="Gradient flow is bounded and converges",
       statement=r"Along $\dot\theta = -\nabla L(\theta)$, $\frac{d}{dt}L(\theta_t) = -|\nabla L(\theta_t)|^2$ ($L$ is a "
                 r"Lyapunov function, the engine of the proof); for every $\theta_0$, $(\theta_t)$ is bounded, "
                 r"$\theta_t \to \theta_{lim}$ and $|\nabla L(\theta_{lim})| = 0$.",
       printed=lambda: LYAPUNOV_PRINTED, mutant=lambda: (L_E**2 + L_W**2, sp.S.Zero),
       uses=("thm1.critical_points", "flow.contour_facts", "lemma9.conservation", "lemma9.e_axis", "lemma9.barrier"),
       section="flow", domain="every theta_0 in R^2; (p, q) in (0,1)^2, p+q != 1")
def _lemma10(form, ctx):
    """form = (dL/dt along the flow as a function of ∇L = (L_e, L_w), |∇L(θ_lim)|). Proof: dL/dt = ∇L·θ' =
    -|∇L|^2 (exact). Boundedness and convergence: off the axes the flow moves on its contour E = E_0 (Lemma 9)
    with w monotone (∂_wA > 0, the sign of ẇ is that of -(A - A*), which changes only at Θ*), and the branch of
    the contour ahead either ends on the w-axis, reaches the saddle, or is unbounded with A -> ±oo, hence meets
    Θ* (contour facts); the limit rule decides every case, so w_t converges monotonically to the w of the first
    critical point ahead, e_t = ±sqrt(E_0 - f(w_t)) converges with it, and a limit of a trajectory is a critical
    point (the right side is continuous): |∇L(θ_lim)| = 0. On the e-axis (invariant) |e| is monotone.
    Corroboration: flows at ctx.flows digits; dL/dt measured by differentiating the loss alone along the path."""
    rate_fn = sp.lambdify((L_E, L_W), form[0], "mpmath")
    gE, gW = sp.symbols("g_e g_w", real=True)
    lyap_ok = sp.expand(form[0] - (gE * (-gE) + gW * (-gW)).subs({gE: L_E, gW: L_W})) == 0
    total, total_ev = _rule_is_total()
    limit_ok = sp.sympify(form[1]) == 0
    rows, worst_rate = [], mp.mpf(0)
    for p, q in (PAIRS_GT1[0], PAIRS_LT1[0]):
        fl = ReducedFlow(p, q)
        cb = fl.callbacks_at(ctx.flows, MPFR)
        for th in _L10_STARTS:
            res = integrate(cb["grad"], th, dps=ctx.flows, critical_distance=cb["critical_distance"], norm_max=100,
                            max_steps=400, record=True, arithmetic=MPFR)
            with mp.workdps(ctx.flows + 10):
                for _, y in res.path[:: max(1, len(res.path) // 4)][:4]:
                    g = fl.grad(y)
                    measured = mp.diff(lambda s: fl.loss([a - s * b for a, b in zip(y, g)]), 0)
                    worst_rate = max(worst_rate, abs(measured - rate_fn(*g)) / max(abs(measured), mp.mpf(10) ** -30))
            rows.append((res.status, _ended_class(p, q, res, ctx.flows), res.max_norm))
    tol = mp.mpf(10) ** (-(ctx.flows - 15))
    num_ok = all(s.startswith("converged") and c is not None for s, c, _ in rows) and worst_rate < tol
    ok = lyap_ok and total and limit_ok
    return Outcome(ok and num_ok, "symbolic (Lyapunov identity) + case analysis over proved steps",
                   f"dL/dt = grad L . theta' = -|grad L|² matches the form: {lyap_ok}; {total_ev}; the limit is a "
                   f"critical point, so |grad L(theta_lim)| = {form[1]}: {limit_ok}",
                   strength="proved", checked_domain="every start in R^2 (exact identity, exhaustive cases)",
                   corroboration=f"{sum(1 for _, c, _ in rows if c)} of {len(rows)} flows at {ctx.flows} digits end at a critical "
                   f"point; sup |theta_t| = {mp.nstr(max(m for _, _, m in rows), 4)}; max rel. |dL/dt - form| = "
                   f"{mp.nstr(worst_rate, 3)} (tolerance {mp.nstr(tol, 2)})")


@claim("lemma11.energy", ref="Lemma 11", title="Energy at the limit point",
       statement=r"$\theta_0 \notin$ e-axis $\Rightarrow E(\theta_{lim}) = E(\theta_0)$: $\theta_{lim}$ is on the contour "
                 r"through $\theta_0$ and on the critical set.",
       printed=lambda: sp.S.Zero, mutant=lambda: sp.Rational(1, 10),
       uses=("lemma9.conservation", "lemma10.convergence", "lemma9.barrier"), section="flow",
       domain="theta_0 in R^2 with w_0 != 0")
def _lemma11(form, ctx):
    """form = the claimed E(θ_lim) - E(θ_0) (0 printed). Proof: E(θ_t) = E(θ_0) for all t (Lemma 9); E -> ±oo as
    w -> 0 (barrier) while E(θ_t) stays finite, so w_t stays away from 0 and θ_lim has w ≠ 0 (Lemma 10 gives the
    limit), where E is continuous: E(θ_lim) = lim E(θ_t) = E(θ_0); the form must be 0 exactly.
    Corroboration: flows without projection, |E(θ_lim) - E(θ_0) - form| at ctx.flows digits."""
    exact = sp.sympify(form) == 0
    worst = mp.mpf(0)
    for th in _L10_STARTS:
        res = _flow(*PAIRS_GT1[0], *th, ctx.flows)
        with mp.workdps(ctx.flows + 10):
            worst = max(worst, abs(res.energy_end - res.energy0 - mp.mpf(sp.N(form, ctx.flows + 10))))
    tol = mp.mpf(10) ** (-(ctx.flows // 2))
    return Outcome(exact and worst < tol, "symbolic (continuity of E at the limit, Lemmas 9, 10)",
                   f"E(theta_lim) - E(theta_0) = 0 by conservation and continuity; the form is {form}: {exact}",
                   strength="proved", checked_domain="every start with w_0 != 0",
                   corroboration=f"max |E(theta_lim) - E(theta_0) - ({form})| = {mp.nstr(worst, 3)} over {len(_L10_STARTS)} "
                                 f"flows at {ctx.flows} digits without projection (tolerance {mp.nstr(tol, 2)})")


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
                    bad.append(f"p=q={p_}, (e, w) = ({e0}, {w0}): painted {label} (claimed {form[label]}), flow ends at {cls}")
    ok = not bad and len(seen) == 2
    return Outcome(ok, f"sampled: figure pixels vs integrated flows ({ctx.flows} digits)",
                   (f"{sum(seen.values())} starts ({', '.join(f'{v} painted {k}' for k, v in sorted(seen.items()))}): "
                    f"every flow ends where its colour says") if not bad else "; ".join(bad[:3]),
                   checked_domain="a 3 x 4 grid of starts in the window, per panel")


# --- Gaussian initialization -----------------------------------------------------------------

@lru_cache(maxsize=None)
def _gaussian_discs() -> tuple:
    """Per regime, the disc of `_gaussian` and what is derived about it: (regime, radius r, r <= -w_sad, the step
    bounding E - E_sad on w < 0 (p+q > 1; else None), the number of sign data of the disc off the null lines, the
    classes the stated sets give them, the bound 1 - exp(-r^2/(2 sigma^2)), that it is the disc's exact Gaussian
    mass and tends to 1). None of it involves the form under test (the claimed classes): derived once per process,
    the printed statement and its control then differ in the comparison with their claimed class only."""
    ax = senergy.energy_on_w_axis()
    w_sad, E_sad, f_neg = ax["w_sad"], ax["E_sad"], ax["f_w<0"]
    t, rho, sig = sp.Symbol("t", positive=True), sp.Symbol("rho", positive=True), sp.Symbol("sigma", positive=True)
    out = []
    for regime, r in (("p+q>1", sp.exp(E_sad)), ("p+q<1", -w_sad)):
        inside = bool(sp.simplify(r + w_sad) <= 0)               # the disc's w stays in (w_sad, +oo)
        e_sides, bound_step = (-1, 0, 1), None
        if regime == "p+q>1":
            H = r ** 2 - t ** 2 + f_neg.subs({v: -t for v in f_neg.free_symbols}) - E_sad
            zeros = [z for z in sp.solve(sp.diff(H, t), t) if z.is_positive]
            mono = all(bool(sp.simplify(z - r) >= 0) for z in zeros) and bool(sp.diff(H, t).subs(t, r / 2) > 0)
            end = sp.simplify(H.subs(t, r))
            below = mono and bool(end < 0)
            e_sides = (-1,) if below else (-1, 0, 1)
            bound_step = (f"{regime}: r = {sp.sstr(sp.simplify(r))} <= -w_sad: {inside}; on w < 0 in the disc "
                          f"E - E_sad < H(t), H increasing on (0, r), H(r) = {sp.sstr(end)} < 0: {below}")
        data = [(side, es, Es) for side in ("w>0", "(w_sad,0)") for es in (-1, 1)
                for Es in (e_sides if side == "(w_sad,0)" else (-1, 0, 1))]
        classes = sorted({sbasins.set_class(regime, *d) for d in data})
        mass = sp.integrate(rho / sig ** 2 * sp.exp(-rho ** 2 / (2 * sig ** 2)), (rho, 0, r))
        bound = 1 - sp.exp(-r ** 2 / (2 * sig ** 2))
        exact_mass = sp.simplify(mass - bound) == 0 and sp.limit(bound, sig, 0, "+") == 1
        out.append((regime, r, inside, bound_step, len(data), classes, bound, exact_mass))
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

    radius, steps, ok = {}, [], True
    for regime, r, inside, bound_step, n_data, classes, bound, exact_mass in _gaussian_discs():
        radius[regime] = r
        if bound_step:
            steps.append(bound_step)
        holds = inside and classes == [form[regime]]
        ok = ok and holds and exact_mass
        steps.append(f"{regime}: the {n_data} sign data of the disc off e = 0, w = 0 get the classes {classes} "
                     f"(claimed {form[regime]}); P(disc) = {sp.sstr(bound)} exactly, -> 1 as sigma -> 0: {exact_mass}")
    corr, corr_ok = [], True
    for regime, (p, q) in (("p+q>1", PAIRS_GT1[0]), ("p+q<1", PAIRS_LT1[0])):
        cls = {"p+q>1": "local_min", "p+q<1": "global_min"}[regime]
        for k in (2, 10):
            lo, hi = endpoints(gaussian.certified_probabilities(p, q, Fraction(1, k), dps=30)[cls])
            tail = sp.exp(-radius[regime] ** 2 * k ** 2 / 2)
            above = bool(sp.Rational(hi) >= 1 - tail)
            corr_ok = corr_ok and above
            corr.append(f"(p,q)=({p},{q}), sigma=1/{k}: certified P({cls}) in [{_dec6(lo)}, {_dec6(hi, 'up')}] "
                        f">= the bound 1 - {sp.N(tail, 3)}: {above}")
    return Outcome(ok and corr_ok, "symbolic: a disc of derived radius in the basin (sign data read by the stated "
                   "sets, proved by thm2/thm8.basins) and its exact Gaussian mass",
                   "; ".join(steps), strength="proved",
                   checked_domain="every sigma > 0 and every chain of each regime (the sets and the disc involve no "
                                  "p, q); the sign data of the disc exhaustively",
                   corroboration="; ".join(corr))


def _dec6(x, mode="down"):
    from local2global.numeric.evaluate.arb import format_fraction
    return format_fraction(x, 6, mode)


def _dec12(x, mode="down"):
    from local2global.numeric.evaluate.arb import format_fraction
    return format_fraction(x, 12, mode)
