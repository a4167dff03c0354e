r"""The attention scalar a: the rank-one model with linear attention (Sec. 4.1, App. G, N).

Everything is *computed*: the attention output of the rank-one transformer with linear attention
(formula sheet §7: att_{n,i} = (1/n) <q_n, k_i>/sqrt(d), W_Q^T W_K = kappa alpha alpha^T,
W_V = alpha v^T, alpha a unit vector) is evaluated with explicit SymPy matrices on bit sequences of
length 1..3, then pushed through the feed-forward layer and the tied head of `canonical`, on every
sign branch of e, w and of the attention gain s = 1 + a e^2. From it:

* the logit of Eq. 41, z_X = A X + z_0 with slope A(e, w, a) = e^2 (1 + a e^2)(1 + 2w|w|) and offset
  z_0 = b + e^2 (w|w| |1 + a e^2| - (1 + a e^2)(1 + 2w|w|)/2) (the offset is *not* b - e^2/2);
* the loss with bias L(e, w, a, b) = F(A, z_0) with F of `bias` (so Lemma 5's quadratic gives b*,
  Lemma 13), the reduced loss L(e, w, a) = G(A) with G of `bias`/`landscape.structure`;
* gradients (Lemma 13), critical points by solving grad L = 0 in R^4 (Thm 9) and R^3 (Thm 10);
* the energy (Eq. 12/49), integrated from the flow equations, and grad E . grad L = 0 (Lemma 14);
* the class of Theta_station (Remark 5 leaves it open): strict saddles of the reduced loss in R^3
  (Hessian G'(0) Hess A with eigenvalues of both signs), and non-extremal critical points of the
  non-C^2 loss in R^4.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import lru_cache

import sympy as sp

from . import bias as _bias
from . import landscape as _land
from ._result import Result
from ._symbols import A as A_sym, X, a, b, c as c_sym, e, e_neg, e_pos, sigma, w, w_neg, w_pos
from ._symbols import hessian as _hess
from .canonical import rank_one_parameters
from .markov import MarkovChain

CHAIN = MarkovChain()


def _structure(chain: MarkovChain):
    """`landscape.structure` through one cache entry for the symbolic chain (structure() and
    structure(MarkovChain()) are distinct lru_cache keys)."""
    return _land.structure() if chain == CHAIN else _structure(chain)


def _opt_bias(chain: MarkovChain):
    return _bias.derive_optimal_bias() if chain == CHAIN else _opt_bias(chain)

#: the attention gain s = 1 + a e^2 (the factor the attention layer multiplies the embedding by)
s = sp.Symbol("s", real=True)
s_pos = sp.Symbol("s", positive=True)
s_neg = sp.Symbol("s", negative=True)
kappa = sp.Symbol("kappa", real=True)

#: sign branches of (w, s) for expressions in (e, w, a): a = (s - 1)/e^2 makes 1 + a e^2 = s (needs e != 0)
ATT_BRANCHES = {
    f"w{ws}0, 1+ae^2{ss}0": {w: wv, a: (sv - 1) / e**2}
    for (ws, wv), (ss, sv) in itertools.product((( ">", w_pos), ("<", w_neg)), ((">", s_pos), ("<", s_neg)))
}
#: sign branches of w alone (enough for the reduced loss, which sees 1 + a e^2 only polynomially)
W_ONLY = {"w>0": {w: w_pos}, "w<0": {w: w_neg}}

VARS3 = (e, w, a)
VARS4 = (e, w, a, b)


# ---------------------------------------------------------------------------------------------
# The attention output (Eq. 37-40)
# ---------------------------------------------------------------------------------------------

def _alpha_e(alpha_signs, e_val):
    d = len(alpha_signs)
    return sp.sign(e_val) * sp.Matrix(alpha_signs) / sp.sqrt(d)


def attention_output(bits, alpha_signs, e_val, kappa_val=kappa, v=None):
    r"""$y_n = x_n + \sum_{i \le n} att_{n,i} W_V x_i$ at the last position n of the bit sequence `bits`.

    Linear attention $att_{n,i} = \frac1n \langle W_Q x_n, W_K x_i\rangle/\sqrt d$ with the explicit
    rank-one matrices W_K = alpha alpha^T, W_Q = kappa alpha alpha^T (so W_Q^T W_K = kappa alpha alpha^T,
    asserted) and W_V = alpha v^T; alpha is the sign-flipped alpha of `canonical.rank_one_parameters`.
    """
    d = len(alpha_signs)
    v = sp.Matrix(sp.symbols(f"v1:{d + 1}", real=True)) if v is None else v
    token, positional, _, _ = rank_one_parameters(alpha_signs, e_val, sp.Integer(1))
    al = _alpha_e(alpha_signs, e_val)
    W_K = al * al.T
    W_Q = kappa_val * al * al.T
    if sp.expand(W_Q.T * W_K - kappa_val * al * al.T) != sp.zeros(d, d):
        raise AssertionError("W_Q^T W_K != kappa alpha alpha^T")
    W_V = al * v.T
    xs = [x * token + positional for x in bits]
    n = len(bits)
    q_n = W_Q * xs[-1]
    out = xs[-1]
    for x_i in xs:
        att = (q_n.T * (W_K * x_i))[0, 0] / (n * sp.sqrt(d))
        out = out + att * (W_V * x_i)
    return out.applyfunc(sp.expand), al, v


@lru_cache(maxsize=None)
def derive_attention_output(dims: tuple[int, ...] = (1, 2), lengths: tuple[int, ...] = (1, 2, 3)) -> Result:
    r"""Eq. 39-40: $y_n = (1 + a e^2)\, e\,(x_n - 1/2)\,\alpha$ with $a = \kappa\langle v, \alpha\rangle/(4\sqrt d)$.

    For every d, alpha pattern, sign of e and every bit sequence, the output is checked to be a
    multiple g of the embedding e (x_n - 1/2) alpha (rank one, history-independent because
    (x_i - 1/2)^2 = 1/4), and the gain g - 1 is found to equal a e^2 once kappa <v, alpha> is
    written as 4 sqrt(d) a. Raises if any case disagrees.
    """
    combos = set()
    for d in dims:
        for signs in itertools.product((1, -1), repeat=d):
            for ev in (e_pos, e_neg):
                for n in lengths:
                    for bits in itertools.product((0, 1), repeat=n):
                        y, al, v = attention_output(bits, signs, ev)
                        size = ev * sp.sign(ev) * (bits[-1] - sp.Rational(1, 2))   # embedding = size * alpha (|alpha| = 1)
                        gain = sp.expand(sp.expand((al.T * y)[0, 0]) / size)
                        if sp.expand(y - gain * size * al) != sp.zeros(d, 1):
                            raise AssertionError("attention output is not a multiple of the embedding")
                        # gain = 1 + e^2 * (a combination of kappa, v, alpha, d only): that combination is a
                        per_e2 = sp.expand((gain - 1) / ev**2)
                        if ev in per_e2.free_symbols:
                            raise AssertionError(f"attention gain is not 1 + (const) e^2: {gain}")
                        va = sp.expand((v.T * al)[0, 0])
                        if sp.expand(per_e2 - kappa * va / (4 * sp.sqrt(d))) != 0:
                            raise AssertionError(f"gain - 1 != kappa <v, alpha> e^2/(4 sqrt d): {per_e2}")
                        combos.add("kappa <v, alpha>/(4 sqrt d)")
    gains = {1 + a * e**2} if combos == {"kappa <v, alpha>/(4 sqrt d)"} else set()
    if len(gains) != 1:
        raise AssertionError(f"attention gain depends on d, alpha or the history: {gains}")
    gain = gains.pop()
    return Result(
        ref="Eq. 39-40",
        title="Attention output with linear attention",
        assumptions=("e != 0", "unit alpha in {±1}^d/sqrt(d), d in " + str(list(dims)),
                     "sequences of length " + str(list(lengths)), "a = kappa <v, alpha>/(4 sqrt d)"),
        expressions={"gain": gain, "y_over_embedding": gain},
        derivation="Linear attention with W_Q^T W_K = kappa alpha alpha^T, W_V = alpha v^T evaluated on every bit "
                   "sequence: (1/n) sum_i (x_i - 1/2)^2 = 1/4 makes y_n a history-free multiple of the embedding.",
    )


# ---------------------------------------------------------------------------------------------
# The logit (Eq. 41)
# ---------------------------------------------------------------------------------------------

def _ff_logit(x: int, alpha_signs, e_val, w_val, s_val, b_val=b) -> sp.Expr:
    """Feed-forward + tied head applied to y = s * (embedding of x), s the attention gain."""
    token, positional, W1, W2 = rank_one_parameters(alpha_signs, e_val, w_val)
    y_vec = s_val * (x * token + positional)
    hidden = (W1 * y_vec).applyfunc(lambda t: sp.Max(0, sp.expand(t)))
    z_vec = y_vec + W2 * hidden
    return sp.expand((token.T * z_vec)[0, 0] + b_val)


def _glue(f_pos: sp.Expr, f_neg: sp.Expr, var, var_pos, var_neg) -> sp.Expr:
    r"""One expression in `var` equal to f_pos on var > 0 and to f_neg on var < 0.

    f = even + sign(var) odd with even/odd = (f_+ +- f_-)/2; sign(var) var is rewritten |var|
    (so sign(w) w^2 = w|w|, sign(s) s = |s|). The result is checked against both branches.
    """
    fp, fn = sp.expand(f_pos.subs(var_pos, var)), sp.expand(f_neg.subs(var_neg, var))
    even, odd = sp.expand((fp + fn) / 2), sp.expand((fp - fn) / 2)
    terms = []
    for t in sp.Add.make_args(sp.expand(sp.sign(var) * odd)):
        powers = t.as_powers_dict()
        if powers.get(var, 0) >= 1:
            t = sp.expand(t / (sp.sign(var) * var) * sp.Abs(var))
        terms.append(t)
    glued = even + sp.Add(*terms)
    for vb, f in ((var_pos, f_pos), (var_neg, f_neg)):
        if sp.expand(glued.subs(var, vb) - f) != 0:
            raise AssertionError(f"glued expression disagrees with the branch {var} = {vb}")
    return glued


@lru_cache(maxsize=None)
def derive_logit(dims: tuple[int, ...] = (1, 2)) -> Result:
    r"""Eq. 41: $z_X = e^2[(X - \tfrac12)(1+ae^2)(1+2w|w|) + w|w|\,|1+ae^2|] + b$, computed.

    The feed-forward layer and head of the rank-one model are applied to the attention output
    y = s e (x - 1/2) alpha of `derive_attention_output` (gain s), for d in `dims`, every alpha,
    every sign of e, w and s; the branches are glued in w (w|w|) and s (|s|), then s = 1 + a e^2.
    """
    per = {}
    for ev, wv, sv in itertools.product((e_pos, e_neg), (w_pos, w_neg), (s_pos, s_neg)):
        values = set()
        for d in dims:
            for signs in itertools.product((1, -1), repeat=d):
                values.add((_ff_logit(0, signs, ev, wv, sv), _ff_logit(1, signs, ev, wv, sv)))
        if len(values) != 1:
            raise AssertionError(f"logit depends on d or alpha on branch {(ev, wv, sv)}")
        z0, z1 = values.pop()
        per[(ev, wv, sv)] = (z0.subs(ev, e), z1.subs(ev, e))
    for wv, sv in itertools.product((w_pos, w_neg), (s_pos, s_neg)):
        if per[(e_pos, wv, sv)] != per[(e_neg, wv, sv)]:
            raise AssertionError("logit depends on the sign of e")
    glued = []
    for k in (0, 1):
        by_w = {sv: _glue(per[(e_pos, w_pos, sv)][k], per[(e_pos, w_neg, sv)][k], w, w_pos, w_neg)
                for sv in (s_pos, s_neg)}
        glued.append(_glue(by_w[s_pos], by_w[s_neg], s, s_pos, s_neg))
    gain = derive_attention_output()["gain"]
    z0, z1 = (g.subs(s, gain) for g in glued)
    slope = sp.factor(z1 - z0)
    offset = sp.expand(z0 - b)
    return Result(
        ref="Eq. 41",
        title="Canonical logit with the attention scalar",
        assumptions=("any e, w, a, b in R", "d in " + str(list(dims)) + ", every alpha in {±1}^d/sqrt(d)"),
        expressions={"A": slope, "z0": z0, "offset": offset, "logit": slope * X + z0,
                     "logit_in_s": sp.expand((glued[1] - glued[0]) * X + glued[0])},
        derivation="Attention output (gain s = 1 + a e^2) fed through the rank-one ReLU layer and tied head for "
                   "every sign of e, w, s; branches glued as w|w| and |s|.",
    )


def slope_A() -> sp.Expr:
    r"""$A(e, w, a) = z_1 - z_0 = e^2(1 + ae^2)(1 + 2w|w|)$ (derived)."""
    return derive_logit()["A"]


def offset_z0() -> sp.Expr:
    r"""$z_0(e, w, a, b)$: the logit at X = 0 (the offset c of F(A, c)); derived, contains |1 + ae^2|."""
    return derive_logit()["z0"]


def logit(x) -> sp.Expr:
    """z_x(e, w, a, b) for the bit x (0, 1 or a symbol)."""
    return slope_A() * x + offset_z0()


# ---------------------------------------------------------------------------------------------
# Loss, optimal bias, reduced loss (Lemma 13)
# ---------------------------------------------------------------------------------------------

def loss_with_bias(chain: MarkovChain = CHAIN) -> sp.Expr:
    """L(e, w, a, b) = E[l_log((2Y-1) z_X)] with the derived logit (Eq. 41)."""
    return _bias.logistic_loss(chain, logit)


@lru_cache(maxsize=None)
def derive_optimal_bias(chain: MarkovChain = CHAIN) -> Result:
    r"""Lemma 13: $b^\star(e, w, a) = c^\star(A(e,w,a)) - (z_0 - b)$, with $c^\star$ the root of Lemma 5.

    L(e, w, a, b) = F(A, z_0) (checked exactly), and z_0 = b + offset(e, w, a) with dz_0/db = 1, so
    dL/db = F_c(A, z_0): the same quadratic q K u^2 + (q-p) u - p = 0 in u = exp(z_0), K = exp(A), with
    the same unique positive root. At a = 0, A and z_0 - b reduce to e^2(1+2w|w|), -e^2/2 (Lemma 5).
    """
    L4 = loss_with_bias(chain)
    via_F = _bias.F(chain).subs({A_sym: slope_A(), c_sym: offset_z0()})
    if sp.expand(L4 - via_F) != 0:
        raise AssertionError("L(e, w, a, b) != F(A, z0)")
    dLdb = sp.diff(L4, b)
    dFdc = sp.diff(_bias.F(chain), c_sym).subs({A_sym: slope_A(), c_sym: offset_z0()})
    if sp.expand(dLdb - dFdc) != 0:
        raise AssertionError("dL/db != F_c(A, z0)")
    opt = _opt_bias(chain)
    offset = derive_logit()["offset"]
    c_star = opt["c_star"]
    b_star = c_star.subs(A_sym, slope_A()) - offset
    return Result(
        ref="Lemma 13",
        title="Optimal bias with attention",
        assumptions=("any e, w, a in R", "(p, q) in (0,1)^2"),
        expressions={"L_via_F": via_F, "dL_db": dLdb, "offset": offset, "c_star": c_star, "b_star": b_star,
                     "b_star_at_a0": b_star.subs(a, 0), "quadratic": opt["quadratic"]},
        derivation="dL/db = F_c(A, z0) because z0 is b plus a function of (e, w, a): Lemma 5's quadratic in "
                   "u = exp(z0) with K = exp(A); b* = log u* - offset.",
    )


def b_star(chain: MarkovChain = CHAIN) -> sp.Expr:
    """b*(e, w, a) of Lemma 13 (derived)."""
    return derive_optimal_bias(chain)["b_star"]


def reduced_loss(chain: MarkovChain = CHAIN) -> sp.Expr:
    r"""Eq. 42: $L(e, w, a) = \min_b L(e, w, a, b) = G(A(e, w, a))$."""
    return _bias.G(chain).subs(A_sym, slope_A())


# ---------------------------------------------------------------------------------------------
# Gradients (Lemma 13)
# ---------------------------------------------------------------------------------------------

def residual_parts(chain: MarkovChain = CHAIN, bias=b) -> tuple[sp.Expr, sp.Expr]:
    """(f1, f2) with sigma(z_X) - P(Y=1|X) = f1 X + f2 (X a bit)."""
    r0 = sigma(logit(0).subs(b, bias)) - chain.transition(0, 1)
    r1 = sigma(logit(1).subs(b, bias)) - chain.transition(1, 1)
    return r1 - r0, r0


@lru_cache(maxsize=None)
def gradient_with_bias(chain: MarkovChain = CHAIN) -> sp.Matrix:
    """grad L(e, w, a, b), order (e, w, a, b), by direct differentiation (defined off 1 + a e^2 = 0)."""
    L = loss_with_bias(chain)
    return sp.Matrix([sp.diff(L, v) for v in VARS4])


def gradient_residual_form(chain: MarkovChain = CHAIN, bias=b) -> sp.Matrix:
    r"""Lemma 13's form: $\nabla L = E_X[(f_1 X + f_2)\,\nabla_\theta z_X]$ (order e, w, a, b)."""
    f1, f2 = residual_parts(chain, bias)
    grads = {x: [sp.diff(logit(x), v).subs(b, bias) for v in VARS4] for x in (0, 1)}
    return sp.Matrix([chain.pi0 * f2 * grads[0][i] + chain.pi1 * (f1 + f2) * grads[1][i] for i in range(4)])


@lru_cache(maxsize=None)
def grad_A() -> sp.Matrix:
    """grad A(e, w, a), order (e, w, a)."""
    return sp.Matrix([sp.diff(slope_A(), v) for v in VARS3])


def reduced_gradient_structure(chain: MarkovChain = CHAIN) -> sp.Matrix:
    r"""$\nabla L(e, w, a) = G'(A)\,\nabla A$ (chain rule through L = G(A)), G' from `landscape.structure`."""
    Gp = _structure(chain)["G_prime"]
    return (Gp.subs(A_sym, slope_A()) * grad_A())


@lru_cache(maxsize=None)
def reduced_gradient_envelope(chain: MarkovChain = CHAIN) -> sp.Matrix:
    """Partial derivatives of L(e, w, a, b) in (e, w, a) at b = b* (envelope argument, Lemma 13)."""
    g = gradient_with_bias(chain)
    bs = b_star(chain)
    return sp.Matrix([g[i].subs(b, bs) for i in range(3)])


def reduced_hessian_structure(chain: MarkovChain = CHAIN) -> sp.Matrix:
    r"""Hessian of L(e, w, a) = G(A): $G''(A)\nabla A\nabla A^T + G'(A)\nabla^2 A$ (off w = 0)."""
    st = _structure(chain)
    cs = _opt_bias(chain)["c_star"]
    G2 = st["G_second"].subs({_land.s0: sigma(c_sym), _land.s1: sigma(A_sym + c_sym)}).subs(c_sym, cs)
    Gp = st["G_prime"]
    gA = grad_A()
    return (G2 * gA * gA.T + Gp * _hess(slope_A(), VARS3)).subs(A_sym, slope_A())


# ---------------------------------------------------------------------------------------------
# Energy (Eq. 12 / 49) and Lemma 14
# ---------------------------------------------------------------------------------------------

@lru_cache(maxsize=None)
def derive_energy() -> Result:
    r"""The energy with attention, integrated from the flow equations (App. N.3).

    The flow is $\dot\theta = -G'(A)\nabla A$, so every ratio of velocities is a ratio of
    components of grad A. Ansatz $e\dot e - k\,a\dot a = m\,\dot w$: the ratio
    $(e A_e - k a A_a)/A_w$ is independent of e and a iff k = 2 (solved), leaving m(w) =
    (1 + 2w|w|)/(2|w|); integrating on each side of w = 0 and gluing gives
    $E = e^2 - 2a^2 - (w^2 + \mathrm{sign}(w)\log|w|)$ (integration constant 0 on each side).
    """
    k = sp.Symbol("k")
    gA = grad_A()
    pieces = {}
    ks = set()
    for lab, sub in W_ONLY.items():
        ratio = sp.cancel(((e * gA[0] - k * a * gA[2]) / gA[1]).subs(sub))
        sol = sp.solve([sp.numer(sp.together(sp.diff(ratio, a))), sp.numer(sp.together(sp.diff(ratio, e)))], k, dict=True)
        if len(sol) != 1:
            raise AssertionError(f"no unique multiplier k on {lab}: {sol}")
        ks.add(sol[0][k])
        m = sp.cancel(ratio.subs(k, sol[0][k]))
        if m.free_symbols - {sub[w]}:
            raise AssertionError(f"m depends on more than w on {lab}: {m}")
        wv = sub[w]
        prim = sp.integrate(sp.apart(m, wv), wv)
        if wv.is_negative:
            prim = prim.subs(sp.log(wv), sp.log(-wv))     # a constant (i pi/2) of integration dropped
        if sp.expand(sp.diff(prim, wv) - m) != 0:
            raise AssertionError("antiderivative check failed")
        # e de - k a da = m dw  =>  e^2/2 - k a^2/2 - prim = const; E = 2 * that
        pieces[lab] = sp.expand(e**2 - sol[0][k] * a**2 - 2 * prim)
    if len(ks) != 1:
        raise AssertionError("multiplier differs between the sides of w = 0")
    L_abs = sp.Symbol("L_abs")
    pos = pieces["w>0"].subs(sp.log(w_pos), L_abs)
    neg = pieces["w<0"].subs(sp.log(-w_neg), L_abs)
    E = _glue(pos, neg, w, w_pos, w_neg).subs(L_abs, sp.log(sp.Abs(w)))
    return Result(
        ref="Eq. 12 / Eq. 49",
        title="Energy with attention",
        assumptions=("w != 0 (the ea-plane w = 0 is invariant)",),
        expressions={"k": ks.pop(), "E": E, "E_w_pos": pieces["w>0"], "E_w_neg": pieces["w<0"]},
        derivation="Integrated e de - 2 a da = (1+2w|w|)/(2|w|) dw, the only combination of the flow "
                   "equations with an (e, a)-free right-hand side, on each side of w = 0.",
    )


def energy() -> sp.Expr:
    r"""$E(e, w, a) = e^2 - 2a^2 - (w^2 + \mathrm{sign}(w)\log|w|)$, as derived (w != 0)."""
    return derive_energy()["E"]


def grad_E() -> sp.Matrix:
    return sp.Matrix([sp.diff(energy(), v) for v in VARS3])


# ---------------------------------------------------------------------------------------------
# Critical points (Thms 9, 10) and Theta_station
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class CriticalSet:
    """A family of critical points from the case analysis, with its class and the argument used."""

    name: str
    equations: tuple
    condition: sp.Basic
    classification: str
    argument: str


@lru_cache(maxsize=None)
def solve_grad_A_zero() -> tuple[dict, ...]:
    """All solutions of grad A(e, w, a) = 0, solved on w > 0, w < 0 and w = 0 (dict per family)."""
    out = []
    gA = grad_A()
    for sub in ({w: w_pos}, {w: w_neg}):
        eqs = [g.subs(sub) for g in gA]
        for sol in sp.solve(eqs, [e, sub[w], a], dict=True):
            out.append({"w_branch": str(sp.sign(sub[w])), **{str(k): v for k, v in sol.items()}})
    # w = 0: A_w = 4|w| e^2 (1+ae^2) vanishes; A_a = e^4 (1 + 0) forces e = 0
    at0 = [g.subs(w, 0) for g in gA]
    for sol in sp.solve([x for x in at0 if x != 0], [e, a], dict=True):
        out.append({"w_branch": "0", "w": sp.Integer(0), **{str(k): v for k, v in sol.items()}})
    return tuple(out)


def _station_families():
    """Split the solutions of grad A = 0 into {e = 0} and the e != 0 family (Theta_station)."""
    fams = solve_grad_A_zero()
    e0 = [f for f in fams if f.get("e") == 0]
    rest = [f for f in fams if f.get("e") != 0]
    return e0, rest


@lru_cache(maxsize=None)
def critical_points(chain: MarkovChain = CHAIN, space: str = "R3") -> tuple[CriticalSet, ...]:
    r"""All critical points of L(e, w, a) (Thm 10, "R3") or L(e, w, a, b) (Thm 9, "R4"), by solving.

    R3: grad L = G'(A) grad A, so either G'(A) = 0 (A = A*, G strictly convex) or grad A = 0,
    solved branch by branch: e = 0, or e != 0 with 1 + 2w|w| = 0 and 1 + a e^2 = 0 (Theta_station).
    R4: L = F(A, z0) with dz0/db = 1, so the b-row is F_c = 0 and the rest reduces to F_A grad A = 0;
    on 1 + a e^2 = 0 (where z0 has a kink) the one-sided gradients differ by F_c times the jump of
    grad z0, which vanishes exactly because F_c = 0. At every critical point with grad A = 0, A = 0 and
    z0 = b, so b = c*(0) = log(p/q).
    """
    e0, rest = _station_families()
    if not e0 or not rest:
        raise AssertionError("grad A = 0 did not split into e = 0 and a station family")
    for f in rest:
        if sp.simplify(f["w"] + 1 / sp.sqrt(2)) != 0 or sp.expand(1 + f["a"] * e**2) != 0:
            raise AssertionError(f"unexpected e != 0 solution of grad A = 0: {f}")
    st = _structure(chain)
    A_star = st["A_star"]
    b0 = sp.log(chain.p / chain.q)
    t = 1 + 2 * w * sp.Abs(w)
    regime = (chain.p + chain.q - 1) * t
    station_eqs = (sp.Eq(1 + a * e**2, 0), sp.Eq(t, 0), sp.Ne(e, 0))
    lam = theta_station_hessian(chain)["eigenvalues"]
    if space == "R3":
        return (
            CriticalSet("Theta_star", (sp.Eq(slope_A(), A_star),), sp.true, "global_min",
                        "G'(A) = 0 only at A* (G strictly convex, G'(A*) = 0) and G(A*) = min G."),
            CriticalSet("Theta_min", (sp.Eq(e, 0),), regime > 0, "local_min",
                        "Near e = 0, 1 + ae^2 > 0, so A has the sign of 1+2w|w|; G(A) >= G(0) + G'(0) A >= G(0)."),
            CriticalSet("Theta_max", (sp.Eq(e, 0),), regime < 0, "local_max",
                        "G'(0) A < 0 for small A != 0 nearby, so G(A) <= G(0): non-strict local maximum."),
            CriticalSet("Theta_sad", (sp.Eq(e, 0), sp.Eq(w, -1 / sp.sqrt(2))), sp.true, "saddle",
                        "1+2w|w| changes sign across w = -1/sqrt(2): A takes both signs in every neighbourhood."),
            CriticalSet("Theta_station", station_eqs, sp.true, "saddle",
                        "Strict saddle: grad A = 0 there, so Hess L = G'(0) Hess A, with eigenvalues "
                        f"{lam} (one positive, one negative when p+q != 1)."),
        )
    zb = sp.Eq(b, b0)
    return (
        CriticalSet("Gamma_star", (sp.Eq(slope_A(), A_star), sp.Eq(offset_z0(), _opt_bias(chain)["c_star"].subs(A_sym, A_star))),
                    sp.true, "global_min", "grad F = 0 at (A*, c*), F jointly strictly convex."),
        CriticalSet("Gamma_min", (sp.Eq(e, 0), zb), regime > 0, "local_min",
                    "L(e,w,a,b) >= G(A) >= G(0) + G'(0) A >= G(0) nearby."),
        CriticalSet("Gamma_sad", (sp.Eq(e, 0), zb), regime <= 0, "saddle",
                    "L increases along b and decreases along (theta, b*(theta)) where G'(0) A < 0."),
        CriticalSet("Gamma_station", station_eqs + (zb,), sp.true, "saddle",
                    "Not C^2 (z0 has |1+ae^2|), but L(theta, b) >= G(A(theta)) with equality at b*: moving b "
                    "alone raises L (F strictly convex in c); moving along (theta(t), b*(theta(t))) in the "
                    "negative eigendirection of Hess G(A) lowers it."),
    )


@lru_cache(maxsize=None)
def theta_station_hessian(chain: MarkovChain = CHAIN) -> Result:
    r"""Remark 5 settled: the Hessian of the *reduced* loss on Theta_station and its eigenvalues.

    Near Theta_station (w = -1/sqrt 2 != 0) A is a polynomial in (e, w, a) on the branch w < 0 and G
    is analytic, so L(e, w, a) = G(A) is analytic and its Hessian exists (Remark 5's "undefined"
    Hessian is that of L(e, w, a, b), whose offset z0 has the kink |1 + ae^2|). With grad A = 0 at
    the point, Hess L = G'(0) Hess A; Hess A = e^2 (grad s grad t^T + grad t grad s^T) with
    s = 1 + ae^2, t = 1 + 2w|w|, grad s . grad t = 0, so the eigenvalues are
    +- G'(0) e^2 |grad s||grad t| and 0: a strict saddle whenever G'(0) = pi0 pi1 (p+q-1) != 0.
    """
    es = sp.Symbol("e", positive=True)     # e^2 is what matters; |e| covers both signs
    point = {w: -1 / sp.sqrt(2), a: -1 / es**2, e: es}
    HA = _hess(slope_A().subs(w, w_neg), (e, w_neg, a)).subs({w_neg: w}).subs(point)
    HA = HA.applyfunc(sp.simplify)
    gA0 = grad_A().subs(w, w_neg).subs(w_neg, w).subs(point).applyfunc(sp.simplify)
    if gA0 != sp.zeros(3, 1):
        raise AssertionError("grad A does not vanish on Theta_station")
    Gp0 = _structure(chain)["G_prime_at_0"]
    H = (Gp0 * HA).applyfunc(sp.factor)
    lam_A = [sp.simplify(l) for l in HA.eigenvals(multiple=True)]
    lam = [sp.factor(Gp0 * l) for l in lam_A]
    det2 = sp.factor(sp.simplify(HA[0, 1] ** 2 + HA[1, 2] ** 2 + HA[0, 2] ** 2))
    return Result(
        ref="Remark 5 / Thm 10 (Theta_station)",
        title="Theta_station: strict saddles of the reduced loss",
        assumptions=("e != 0 (|e| written e > 0)", "a = -1/e^2, w = -1/sqrt(2)", "p + q != 1 for strictness"),
        expressions={"grad_A": gA0, "hess_A": HA, "hessian": H, "eigenvalues_A": lam_A, "eigenvalues": lam,
                     "G_prime_at_0": Gp0, "trace_hess_A": sp.simplify(HA.trace()), "offdiag_sq": det2},
        derivation="Hess L = G''(0) grad A grad A^T + G'(0) Hess A at a point where grad A = 0; eigenvalues of "
                   "Hess A computed exactly on the parametrised station curve.",
    )


def station_directions() -> dict:
    r"""Unit-free eigen-directions of Hess A at Theta_station, as functions of e (> 0 wlog).

    Returned as vectors in (e, w, a): `up` with u^T Hess A u > 0 and `down` with < 0, plus `along`
    the curve (kernel). Used by the numeric confirmation of the saddle.
    """
    es = sp.Symbol("e", positive=True)
    res = theta_station_hessian()
    HA = res["hess_A"]
    out = {}
    for val, mult, vecs in HA.eigenvects():
        v = vecs[0].applyfunc(sp.simplify)
        sgn = sp.sign(sp.simplify(val.subs(es, 1)))
        out[{1: "up", -1: "down", 0: "along"}[int(sgn)]] = (sp.simplify(val), v)
    return out
