r"""Sign and monotonicity claims certified with ball arithmetic (python-flint arb) on covering boxes.

Each check evaluates a *derived* expression (or the printed form under test) on boxes that cover a
stated compact region, bisecting until arb proves the strict sign on every box (`proofs._certify`).
A certified status is a proof for the stated region only; unbounded directions are either
compactified by a substitution (Lemma 12) or cut to a stated range (said in the evidence).
Boundaries where the quantity vanishes (p + q = 1, w = -1/sqrt 2) are excluded by a stated margin.
"""
from __future__ import annotations

from functools import lru_cache

import sympy as sp

from local2global.symbolic import symbols as S
from local2global.symbolic import bias, canonical
from local2global.symbolic import landscape as sland
from local2global.symbolic.markov import MarkovChain

from local2global.proofs._certify import certify_sign
from local2global.proofs._registry import Outcome, claim
from local2global.symbolic.model import canonical_model

_M = canonical_model()

p, q, e, w, A, b = S.p, S.q, S.e, S.w, S.A, S.b
CH = MarkovChain()
R = sp.Rational
PQ_BOX = {p: (R(1, 1000), R(999, 1000)), q: (R(1, 1000), R(999, 1000))}
PQ_BOX_F2 = {p: (R(1, 100), R(99, 100)), q: (R(1, 100), R(99, 100))}
absw = sp.Abs(w)


def _certified(certs, extra: str = "") -> Outcome:
    ok = all(c.ok for c in certs)
    ev = "; ".join(c.summary() for c in certs) + extra
    return Outcome(ok, "certified: interval arithmetic (arb endpoints, python-flint) on covering boxes", ev, certified=ok)


# ---------------------------------------------------------------------------------------------
# Lemma 8 on the w-axis: the (e, e) entry of the reduced Hessian has the sign of (p+q-1)(1+2w|w|)
# ---------------------------------------------------------------------------------------------

ETA_AXIS = R(1, 5)


@lru_cache(maxsize=None)
def hessian_ee_on_w_axis() -> sp.Expr:
    r"""$\partial_e^2 L(0, w) = G''(0)(\partial_e A)^2 + G'(0)\,\partial_e^2 A$ at e = 0 (chain rule of the
    structure L = G(A)); the first term vanishes because $\partial_e A = 0$ on the axis."""
    Aexpr = _M.A
    Gp0 = sland.structure(CH)["G_prime_at_0"]
    dA = sp.diff(Aexpr, e).subs(e, 0)
    if dA != 0:
        raise AssertionError("dA/de does not vanish on the w-axis")
    return sp.factor(Gp0 * S.hessian(Aexpr, (e, w))[0, 0].subs(e, 0))


@claim("cert.lemma8.axis_sign", ref="Lemma 8 / Thm 1", title="Sign of the Hessian on the w-axis (certified)",
       statement=r"$\mathrm{sign}\,\partial_e^2 L(0, w) = \mathrm{sign}\,(p+q-1)(1+2w|w|)$",
       printed=lambda: (p + q - 1) * (1 + 2 * w * absw), mutant=lambda: (p + q - 1) * (1 - 2 * w * absw),
       uses=("lemma8.axis", "structure.G_prime"), section="certified")
def _check_axis_sign(form, ctx):
    H = hessian_ee_on_w_axis()
    box = {**PQ_BOX, w: (-2, 2)}
    pos = certify_sign(H, box, +1, where=(form - ETA_AXIS,))
    neg = certify_sign(H, box, -1, where=(-form - ETA_AXIS,))
    return _certified([pos, neg], f" (margin |claimed sign function| >= {ETA_AXIS}; w cut to [-2, 2])")


# ---------------------------------------------------------------------------------------------
# Lemma 12: monotonicity of f(w) = E(0, w) on its intervals
# ---------------------------------------------------------------------------------------------

def _energy_expr() -> tuple[sp.Expr, str]:
    """E(e, w) as derived (`CanonicalModel.energy`), and where it comes from (for the evidence)."""
    return _M.energy, "derived (symbolic/energy.py)"


def f_prime(branch_symbol: sp.Symbol) -> sp.Expr:
    """f'(w) on one side of w = 0, f(w) = E(0, w)."""
    E, _ = _energy_expr()
    f = E.subs(e, 0).subs(w, branch_symbol)
    return sp.diff(sp.piecewise_fold(f), branch_symbol)


t = sp.Symbol("t", positive=True)


def _compactified(fp: sp.Expr, ws: sp.Symbol, lo, hi) -> tuple[sp.Expr, str]:
    r"""R(t) with sign f'(w) = sign R(t) on the open interval (lo, hi), t in [0, 1].

    w = lo + (hi - lo) t for a finite interval, w = hi - (1-t)/t for lo = -oo, w = lo + t/(1-t) for hi = oo;
    f'(w(t)) = N/D is rational in t; N D = t^a (1-t)^b R(t) and t^a (1-t)^b D^{-2} > 0 inside, so R on the
    *closed* [0, 1] carries the sign (the endpoints, where f' may vanish or blow up, are divided out).
    """
    if lo == -sp.oo:
        sub = hi - (1 - t) / t
    elif hi == sp.oo:
        sub = lo + t / (1 - t)
    else:
        sub = lo + (hi - lo) * t
    expr = sp.cancel(sp.together(fp.subs(ws, sub)))
    N, D = sp.fraction(expr)
    prod = sp.Poly(sp.expand(N * D), t)
    stripped = prod
    for factor in (t, 1 - t):                   # both positive on the open interval
        while stripped.degree() > 0 and sp.rem(stripped.as_expr(), factor, t) == 0:
            stripped = sp.Poly(sp.quo(stripped.as_expr(), factor, t), t)
    return stripped.as_expr(), f"w = {sp.sstr(sub)}"


LEMMA12_PRINTED = ((-sp.oo, -1 / sp.sqrt(2), +1), (-1 / sp.sqrt(2), 0, -1), (0, sp.oo, -1))


@claim("cert.lemma12.monotone", ref="Lemma 12", title="Monotonicity of f(w) = E(0, w) (certified)",
       statement=r"$f$ increasing on $(-\infty, -1/\sqrt2)$, decreasing on $(-1/\sqrt2, 0)$ and on $(0, \infty)$",
       printed=lambda: LEMMA12_PRINTED,
       mutant=lambda: ((-sp.oo, -sp.Rational(1, 2), +1), (-sp.Rational(1, 2), 0, -1), (0, sp.oo, -1)),
       uses=(), section="certified")
def _check_lemma12(form, ctx):
    certs = []
    _, source = _energy_expr()
    reversed_ = [f"({lo}, {hi})" for lo, hi, _ in form if not bool(sp.sympify(lo) < sp.sympify(hi))]
    if reversed_:
        return Outcome(False, "validation", f"not an interval (lower end not below upper end): {', '.join(reversed_)}")
    for lo, hi, sgn in form:
        ws = S.w_neg if (hi <= 0) else S.w_pos
        Rt, how = _compactified(f_prime(ws), ws, lo, hi)
        c = certify_sign(Rt, {t: (0, 1)}, sgn)
        c.region = f"({lo}, {hi}) via {how}, t in [0, 1] (sign {'+' if sgn > 0 else '-'})"
        certs.append(c)
    return _certified(certs, f" (energy: {source}; whole real line covered through the compactifying substitutions)")


# ---------------------------------------------------------------------------------------------
# Convexity of G: G''(A) > 0
# ---------------------------------------------------------------------------------------------

A_RANGE = (-20, 20)


def _sigma_prime(s):
    return s * (1 - s)


def G_second_printed() -> sp.Expr:
    r"""The stated form $\pi_0\pi_1\sigma'(c)\sigma'(A+c)/(\pi_0\sigma'(c) + \pi_1\sigma'(A+c))$ in s0, s1."""
    d0, d1 = _sigma_prime(sland.s0), _sigma_prime(sland.s1)
    return CH.pi0 * CH.pi1 * d0 * d1 / (CH.pi0 * d0 + CH.pi1 * d1)


def _root_forms():
    """Lemma 5's root u* = e^{c*} in the form that does not cancel on each half of the (p, q) box:
    the derived `u_star` where p >= q, its conjugate `u_star_stable` where p <= q (K = e^A)."""
    opt = bias.derive_optimal_bias(CH)
    # the discriminant as (p-q)^2 + 4pqK (checked equal exactly): expanded, p^2 - 2pq + q^2 would make
    # the ball of D straddle 0 on boxes around p = q (interval dependency), and sqrt of it undefined
    D = opt["discriminant"]
    D_sq = (p - q) ** 2 + 4 * p * q * S.K
    if sp.expand(D - D_sq) != 0:
        raise AssertionError("discriminant is not (p-q)^2 + 4pqK")
    forms = []
    for name, half in (("u_star", p - q), ("u_star_stable", q - p)):
        root = opt[name].subs(sp.sqrt(D), sp.sqrt(D_sq))
        if sp.sqrt(D_sq) not in root.atoms(sp.Pow):
            raise AssertionError(f"{name} does not contain sqrt(D)")
        forms.append((root.subs(S.K, sp.exp(A)), half))
    return tuple(forms)


def _in_u(expr_s: sp.Expr) -> sp.Expr:
    """expr(s0, s1) at s0 = sigma(c) = u/(1+u), s1 = sigma(A+c) = Ku/(1+Ku), as one rational function
    (positive terms stay positive, which keeps the balls tight)."""
    return sp.factor(sp.cancel(sp.together(expr_s.subs({sland.s0: S.u / (1 + S.u), sland.s1: S.K * S.u / (1 + S.K * S.u)}))))


d_sym = sp.Symbol("d", real=True)      # d = p - q: the boxes are taken in (d, q, A)


def _at_optimal_offset(expr_s: sp.Expr, box: dict, sign: int, where=(), **kw):
    """Certify sign(expr(s0, s1)) at c = c*(A) on the (p, q, A) `box`, once per root form.

    Boxes are taken in (d, q, A) with p = q + d for d >= 0 and in (d, p, A) with q = p - d for d <= 0, so that d >= 0 (derived root `u_star`) and d <= 0 (its
    conjugate `u_star_stable`) are unions of boxes: each form is then evaluated only where it adds
    non-negative terms (on a box straddling p = q both forms cancel and interval bounds never settle).
    The (p, q) box becomes two linear constraints per half; p, q > 0 on every box by construction.
    """
    in_u = _in_u(expr_s)
    (plo, phi), (qlo, qhi) = box[p], box[q]
    rest = {k: v for k, v in box.items() if k not in (p, q)}
    (root_ge, _), (root_le, _) = _root_forms()
    # d >= 0: variables (d, q), p = q + d > 0;  d <= 0: variables (d, p), q = p - d > 0
    halves = ((root_ge, {p: q + d_sym}, {d_sym: (0, phi - qlo), q: (qlo, qhi)}, (q + d_sym - plo, phi - q - d_sym)),
              (root_le, {q: p - d_sym}, {d_sym: (plo - qhi, 0), p: (plo, phi)}, (p - d_sym - qlo, qhi - p + d_sym)))
    out = []
    for root, sub, bx, cons in halves:
        expr = in_u.subs(S.K, sp.exp(A)).subs(S.u, root).subs(sub)
        wh = tuple(sp.sympify(g).subs(sub) for g in where) + cons
        out.append(certify_sign(expr, {**bx, **rest}, sign, where=wh, **kw))
    return out


@claim("cert.structure.G_convex", ref="Sec. 3 / App. E (structure)", title="G'' > 0 (certified)",
       statement=r"$G''(A) = \frac{\pi_0\pi_1\sigma'(c^\star)\sigma'(A+c^\star)}{\pi_0\sigma'(c^\star)+\pi_1\sigma'(A+c^\star)} > 0$",
       printed=G_second_printed,
       mutant=lambda: G_second_printed().subs(CH.pi0 * _sigma_prime(sland.s0), -CH.pi0 * _sigma_prime(sland.s0)),
       uses=("structure.G_convex",), section="certified")
def _check_G_convex(form, ctx):
    same = sp.cancel(sp.together(form - sland.structure(CH)["G_second"])) == 0
    certs = _at_optimal_offset(form, {**PQ_BOX, A: A_RANGE}, +1, max_depth=30)
    out = _certified(certs, f" (A cut to {list(A_RANGE)}); form == derived G_second exactly: {same}")
    return Outcome(out.ok and same, out.method, out.evidence, certified=out.ok and same)


# ---------------------------------------------------------------------------------------------
# Proof of Thm 2: f2 < 0 near the saddle when p + q > 1
# ---------------------------------------------------------------------------------------------

ETA_F2 = R(1, 5)
A_NEAR_SADDLE = (-R(1, 50), R(1, 50))


@claim("cert.thm2.f2_negative", ref="Thm 2 (proof)", title="f2 < 0 near the saddle for p+q > 1 (certified)",
       statement=r"$f_2 = \sigma(b^\star - e^2/2) - p < 0$ for $|A| \le 1/50$, $p, q \in [1/100, 99/100]$, $p+q \ge 1 + 1/5$",
       printed=lambda: S.sigma(b - e**2 / 2) - p, mutant=lambda: S.sigma(b - e**2 / 2) - q,
       uses=("lemma3.f1f2", "lemma5.b_star"), section="certified")
def _check_f2(form, ctx):
    derived_f2 = _M.residual_parts()[1]
    same = sp.simplify(derived_f2 - form) == 0
    # at b = b*, c = b - e^2/2 = c*(A) = log u*: sigma(c) = s0
    in_s = sp.sympify(form).subs(b, sp.log(sland.s0 / (1 - sland.s0)) + e**2 / 2)
    if e in in_s.free_symbols:
        return Outcome(False, "certified", "f2 at b* still depends on e beyond A")
    certs = _at_optimal_offset(in_s, {**PQ_BOX_F2, A: A_NEAR_SADDLE}, -1, where=(p + q - 1 - ETA_F2,), max_depth=30)
    note = (" (|A| <= 1/50 contains the image of |e| <= 1/10, |w + 1/sqrt 2| <= 1/2, where |1+2w|w|| <= 2)"
            f"; form == derived f2 exactly: {same}")
    out = _certified(certs, note)
    return Outcome(out.ok and same, out.method, out.evidence, certified=out.ok and same)
