r"""The canonical rank-one parameterization (Sec. 3, App. C) and the logits it produces (Eq. 3, Eq. 41).

The logits are *computed* by running the rank-one transformer of formula sheet §2-3 symbolically with
explicit SymPy matrices (embedding, attention, ReLU feed-forward, tied linear head), on every sign
branch, for several d and every sign pattern alpha:

* without attention (W_V = 0, Eq. 3): z_X = e^2(1 + 2w|w|) X + b - e^2/2;
* with linear attention (formula sheet §7: W_Q^T W_K = kappa alpha alpha^T, W_V = alpha v^T), the
  attention output is the embedding times the gain 1 + a e^2 (Eq. 39-40), and then (Eq. 41)
  z_X = e^2[(X - 1/2)(1 + ae^2)(1 + 2w|w|) + w|w| |1 + ae^2|] + b.

Both go through the same feed-forward layer and head (`_feed_forward_logit`); the attention-free logit
is the attention logit's a = 0 case, which `derive_logit` checks.

Without weight tying (the premise of the paper's Sec. 2, quoted from its ref. [23]) the head is a vector of
its own; on the rank-one manifold it is h·alpha, one more scalar h (the head scale), and the same layers give
(`derive_logit_untied`) z_X = e h (1 + 2w|w|) X + b - e h/2: the tied logit is its case h = e.
"""
from __future__ import annotations

import itertools

import sympy as sp

from ._cache import derivation
from ._result import Result
from ._symbols import BRANCHES, X, a, b, e, e_neg, e_pos, h, w, w_neg, w_pos

#: the attention gain s = 1 + a e^2 (the factor the attention layer multiplies the embedding by)
s = sp.Symbol("s", real=True)
s_pos = sp.Symbol("s", positive=True)
s_neg = sp.Symbol("s", negative=True)
kappa = sp.Symbol("kappa", real=True)


def rank_one_parameters(alpha_signs, e_val, w_val, flip_alpha_with_e: bool = True):
    r"""Full transformer parameters on the rank-one manifold, for one sign pattern of alpha.

    Returns (token embedding, positional embedding, W_1, W_2) with alpha = signs/sqrt(d),
    1 in R^{4d}: token = |e| alpha_e, p_n = -(|e|/2) alpha_e, W_1 = (|w|/sqrt d) 1 alpha_e^T,
    W_2 = (w/sqrt d) alpha_e 1^T, where alpha_e = sign(e) alpha when `flip_alpha_with_e` (the
    construction that absorbs the sign of e into alpha) and alpha_e = alpha otherwise.
    """
    d = len(alpha_signs)
    alpha = sp.Matrix(alpha_signs) / sp.sqrt(d)
    alpha_e = sp.sign(e_val) * alpha if flip_alpha_with_e else alpha
    ones = sp.ones(4 * d, 1)
    scale = abs(e_val) if flip_alpha_with_e else e_val
    token = scale * alpha_e
    positional = -(scale / 2) * alpha_e
    W1 = (sp.Abs(w_val) / sp.sqrt(d)) * ones * alpha_e.T
    W2 = (w_val / sp.sqrt(d)) * alpha_e * ones.T
    return token, positional, W1, W2


def _feed_forward_logit(y_vec, token, W1, W2, b_val, head=None) -> sp.Expr:
    """ReLU feed-forward with residual, then the linear head: the token embedding itself (weight tying, the
    paper's model) unless a separate `head` vector is given."""
    hidden = (W1 * y_vec).applyfunc(lambda t: sp.Max(0, sp.expand(t)))
    z_vec = y_vec + W2 * hidden
    return sp.expand(((token if head is None else head).T * z_vec)[0, 0] + b_val)


def untied_head(alpha_signs, h_val) -> sp.Matrix:
    """The untied head on the rank-one manifold: h·alpha with alpha = signs/sqrt(d) (not flipped with e, so that
    h = e is weight tying on both signs of e: the token embedding is |e| alpha_e = e alpha)."""
    return h_val * sp.Matrix(alpha_signs) / sp.sqrt(len(alpha_signs))


def rank_one_logit(x: int, alpha_signs, e_val, w_val, b_val=b, flip_alpha_with_e: bool = True,
                   h_val=None) -> sp.Expr:
    """Logit of the full single-layer transformer (formula sheet §2) at a rank-one point, input bit x.

    W_V = 0, so the attention adds W_O * sum_i att_{n,i} * 0 whatever the softmax weights are;
    they are kept as free symbols to make that visible. `h_val` given: the head is untied, h·alpha.
    """
    d = len(alpha_signs)
    token, positional, W1, W2 = rank_one_parameters(alpha_signs, e_val, w_val, flip_alpha_with_e)
    x_vec = x * token + positional
    att = sp.symbols("att_1:3")                      # arbitrary attention weights over two positions
    W_V = sp.zeros(d, d)
    y_vec = x_vec + sum((att_i * (W_V * x_vec) for att_i in att), sp.zeros(d, 1))
    head = None if h_val is None else untied_head(alpha_signs, h_val)
    return _feed_forward_logit(y_vec, token, W1, W2, b_val, head)


@derivation
def rank_one_logits(flip_alpha_with_e: bool = True, dims: tuple[int, ...] = (1, 2)) -> dict:
    """`rank_one_logit` on every sign branch of (e, w) (`BRANCHES`), for both bits, every d in `dims` and every
    alpha in {±1}^d: {(x, alpha_signs, branch label): logit} (what Eq. 3's check compares the printed logit with)."""
    return {(x, signs, label): rank_one_logit(x, signs, sub[e], sub[w], flip_alpha_with_e=flip_alpha_with_e)
            for d in dims for signs in itertools.product((1, -1), repeat=d)
            for label, sub in BRANCHES.items() for x in (0, 1)}


def _unify(expr_pos_w: sp.Expr) -> sp.Expr:
    """Odd extension of a w>0 branch expression: w^2 -> w|w| (checked against the w<0 branch)."""
    return sp.expand(expr_pos_w).subs(w_pos**2, w * sp.Abs(w)).subs({w_pos: w, e_pos: e})


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


def _slope_and_offset(dims, h_val=None) -> tuple[sp.Expr, sp.Expr]:
    """The transformer's slope z_1 - z_0 and offset z_0 - b on the rank-one manifold (head h_val·alpha if given,
    else tied), computed for every d in `dims`, every alpha and every sign branch of (e, w); raises unless they
    are the same for every d and alpha and the odd extension w^2 -> w|w| of the e > 0, w > 0 branch matches every
    branch."""
    per_branch = {}
    for label, sub in BRANCHES.items():
        values = set()
        for d in dims:
            for signs in itertools.product((1, -1), repeat=d):
                z0 = rank_one_logit(0, signs, sub[e], sub[w], h_val=h_val)
                z1 = rank_one_logit(1, signs, sub[e], sub[w], h_val=h_val)
                values.add((sp.expand(z0), sp.expand(z1)))
        if len(values) != 1:
            raise AssertionError(f"logit depends on d or alpha on branch {label}: {values}")
        per_branch[label] = values.pop()
    z0, z1 = per_branch["e>0, w>0"]
    slope = _unify(z1 - z0)
    offset = _unify(z0 - b)
    for label, sub in BRANCHES.items():
        bz0, bz1 = per_branch[label]
        if sp.expand((slope.subs(sub) - (bz1 - bz0))) != 0 or sp.expand(offset.subs(sub) + b - bz0) != 0:
            raise AssertionError(f"unified logit disagrees with branch {label}")
    return slope, offset


@derivation
def derive_logit_without_attention(dims: tuple[int, ...] = (1, 2, 3)) -> Result:
    r"""Eq. 3: the canonical logit $z_X = e^2(1+2w|w|)X + b - e^2/2$, computed from the transformer.

    For every d in `dims`, every alpha in {±1}^d/sqrt(d) and every sign branch of (e, w), the
    transformer's logits z_0, z_1 are computed; they must not depend on d or alpha, and the
    slope A = z_1 - z_0 and the offset c = z_0 - b are unified across the w branches by the odd
    extension w^2 -> w|w|. Raises if the branches disagree (the derivation itself is a check).
    """
    slope, offset = _slope_and_offset(dims)
    return Result(
        ref="Eq. 3",
        title="Canonical logit",
        assumptions=("any e, w, b in R", "d in " + str(list(dims)) + ", every alpha in {±1}^d/sqrt(d)"),
        expressions={"A": sp.factor(slope), "z0": offset + b, "offset": offset,
                     "logit": slope * X + offset + b},
        derivation="Transformer of formula sheet §2 evaluated symbolically at the rank-one point of §3 "
                   "(alpha flipped with the sign of e), on the four sign branches of (e, w).",
    )


# ---------------------------------------------------------------------------------------------
# Linear attention (Eq. 37-41)
# ---------------------------------------------------------------------------------------------

def _alpha_e(alpha_signs, e_val):
    d = len(alpha_signs)
    return sp.sign(e_val) * sp.Matrix(alpha_signs) / sp.sqrt(d)


def attention_output(bits, alpha_signs, e_val, kappa_val=kappa, v=None):
    r"""$y_n = x_n + \sum_{i \le n} att_{n,i} W_V x_i$ at the last position n of the bit sequence `bits`.

    Linear attention $att_{n,i} = \frac1n \langle W_Q x_n, W_K x_i\rangle/\sqrt d$ with the explicit
    rank-one matrices W_K = alpha alpha^T, W_Q = kappa alpha alpha^T (so W_Q^T W_K = kappa alpha alpha^T,
    asserted) and W_V = alpha v^T; alpha is the sign-flipped alpha of `rank_one_parameters`.
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


@derivation
def derive_attention_output(dims: tuple[int, ...] = (1, 2), lengths: tuple[int, ...] = (1, 2, 3)) -> Result:
    r"""Eq. 39-40: $y_n = (1 + a e^2)\, e\,(x_n - 1/2)\,\alpha$ with $a = \kappa\langle v, \alpha\rangle/(4\sqrt d)$.

    For every d, alpha pattern, sign of e and every bit sequence, the output is checked to be a
    multiple g of the embedding e (x_n - 1/2) alpha (rank one, history-independent because
    (x_i - 1/2)^2 = 1/4), and the gain g - 1 is found to equal a e^2 once kappa <v, alpha> is
    written as 4 sqrt(d) a. Raises if any case disagrees.
    """
    for d in dims:
        for signs in itertools.product((1, -1), repeat=d):
            for ev in (e_pos, e_neg):
                for n in lengths:
                    for bits in itertools.product((0, 1), repeat=n):
                        y, al, v = attention_output(bits, signs, ev)
                        size = ev * sp.sign(ev) * (bits[-1] - sp.Rational(1, 2))   # embedding = size * alpha
                        gain = sp.expand(sp.expand((al.T * y)[0, 0]) / size)
                        if sp.expand(y - gain * size * al) != sp.zeros(d, 1):
                            raise AssertionError("attention output is not a multiple of the embedding")
                        per_e2 = sp.expand((gain - 1) / ev**2)
                        if ev in per_e2.free_symbols:
                            raise AssertionError(f"attention gain is not 1 + (const) e^2: {gain}")
                        va = sp.expand((v.T * al)[0, 0])
                        if sp.expand(per_e2 - kappa * va / (4 * sp.sqrt(d))) != 0:
                            raise AssertionError(f"gain - 1 != kappa <v, alpha> e^2/(4 sqrt d): {per_e2}")
    gain = 1 + a * e**2
    return Result(
        ref="Eq. 39-40",
        title="Attention output with linear attention",
        assumptions=("e != 0", "unit alpha in {±1}^d/sqrt(d), d in " + str(list(dims)),
                     "sequences of length " + str(list(lengths)), "a = kappa <v, alpha>/(4 sqrt d)"),
        expressions={"gain": gain, "y_over_embedding": gain},
        derivation="Linear attention with W_Q^T W_K = kappa alpha alpha^T, W_V = alpha v^T evaluated on every bit "
                   "sequence: (1/n) sum_i (x_i - 1/2)^2 = 1/4 makes y_n a history-free multiple of the embedding.",
    )


def _attention_logit(x: int, alpha_signs, e_val, w_val, s_val, b_val=b) -> sp.Expr:
    """Feed-forward + tied head applied to y = s * (embedding of x), s the attention gain."""
    token, positional, W1, W2 = rank_one_parameters(alpha_signs, e_val, w_val)
    return _feed_forward_logit(s_val * (x * token + positional), token, W1, W2, b_val)


@derivation
def derive_logit_with_attention(dims: tuple[int, ...] = (1, 2)) -> Result:
    r"""Eq. 41: $z_X = e^2[(X - \tfrac12)(1+ae^2)(1+2w|w|) + w|w|\,|1+ae^2|] + b$, computed.

    The feed-forward layer and head of the rank-one model are applied to the attention output
    y = s e (x - 1/2) alpha of `derive_attention_output` (gain s), for d in `dims`, every alpha,
    every sign of e, w and s; the branches are glued in w (w|w|) and s (|s|), then s = 1 + a e^2.
    At a = 0 the slope and offset must be those of Eq. 3 (checked: the models are one).
    """
    per = {}
    for ev, wv, sv in itertools.product((e_pos, e_neg), (w_pos, w_neg), (s_pos, s_neg)):
        values = set()
        for d in dims:
            for signs in itertools.product((1, -1), repeat=d):
                values.add((_attention_logit(0, signs, ev, wv, sv), _attention_logit(1, signs, ev, wv, sv)))
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
    plain = derive_logit_without_attention()
    for name, expr in (("A", slope), ("offset", offset)):
        at0 = sp.expand(expr.subs(a, 0)).subs(sp.Abs(1), 1)
        if sp.expand(at0 - plain[name]) != 0:
            raise AssertionError(f"the attention model at a = 0 is not Eq. 3's model ({name})")
    return Result(
        ref="Eq. 41",
        title="Canonical logit with the attention scalar",
        assumptions=("any e, w, a, b in R", "d in " + str(list(dims)) + ", every alpha in {±1}^d/sqrt(d)"),
        expressions={"A": slope, "z0": z0, "offset": offset, "logit": slope * X + z0,
                     "logit_in_s": sp.expand((glued[1] - glued[0]) * X + glued[0])},
        derivation="Attention output (gain s = 1 + a e^2) fed through the rank-one ReLU layer and tied head for "
                   "every sign of e, w, s; branches glued as w|w| and |s|; at a = 0 it is Eq. 3.",
    )


@derivation
def derive_logit_untied(dims: tuple[int, ...] = (1, 2, 3)) -> Result:
    r"""The untied canonical logit $z_X = e\,h\,(1+2w|w|)X + b - e h/2$, computed from the transformer.

    The premise of Sec. 2 (its ref. [23]) is weight tying, head = token embedding. Here the head is a vector of
    its own, on the rank-one manifold h·alpha (`untied_head`); everything else is the construction of
    `derive_logit_without_attention`, run for every d in `dims`, every alpha in {±1}^d/sqrt(d) and every sign
    branch of (e, w). h enters only through the head, after the ReLU, linearly: no branch in h is needed (h is
    a real symbol). The logits must not depend on d or alpha; slope and offset are unified across the w
    branches as in Eq. 3 and checked on every branch; at h = e they must be Eq. 3's (tying is the special case).
    """
    slope, offset = _slope_and_offset(dims, h)
    tied = derive_logit_without_attention()
    for name, expr in (("A", slope), ("offset", offset)):
        if sp.expand(expr.subs(h, e) - tied[name]) != 0:
            raise AssertionError(f"the untied model at h = e is not Eq. 3's model ({name})")
    return Result(
        ref="Sec. 2 ([23]), untied",
        title="Canonical logit without weight tying",
        assumptions=("any e, w, h, b in R", "d in " + str(list(dims)) + ", every alpha in {±1}^d/sqrt(d)",
                     "head h alpha (alpha not flipped with e)"),
        expressions={"A": sp.factor(slope), "z0": offset + b, "offset": offset,
                     "logit": slope * X + offset + b},
        derivation="Transformer of formula sheet §2 evaluated symbolically at the rank-one point of §3 with the head "
                   "h alpha instead of the token embedding, on the four sign branches of (e, w); at h = e it is Eq. 3.",
    )


def derive_logit(attention: bool = False, untied: bool = False) -> Result:
    """Eq. 3 (attention off), Eq. 41 (attention on), or the untied logit (head h·alpha, attention off), computed
    from the transformer."""
    if untied:
        if attention:
            raise ValueError("the untied model is derived without attention only")
        return derive_logit_untied()
    return derive_logit_with_attention() if attention else derive_logit_without_attention()
