r"""The canonical rank-one parameterization (Sec. 3, App. C) and the logit it produces (Eq. 3).

The logit is *computed* by running the rank-one transformer of formula sheet §3 symbolically
(embedding, attention with W_V = 0, ReLU feed-forward, tied linear head) with explicit SymPy
matrices, on each sign branch of (e, w), for several d and every sign pattern alpha.
"""
from __future__ import annotations

import itertools
from functools import lru_cache

import sympy as sp

from ._result import Result
from ._symbols import BRANCHES, A as A_sym, b, c as c_sym, e, e_pos, w, w_pos


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


def rank_one_logit(x: int, alpha_signs, e_val, w_val, b_val=b, flip_alpha_with_e: bool = True) -> sp.Expr:
    """Logit of the full single-layer transformer (formula sheet §2) at a rank-one point, input bit x.

    W_V = 0, so the attention adds W_O * sum_i att_{n,i} * 0 whatever the softmax weights are;
    they are kept as free symbols to make that visible.
    """
    d = len(alpha_signs)
    token, positional, W1, W2 = rank_one_parameters(alpha_signs, e_val, w_val, flip_alpha_with_e)
    x_vec = x * token + positional
    att = sp.symbols("att_1:3")                      # arbitrary attention weights over two positions
    W_V = sp.zeros(d, d)
    y_vec = x_vec + sum((att_i * (W_V * x_vec) for att_i in att), sp.zeros(d, 1))
    hidden = (W1 * y_vec).applyfunc(lambda t: sp.Max(0, sp.expand(t)))
    z_vec = y_vec + W2 * hidden
    return sp.expand((token.T * z_vec)[0, 0] + b_val)   # weight tying: the head is the token embedding


def _unify(expr_pos_w: sp.Expr) -> sp.Expr:
    """Odd extension of a w>0 branch expression: w^2 -> w|w| (checked against the w<0 branch)."""
    return sp.expand(expr_pos_w).subs(w_pos**2, w * sp.Abs(w)).subs({w_pos: w, e_pos: e})


@lru_cache(maxsize=None)
def derive_logit(dims: tuple[int, ...] = (1, 2, 3)) -> Result:
    r"""Eq. 3: the canonical logit $z_X = e^2(1+2w|w|)X + b - e^2/2$, computed from the transformer.

    For every d in `dims`, every alpha in {±1}^d/sqrt(d) and every sign branch of (e, w), the
    transformer's logits z_0, z_1 are computed; they must not depend on d or alpha, and the
    slope A = z_1 - z_0 and the offset c = z_0 - b are unified across the w branches by the odd
    extension w^2 -> w|w|. Raises if the branches disagree (the derivation itself is a check).
    """
    per_branch = {}
    for label, sub in BRANCHES.items():
        values = set()
        for d in dims:
            for signs in itertools.product((1, -1), repeat=d):
                z0 = rank_one_logit(0, signs, sub[e], sub[w])
                z1 = rank_one_logit(1, signs, sub[e], sub[w])
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
    return Result(
        ref="Eq. 3",
        title="Canonical logit",
        assumptions=("any e, w, b in R", "d in " + str(list(dims)) + ", every alpha in {±1}^d/sqrt(d)"),
        expressions={"A": sp.factor(slope), "z0": offset + b, "logit": slope * sp.Symbol("X") + offset + b},
        derivation="Transformer of formula sheet §2 evaluated symbolically at the rank-one point of §3 "
                   "(alpha flipped with the sign of e), on the four sign branches of (e, w).",
    )


def slope_A() -> sp.Expr:
    r"""$A(e, w) = z_1 - z_0 = e^2(1 + 2w|w|)$, the only combination of (e, w) the loss sees."""
    return derive_logit()["A"]


def offset_c() -> sp.Expr:
    r"""$c(e, b) = z_0 = b - e^2/2$."""
    return derive_logit()["z0"]


def to_A_c():
    """Substitution map (A, c) -> expressions in (e, w, b)."""
    return {A_sym: slope_A(), c_sym: offset_c()}


def logit(x) -> sp.Expr:
    """z_x as a function of (e, w, b) for the bit x (0, 1, or a symbol)."""
    return slope_A() * x + offset_c()
