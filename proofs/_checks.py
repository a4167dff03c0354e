"""Generic check procedures: exact simplification first, high-precision sampling as the fallback.

Sampling evaluates at random *rational* points (exact inputs, no float literals) with mpmath at
the context's precision; the evidence records the number of points, the precision and the
largest residual, so a sampled status never pretends to be a proof.
"""
from __future__ import annotations

import random
import zlib

import mpmath as mp
import sympy as sp

from local2global.symbolic import symbols as S
from local2global.numeric.evaluate.lambdify import compile_mp
from local2global.symbolic import simplify_unit

from local2global.proofs._registry import Context, Outcome

#: default sampling box per variable: (low, high); the sign branches restrict e and w further
BOX = {S.p: (0, 1), S.q: (0, 1), S.e: (-2, 2), S.w: (-2, 2), S.b: (-3, 3), S.a: (-1, 1), S.A: (-6, 6), S.c: (-4, 4)}


def _is_zero_exact(expr: sp.Expr) -> bool:
    """Cheap, targeted attempts to show expr == 0 (no open-ended `simplify`)."""
    if expr == 0:
        return True
    if sp.count_ops(expr) > 250:      # large transcendental expressions: leave them to sampling
        return False
    for step in (lambda x: sp.expand(x, power_exp=True),
                 lambda x: sp.cancel(sp.together(sp.expand(x, power_exp=True))),
                 lambda x: simplify_unit(sp.expand_log(x, force=True)),
                 lambda x: sp.cancel(sp.expand(sp.expand_log(x, force=True), power_exp=True))):
        try:
            if step(expr) == 0:
                return True
        except Exception:
            pass
    return False


def rational_in(rng: random.Random, lo, hi, sign=None) -> sp.Rational:
    """A random rational in (lo, hi) with denominator <= 997, restricted to a sign if given."""
    while True:
        den = rng.randint(2, 997)
        num = rng.randint(int(lo * den) + 1, int(hi * den) - 1) if hi > lo else 0
        r = sp.Rational(num, den)
        if lo < r < hi and r != 0 and (sign is None or sp.sign(r) == sign):
            return r


def sample_points(key: str, free: list[sp.Symbol], n: int, restrict=None) -> list[dict]:
    """n reproducible random rational points for the free symbols (seeded by the claim key).

    `restrict(point) -> bool` rejects points outside a claim's hypothesis (e.g. p+q > 1).
    """
    rng = random.Random(zlib.crc32(key.encode()))
    pts = []
    tries = 0
    while len(pts) < n:
        tries += 1
        if tries > 200 * n:
            raise RuntimeError(f"could not sample {n} points satisfying the hypothesis of {key}")
        pt = {}
        for s in free:
            lo, hi = BOX.get(s, (-2, 2))
            sign = 1 if s.is_positive else (-1 if s.is_negative else None)
            if sign == 1:
                lo = max(lo, 0)
            if sign == -1:
                hi = min(hi, 0)
            pt[s] = rational_in(rng, lo, hi, sign)
        if restrict is None or restrict(pt):
            pts.append(pt)
    return pts


def _mp_value(v) -> mp.mpf:
    v = sp.sympify(v)
    if isinstance(v, sp.Rational):
        return mp.mpf(int(v.p)) / int(v.q)
    return mp.mpf(sp.N(v, mp.mp.dps + 5))


def evaluate(expr: sp.Expr, point: dict, dps: int, _compiled=None) -> mp.mpf | mp.mpc:
    """Evaluate a SymPy expression at an exact point with mpmath at `dps` digits."""
    with mp.workdps(dps):
        f = _compiled or compile_mp(expr, tuple(point))
        return f(*[_mp_value(v) for v in point.values()])


def sampled_zero(expr: sp.Expr, ctx: Context, key: str, restrict=None, scale: sp.Expr | None = None) -> Outcome:
    """|expr| (relative to |scale|+1 if given) below 10^-(dps-10) at ctx.points random rational points."""
    free = sorted(expr.free_symbols, key=lambda s: s.name)
    if not free:
        with mp.workdps(ctx.dps):
            val = abs(sp.N(expr, ctx.dps))
        ok = val < sp.Float(10) ** (-(ctx.dps - 10))
        return Outcome(bool(ok), f"high-precision ({ctx.dps} digits)", f"constant residual {sp.N(val, 3)}")
    worst = mp.mpf(0)
    tol = mp.mpf(10) ** (-(ctx.dps - 10))
    pts = sample_points(key, free, ctx.points, restrict)
    f = compile_mp(expr, tuple(free), cse=True)
    fs = compile_mp(scale, tuple(free), cse=True) if scale is not None else None
    for pt in pts:
        with mp.workdps(ctx.dps + 10):
            r = abs(evaluate(expr, pt, ctx.dps + 10, f))
            if fs is not None:
                r = r / (1 + abs(evaluate(scale, pt, ctx.dps + 10, fs)))
            worst = max(worst, r)
    ok = worst < tol
    return Outcome(bool(ok), f"sampled: {len(pts)} random rational points at {ctx.dps} digits",
                   f"max |residual| = {mp.nstr(worst, 3)} (tolerance 1e-{ctx.dps - 10})")


def identity(lhs: sp.Expr, rhs: sp.Expr, ctx: Context, key: str, branches=None, restrict=None,
             exact: bool = True) -> Outcome:
    """lhs == rhs: exact on every sign branch if SymPy can decide, else sampled on every branch.

    `exact=False` goes straight to sampling, for expressions where SymPy's attempts are known to
    take minutes (the status then says "sampled", never "symbolic").
    """
    branches = branches or {"all": {}}
    diffs = {lab: sp.sympify(lhs - rhs).subs(sub) for lab, sub in branches.items()}
    if exact and all(_is_zero_exact(d) for d in diffs.values()):
        return Outcome(True, "symbolic", f"difference simplifies to 0 on {len(diffs)} branch(es): {', '.join(diffs)}")
    outs = [sampled_zero(d, ctx, f"{key}/{lab}", restrict) for lab, d in diffs.items()]
    ok = all(o.ok for o in outs)
    return Outcome(ok, outs[0].method + f" on {len(outs)} branch(es)", "; ".join(f"{lab}: {o.evidence}" for lab, o in zip(diffs, outs)))


def matrix_identity(lhs: sp.Matrix, rhs: sp.Matrix, ctx: Context, key: str, branches=None, restrict=None,
                    exact: bool = True) -> Outcome:
    """Entrywise `identity` for matrices of equal shape."""
    if lhs.shape != rhs.shape:
        return Outcome(False, "shape", f"shapes differ: {lhs.shape} vs {rhs.shape}")
    outs = [identity(lhs[i], rhs[i], ctx, f"{key}[{i}]", branches, restrict, exact) for i in range(len(lhs))]
    ok = all(o.ok for o in outs)
    methods = sorted({o.method.split(" on ")[0].split(":")[0] for o in outs})
    bad = [i for i, o in enumerate(outs) if not o.ok]
    ev = (f"all {len(outs)} entries agree" if ok else f"entries {bad} differ: {outs[bad[0]].evidence}")
    detail = "; ".join(sorted({o.evidence for o in outs if o.method != 'symbolic'}))[:300]
    return Outcome(ok, "+".join(methods), ev + (f" ({detail})" if detail and ok else ""))


def same_sign(derived: sp.Expr, printed: sp.Expr, ctx: Context, key: str, free, n: int = 400) -> Outcome:
    """Two inequality conditions select the same points, compared at n random rational points.

    The conditions are compiled to Python and evaluated on `fractions.Fraction` inputs, so every
    comparison is exact (no rounding); measure-zero boundaries need their own exact test."""
    from fractions import Fraction

    free = list(free)
    fd = sp.lambdify(free, sp.sympify(derived), modules=[{"Abs": abs}, "math"])
    fp = sp.lambdify(free, sp.sympify(printed), modules=[{"Abs": abs}, "math"])
    bad = 0
    for pt in sample_points(key, free, n):
        args = [Fraction(int(v.p), int(v.q)) for v in pt.values()]
        if bool(fd(*args)) != bool(fp(*args)):
            bad += 1
    return Outcome(bad == 0, f"sampled: {n} random rational points (exact rational arithmetic)",
                   f"{bad} disagreements")


def same_condition(derived, printed, ctx: Context, key: str, n: int = 300) -> Outcome:
    """Two conditions in (p, q, w) on a critical family select the same points: `same_sign` at n random
    rational points (exact arithmetic), plus the measure-zero boundary w = -1/sqrt(2), where
    1 + 2w|w| = 0, decided exactly at two chains (one per regime)."""
    out = same_sign(derived, printed, ctx, key, [S.p, S.q, S.w], n=n)
    bad = 0
    for pp, qq in ((sp.Rational(9, 10), sp.Rational(9, 10)), (sp.Rational(1, 10), sp.Rational(1, 5))):
        pt = {S.p: pp, S.q: qq, S.w: -1 / sp.sqrt(2)}
        bad += bool(sp.sympify(derived).xreplace(pt)) != bool(sp.sympify(printed).xreplace(pt))
    ok = out.ok and bad == 0
    return Outcome(ok, out.method, f"{out.evidence} at {n} random points; {bad} on the boundary w = -1/sqrt(2)")


def compare_critical_sets(derived, form: dict, ctx: Context, branches=None) -> tuple[bool, list[str]]:
    """Derived critical families (`CriticalSet`s, by name) against the printed ones.

    `form[name]` is a tuple of (lhs, rhs) equations, optionally followed by one condition; the equations
    are compared in order with `identity` (on `branches`), the conditions with `same_condition`.
    Returns (ok, notes); the caller adds its own evidence that the printed sets are critical.
    """
    notes, ok = [], set(derived) == set(form)
    if not ok:
        notes.append(f"names differ: derived {sorted(derived)} vs printed {sorted(form)}")
    for name, cs in derived.items():
        if name not in form:
            continue
        eqs = [x for x in form[name] if isinstance(x, tuple)]
        cond = [x for x in form[name] if not isinstance(x, tuple)]
        d_eqs = [x for x in cs.equations if isinstance(x, sp.Eq)]
        if len(eqs) != len(d_eqs):
            ok = False
            notes.append(f"{name}: {len(d_eqs)} derived equations vs {len(eqs)} printed")
            continue
        for (lhs, rhs), eq in zip(eqs, d_eqs):
            o = identity(eq.lhs - eq.rhs, lhs - rhs, ctx, f"sets/{name}", branches=branches)
            ok &= o.ok
            if not o.ok:
                notes.append(f"{name}: equation {eq} vs {lhs} = {rhs}: {o.evidence}")
        if cond or cs.condition is not sp.true:
            o = same_condition(cs.condition, cond[0] if cond else sp.true, ctx, f"cond/{name}")
            ok &= o.ok
            notes.append(f"{name} condition: {o.evidence}")
    return ok, notes
