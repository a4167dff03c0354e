r"""Stable float64 engine (numpy, vectorised) for the reduced canonical loss of Sec. 3 / Lemmas 5-8.

What it computes, over arrays of (e, w) for one chain (p, q):
  A = e^2 (1 + 2 w|w|)                          (the logit slope, `canonical_model().A`)
  c*(A) = log u*,  b* = c* + e^2/2              (Lemma 5's positive root, `symbolic.bias`)
  L(e, w) = G(A) = F(A, c*(A))                  (Eq. 5; F as in `symbolic.bias.F`)
  grad L = G'(A) grad A,  Hess L = G''(A) grad A grad A^T + G'(A) Hess A   (`symbolic.landscape.structure`)
  E(e, w) = e^2 - (w^2 + sign(w) log|w|)        (Eq. 11, the derived energy, lambdified; w != 0)

This is a *stable rewrite* of the derived expressions, not a copy: every piece is held against the
derived SymPy expressions by `tests/test_engine.py` through the mpmath path (`numeric.Landscape`).
The polynomial pieces (A, grad A, Hess A, the stationary law, the transition probabilities) are
lambdified from the symbolic derivation itself; only the transcendental pieces are rewritten:

* Lemma 5's root in log space.  With d = p - q and D = d^2 + 4 p q e^A, the derived root
  ``u_star`` = (d + sqrt D) / (2 q e^A) cancels when d < 0, its conjugate form ``u_star_stable``
  = 2p / (-d + sqrt D) cancels when d > 0; we use the one that adds two non-negative numbers:
      d >= 0:  A + c* = log(d + sqrt D) - log(2q)          (c* = (A + c*) - A)
      d <  0:  c*     = log(2p) - log(-d + sqrt D)
  For |A| <= 1 the root is expanded around A = 0 with expm1/log1p (the direct form loses the small
  c* = -A/2 + O(p - q) to the rounding of log near 1). For 1 < |A| <= 700 it is evaluated directly,
  and then e^{-|c*|}, e^{-|A+c*|} come from u* and K u* without further exp. Beyond (e^A overflows
  above 709 and underflows below -745), log(|d| + sqrt D) is formed in log space: (log 4pq + A)/2 for
  A > 700 (the dropped terms are below 1e-140 relative when pq > 1e-200), and
  log(2|d|) + log1p(rho / (2(1 + sqrt(1 + rho)))), rho = 4pq e^A / d^2, for A < -700 (logaddexp when
  d = 0). Both c* and A + c* are kept: each is needed without the cancellation of forming it from
  the other.
* F(A, c) = pi0 [P00 s(c) + P01 s(-c)] + pi1 [P10 s(A+c) + P11 s(-(A+c))], s = softplus, written as
  log1p(e^{-|x|}) + P_x0 max(x, 0) + P_x1 max(-x, 0): non-negative terms only (forming s(-x) as
  s(x) - x, or 1 - P in float, would cancel when p or q is close to 0 or 1).
* G'(A) = F_A(A, c*) = pi1 (sigma(A + c*) - P11) (envelope argument), formed as P10 - sigma(-(A+c*))
  when A + c* >= 0.
* G''(A) = pi0 pi1 sigma'(c) sigma'(A+c) / (pi0 sigma'(c) + pi1 sigma'(A+c)), evaluated as a
  harmonic combination in log space (log sigma'(x) = x - 2 softplus(x)), so it underflows
  gracefully to 0 instead of producing 0/0.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import sympy as sp

from local2global.symbolic import symbols as S
from local2global.symbolic.markov import MarkovChain
from local2global.symbolic.model import canonical_model
from local2global.symbolic.sets import holds

_M = canonical_model()

#: beyond this |A| the direct form would overflow/underflow e^A; switch to log space
_A_DIRECT = 700.0
#: below this |A| the root is formed around its value at A = 0 (expm1/log1p), exact when p ~ q
_A_NEAR = 1.0


@lru_cache(maxsize=None)
def numpy_table(attention: bool = False) -> dict:
    """The derived expressions the float64 code evaluates, lambdified once per model (module numpy):
    A, grad A, Hess A, E, the chain constants, A*, g(w), E_sad, w_sad, the sign of Θmin's condition and,
    with attention, Θ* as a graph a(e, w)."""
    from local2global.symbolic import energy as senergy
    from local2global.symbolic import landscape as sland
    m = canonical_model(attention)
    v = m.params
    hA = m.hess_A
    chain = MarkovChain()
    mods = ["numpy"]
    ew = senergy.energy_on_w_axis()
    out = {
        "A": sp.lambdify(v, m.A, mods),
        "E": sp.lambdify(v, m.energy, mods),
        "grad_A": [sp.lambdify(v, g, mods) for g in m.grad_A],
        "hess_A": [[sp.lambdify(v, hA[i, j], mods) for j in range(len(v))] for i in range(len(v))],
        # P(Y=y | X=x) for all four (x, y): 1 - P is never formed in float (it loses q when q << 1)
        "chain": sp.lambdify((S.p, S.q), (chain.pi0, chain.pi1) + tuple(chain.transition(x, y) for x in (0, 1) for y in (0, 1)), mods),
        "A_star": sp.lambdify((S.p, S.q), sland.A_star(), mods),
        "g": sp.lambdify(S.w, senergy.g_of_w().subs(S.w_neg, S.w), mods),
        "E_sad": float(ew["E_sad"]), "w_sad": float(ew["w_sad"]),
        "min_sign": sp.lambdify((S.p, S.q, S.w), {cs.name: cs for cs in m.critical_sets()}["Theta_min"].condition.lhs, mods),
    }
    if attention:
        a_star = sp.solve(sp.Eq(m.A, sland.A_star()), S.a)          # Θ* as a graph a(e, w)
        if len(a_star) != 1:
            raise AssertionError(f"A = A* is not one graph over (e, w): {a_star}")
        out["a_on_star"] = sp.lambdify((S.p, S.q, S.e, S.w), a_star[0], mods)
    return out


def _polynomial_pieces():
    return numpy_table(False)


def _check_pq(p, q) -> tuple[float, float]:
    p, q = float(p), float(q)
    if not (0.0 < p < 1.0 and 0.0 < q < 1.0):
        raise ValueError(f"p and q must lie in (0, 1), got p={p!r}, q={q!r}")
    return p, q


def slope_A(e, w) -> np.ndarray:
    r"""$A(e, w) = e^2(1 + 2w|w|)$ (lambdified from `canonical_model().A`)."""
    return np.asarray(_polynomial_pieces()["A"](np.asarray(e, float), np.asarray(w, float)), dtype=float)


def _sigmoid(x):
    t = np.exp(-np.abs(x))
    return np.where(x >= 0, 1.0 / (1.0 + t), t / (1.0 + t))


def offsets(p, q, A) -> tuple[np.ndarray, np.ndarray]:
    r"""$(c^\star(A), A + c^\star(A))$ with $c^\star = \log u^\star$ of Lemma 5, cancellation-free, any real A.

    Assumes (p, q) in (0,1)^2. See the module docstring for the choice of form.
    """
    c, Ac, _, _ = _offsets_and_tails(p, q, A)
    return c, Ac


def _offsets_and_tails(p, q, A):
    """(c*, A + c*, e^{-|c*|}, e^{-|A + c*|}); the tails come for free from u* and K u* where e^A is finite."""
    p, q = _check_pq(p, q)
    A0 = np.asarray(A, dtype=float)
    A = A0.reshape(-1)
    d = p - q
    ad = abs(d)
    c = np.empty_like(A)
    Ac = np.empty_like(A)
    t0 = np.empty_like(A)
    t1 = np.empty_like(A)
    absA = np.abs(A)
    near = absA <= _A_NEAR
    big = absA > _A_DIRECT
    mid = ~(near | big)
    with np.errstate(divide="ignore"):
        if mid.all():
            idx, Am = slice(None), A
        else:
            idx = np.flatnonzero(mid)
            Am = A[idx]
        if Am.size:
            K = np.exp(Am)
            s = ad + np.sqrt(d * d + (4.0 * p * q) * K)       # |d| + sqrt D, a sum of non-negatives
            if d >= 0:
                Ku = s / (2.0 * q)                            # e^{A + c*}
                lAc = np.log(Ku)
                Ac[idx], c[idx] = lAc, lAc - Am
                u = Ku / K
            else:
                u = (2.0 * p) / s                             # e^{c*} = u_star_stable
                lc = np.log(u)
                c[idx], Ac[idx] = lc, lc + Am
                Ku = u * K
            t0[idx] = np.minimum(u, 1.0 / u)
            t1[idx] = np.minimum(Ku, 1.0 / Ku)
        if big.any():
            ib = np.flatnonzero(big)
            Ab = A[ib]
            out = np.empty_like(Ab)                           # log(|d| + sqrt D)
            # (the shortcut below needs 4pq > 1e-200, true for p, q >= 1e-100; else exact log space)
            pos = Ab > 0 if 4.0 * p * q > 1e-200 else np.zeros(Ab.shape, bool)
            # A > 700: sqrt D >= 2 sqrt(pq) e^350 > 1e146 |d| and d^2 < 1e-290 * 4pqK, so
            # log(|d| + sqrt D) = (log 4pq + A)/2 to the last bit (the dropped terms are below 1e-140 relative)
            out[pos] = 0.5 * (np.log(4.0 * p * q) + Ab[pos])
            neg = ~pos
            if neg.any():
                if ad == 0.0 or not 4.0 * p * q > 1e-200:
                    lsd = 0.5 * np.logaddexp(2.0 * np.log(ad), np.log(4.0 * p * q) + Ab[neg])
                    out[neg] = np.logaddexp(np.log(ad), lsd)
                else:
                    # A < -700: |d| + sqrt D = |d| (1 + sqrt(1 + rho)), rho = 4pqK/d^2, and
                    # log(1 + sqrt(1+rho)) = log 2 + log1p(rho / (2 (1 + sqrt(1+rho))))
                    lrho = np.log(4.0 * p * q) + Ab[neg] - 2.0 * np.log(ad)
                    rho = np.exp(np.minimum(lrho, 600.0))
                    val = np.log(2.0 * ad) + np.log1p(rho / (2.0 * (1.0 + np.sqrt(1.0 + rho))))
                    huge = lrho > 600.0                       # only if |d| < e^-300: exact log space
                    if huge.any():
                        lsd = 0.5 * np.logaddexp(2.0 * np.log(ad), np.log(4.0 * p * q) + Ab[neg][huge])
                        val[huge] = np.logaddexp(np.log(ad), lsd)
                    out[neg] = val
            if d >= 0:
                Ac[ib] = out - np.log(2.0 * q)
                c[ib] = Ac[ib] - Ab
            else:
                c[ib] = np.log(2.0 * p) - out
                Ac[ib] = Ab + c[ib]
        if near.any():
            # D = (p+q)^2 (1 + r), r = 4pq expm1(A)/(p+q)^2 > -1 + e^-1 here; sqrt(1+r) - 1 = r/(1 + sqrt(1+r)),
            # so |d| + sqrt D = 2 max(p, q) + (p+q) delta: log(p/q) +- log1p is exact where A ~ 0 (p = q: c* = -A/2)
            i_n = np.flatnonzero(near)
            An = A[i_n]
            r = (4.0 * p * q / (p + q) ** 2) * np.expm1(An)
            delta = (p + q) * (r / (1.0 + np.sqrt(1.0 + r)))
            if d >= 0:
                Ac[i_n] = np.log(p / q) + np.log1p(delta / (2.0 * p))
                c[i_n] = Ac[i_n] - An
            else:
                c[i_n] = np.log(p / q) - np.log1p(delta / (2.0 * q))
                Ac[i_n] = An + c[i_n]
        rest = np.flatnonzero(~mid)
        if rest.size:
            t0[rest] = np.exp(-np.abs(c[rest]))
            t1[rest] = np.exp(-np.abs(Ac[rest]))
    shape = A0.shape
    return c.reshape(shape), Ac.reshape(shape), t0.reshape(shape), t1.reshape(shape)


def c_star(p, q, A) -> np.ndarray:
    r"""$c^\star(A) = b^\star - e^2/2$ (Lemma 5), cancellation-free; see `offsets`."""
    return offsets(p, q, A)[0]


def b_star(p, q, e, w) -> np.ndarray:
    r"""$b^\star(e, w) = c^\star(A(e, w)) + e^2/2$: the optimal bias of Lemma 5."""
    e = np.asarray(e, float)
    return c_star(p, q, slope_A(e, w)) + 0.5 * e * e


def _F_and_FA(pi0, pi1, P00, P01, P10, P11, c, Ac, t0, t1):
    r"""$F(A, c)$ and $F_A = \pi_1(\sigma(A+c) - P_{11})$ from (c, A + c), without cancellation.

    P_x0 s(x) + P_x1 s(-x) = log1p(e^{-|x|}) + P_x0 max(x, 0) + P_x1 max(-x, 0): non-negative terms
    (forming s(-x) as s(x) - x would cancel when P is close to 1).  sigma(x) - P is formed as
    sigma(x) - P11 for x < 0 and as P10 - sigma(-x) for x >= 0, so the two terms subtracted are
    each accurate to a few ulps (the remaining cancellation near A* is intrinsic to G').
    """
    G = (pi0 * (np.log1p(t0) + P00 * np.maximum(c, 0.0) + P01 * np.maximum(-c, 0.0))
         + pi1 * (np.log1p(t1) + P10 * np.maximum(Ac, 0.0) + P11 * np.maximum(-Ac, 0.0)))
    small = t1 / (1.0 + t1)                     # sigma(-|A+c|)
    G1 = pi1 * np.where(Ac >= 0, P10 - small, small - P11)
    return G, G1


def G_parts(p, q, A):
    r"""$(G(A), G'(A), G''(A), c^\star(A))$: the reduced loss as a function of A (Sec. 3 / App. E)."""
    p, q = _check_pq(p, q)
    pi0, pi1, P00, P01, P10, P11 = _polynomial_pieces()["chain"](p, q)
    A = np.asarray(A, dtype=float)
    c, Ac, t0, t1 = _offsets_and_tails(p, q, A)
    G, G1 = _F_and_FA(pi0, pi1, P00, P01, P10, P11, c, Ac, t0, t1)
    sp0 = np.maximum(c, 0.0) + np.log1p(t0)
    sp1 = np.maximum(Ac, 0.0) + np.log1p(t1)
    # log sigma'(x) = x - 2 softplus(x); G'' = 1 / (1/(pi1 sigma'(A+c)) + 1/(pi0 sigma'(c)))
    l0 = np.log(pi0) + c - 2.0 * sp0
    l1 = np.log(pi1) + Ac - 2.0 * sp1
    G2 = np.exp(-np.logaddexp(-l0, -l1))
    return G, G1, G2, c


@dataclass(frozen=True)
class EngineValues:
    """Arrays over the input shape: A, b*, L, grad (..., 2) and Hessian (..., 2, 2), order (e, w)."""

    A: np.ndarray
    b_star: np.ndarray
    loss: np.ndarray
    grad: np.ndarray
    hessian: np.ndarray


def _grad_hess_A(e, w, hessian=True):
    P = _polynomial_pieces()
    gA = np.stack([np.broadcast_to(f(e, w), np.broadcast(e, w).shape).astype(float) for f in P["grad_A"]], axis=-1)
    if not hessian:
        return gA, None
    shape = np.broadcast(e, w).shape
    hA = np.empty(shape + (2, 2))
    for i in range(2):
        for j in range(2):
            hA[..., i, j] = np.broadcast_to(P["hess_A"][i][j](e, w), shape)
    return gA, hA


def evaluate(p, q, e, w) -> EngineValues:
    r"""A, b*, $L(e, w)$, $\nabla L$ and $\nabla^2 L$ (order e, w) of the reduced loss, over arrays.

    The Hessian uses d^2(w|w|)/dw^2 = 2 sign(w), undefined at w = 0 where the formula gives 0
    (as `symbolic._symbols.hessian`).
    """
    e, w = np.broadcast_arrays(np.asarray(e, float), np.asarray(w, float))
    A = slope_A(e, w)
    G, G1, G2, c = G_parts(p, q, A)
    gA, hA = _grad_hess_A(e, w)
    grad = G1[..., None] * gA
    hess = G2[..., None, None] * gA[..., :, None] * gA[..., None, :] + G1[..., None, None] * hA
    return EngineValues(A=A, b_star=c + 0.5 * e * e, loss=G, grad=grad, hessian=hess)


#: block length for long arrays: the ~20 temporaries of one block stay in cache (a plain numpy
#: pipeline over 10^6 cells is bound by memory traffic, not by the arithmetic)
_BLOCK = 1 << 14


def loss_and_grad(p, q, e, w) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""$(L, \partial_e L, \partial_w L)$ on arrays: the fast path for grids and flows (no Hessian).

    Same formulas as `evaluate`, with grad A written out and no G''; long arrays are processed in
    cache-sized blocks (elementwise, so the result does not depend on the blocking).
    """
    p, q = _check_pq(p, q)
    return blocked(_loss_and_grad_flat, p, q, e, w)


def blocked(fn, p, q, e, w, block: int = _BLOCK) -> tuple:
    """fn(p, q, e, w) -> (L, dL/de, dL/dw), elementwise, applied in cache-sized blocks of the flattened
    arrays (the result does not depend on the blocking; the benchmark uses it on the authors' form too)."""
    e, w = np.broadcast_arrays(np.asarray(e, float), np.asarray(w, float))
    shape = e.shape
    if e.size <= block:
        return tuple(fn(p, q, e, w))
    ef, wf = e.reshape(-1), w.reshape(-1)
    out = [np.empty(ef.size) for _ in range(3)]
    for i in range(0, ef.size, block):
        sl = slice(i, i + block)
        for o, r in zip(out, fn(p, q, ef[sl], wf[sl])):
            o[sl] = r
    return tuple(o.reshape(shape) for o in out)


def _loss_and_grad_flat(p, q, e, w):
    pi0, pi1, P00, P01, P10, P11 = _polynomial_pieces()["chain"](p, q)
    e2 = e * e
    aw = np.abs(w)
    m = 1.0 + 2.0 * (w * aw)                    # 1 + 2 w|w|
    A = e2 * m                                  # slope_A; identical to the lambdified form (tested)
    c, Ac, t0, t1 = _offsets_and_tails(p, q, A)
    G, G1 = _F_and_FA(pi0, pi1, P00, P01, P10, P11, c, Ac, t0, t1)
    # grad A = (2e(1 + 2w|w|), 4 e^2 |w|)
    ge = G1 * (2.0 * e * m)
    gw = G1 * (4.0 * e2 * aw)
    return G, ge, gw


def energy(e, w) -> np.ndarray:
    r"""$E(e, w) = e^2 - (w^2 + \mathrm{sign}(w)\log|w|)$ (Eq. 11, lambdified from the derived energy), w != 0.

    Undefined on the e-axis (w = 0), where it returns nan (the axis is invariant, Lemma 1).
    """
    e, w = np.broadcast_arrays(np.asarray(e, float), np.asarray(w, float))
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.asarray(_polynomial_pieces()["E"](e, w), dtype=float)
    return np.where(w == 0, np.nan, out)


def loss_grad_table(p, q, ew) -> np.ndarray:
    r"""Rows $(L, \partial_e L, \partial_w L)$ for rows (e, w) of `ew` (shape (n, 2)): a picklable task for
    `numeric.infra.executor.map_array_chunks` (use functools.partial(loss_grad_table, p, q))."""
    ew = np.asarray(ew, float).reshape(-1, 2)
    return np.stack(loss_and_grad(p, q, ew[:, 0], ew[:, 1]), axis=-1)


@lru_cache(maxsize=None)
def _basin_conditions(regime: str):
    """The sets of Thm 2 / Thm 8 (`symbolic.basins`), each piece's conditions lambdified for numpy."""
    from local2global.symbolic import basins as sbasins
    out = []
    for bset in sbasins.basins(regime):
        pieces = None if bset.pieces is None else [
            [(sp.lambdify((S.e, S.w), ex, "numpy"), op) for ex, op in pc.conditions] for pc in bset.pieces]
        out.append((bset.name, pieces))
    return out


def basin_labels(regime: str, e, w) -> np.ndarray:
    r"""The basin of Thm 2 (regime "p+q>1") or Thm 8 ("p+q<1") of each start (e, w), over arrays: the
    names of `symbolic.basins.basins(regime)` ("I_sad", "I_max", "I_min", "I_star"), first match wins.

    The derived conditions are evaluated in float64 (complex where g(w) is not real, which no piece
    reaches: its w < 0 test comes first); "== 0" pieces are the measure-zero sets and hold only exactly.
    """
    e, w = np.broadcast_arrays(np.asarray(e, float), np.asarray(w, float))
    labels = np.full(e.shape, "", dtype=object)
    free = np.ones(e.shape, bool)
    for name, pieces in _basin_conditions(regime):
        if pieces is None:
            hit = free.copy()
        else:
            hit = np.zeros(e.shape, bool)
            for conds in pieces:
                ok = free.copy()
                for fn, op in conds:
                    with np.errstate(all="ignore"):
                        val = np.asarray(fn(e.astype(complex) if op != "==" else e, w.astype(complex)), complex)
                    real = np.abs(val.imag) <= 1e-12 * (1 + np.abs(val.real))
                    ok &= real & holds(op, np.where(real, val.real, np.nan))
                hit |= ok
        labels[hit] = name
        free &= ~hit
    return labels
