r"""The canonical rank-one map (Sec. 3, App. C; formula sheet §3, §7): (e, w[, a], b) -> full parameters.

Imports nothing from `local2global.symbolic` (it is part of the independent torch witness).

With alpha in {±1}^d/sqrt(d) (unit norm) and 1 in R^{4d}, and alpha_e = alpha for e >= 0,
alpha_e = -alpha for e < 0 (the sign of e absorbed into alpha, flipped everywhere):

    token e = |e| alpha_e = e alpha,        p_n = -(|e|/2) alpha_e = -(e/2) alpha   (all n)
    W_1 = (|w|/sqrt d) 1 alpha_e^T,         W_2 = (w/sqrt d) alpha_e 1^T            (W_2 = ±W_1^T)
    W_V = 0, W_Q = W_K = 0                  (softmax attention, a = 0)
    W_Q = W_K = alpha alpha^T, W_V = alpha_e v^T, v = 4 sqrt(d) a alpha_e / kappa   (linear attention)

Without weight tying (`h` given) the head is h alpha (alpha not flipped: h = e is the tied head e alpha on both
signs of e), the model of `symbolic.canonical.derive_logit_untied`.

For the linear attention W_Q^T W_K = kappa alpha alpha^T with kappa = 1 (alpha is unit), and
a = kappa <v, alpha_e>/(4 sqrt d) as in formula sheet §7. All maps are differentiable in the
scalars (torch autograd) away from w = 0 and e = 0 (|w|, sign e).
`flip_alpha_with_e=False` gives the *unflipped* construction (alpha_e = alpha also for e < 0): the
negative control of the reduction, which reproduces the slope of Eq. 3 but a different offset.
"""
from __future__ import annotations

import itertools
import math

import torch

from local2global.numeric.transformer.fullmodel import DTYPE, FullParameters


def alpha(signs) -> torch.Tensor:
    """alpha = signs / sqrt(d) for a sign pattern in {±1}^d."""
    s = torch.as_tensor(signs, dtype=DTYPE)
    if s.ndim != 1 or not bool(((s == 1) | (s == -1)).all()):
        raise ValueError(f"alpha needs a sign pattern in {{±1}}^d, got {signs}")
    return s / math.sqrt(s.numel())


def sign_patterns(d: int):
    """Every alpha sign pattern in {±1}^d (2^d of them), as tuples."""
    return list(itertools.product((1, -1), repeat=d))


def _scalar(v) -> torch.Tensor:
    return v if isinstance(v, torch.Tensor) else torch.tensor(float(v), dtype=DTYPE)


def canonical_parameters(e, w, b, *, d: int, N: int, signs=None, a=None, kappa: float = 1.0,
                         flip_alpha_with_e: bool = True, h=None) -> FullParameters:
    r"""Full parameters theta(e, w[, a], b) on the rank-one manifold (formula sheet §3, §7).

    e, w, b (and a) are floats or 0-dim float64 tensors (pass tensors with requires_grad to
    differentiate through the map). `signs` fixes alpha (default all +1). a = None gives the
    softmax model's canonical point (W_V = W_Q = W_K = 0); a given (even 0) gives the linear-
    attention construction of §7, to be evaluated with attention="linear". h given: the untied head h alpha.
    """
    e, w, b = _scalar(e), _scalar(w), _scalar(b)
    al = alpha(signs if signs is not None else (1,) * d)
    if al.numel() != d:
        raise ValueError(f"sign pattern has length {al.numel()}, d = {d}")
    # alpha_e: flip with the sign of e (e = 0 keeps alpha; there the head vanishes anyway)
    alpha_e = torch.where(e.detach() >= 0, 1.0, -1.0).to(DTYPE) * al if flip_alpha_with_e else al
    ones = torch.ones(4 * d, dtype=DTYPE)
    token = e * al                                           # |e| alpha_e == e alpha in both constructions
    positional = (-(e / 2) * al).expand(N, d).clone()
    W_1 = (torch.abs(w) / math.sqrt(d)) * torch.outer(ones, alpha_e)
    W_2 = (w / math.sqrt(d)) * torch.outer(alpha_e, ones)
    if a is None:
        zero = torch.zeros(d, d, dtype=DTYPE)
        W_Q, W_K, W_V = zero, zero, zero
    else:
        a = _scalar(a)
        W_Q = math.sqrt(abs(kappa)) * torch.outer(al, al)
        W_K = math.copysign(math.sqrt(abs(kappa)), kappa) * torch.outer(al, al)   # W_Q^T W_K = kappa aa^T
        v = (4 * math.sqrt(d) / kappa) * a * alpha_e                            # kappa<v, alpha_e>/(4 sqrt d) = a
        W_V = torch.outer(alpha_e, v)
    head = None if h is None else _scalar(h) * al
    return FullParameters(token=token, positional=positional, W_Q=W_Q, W_K=W_K, W_V=W_V, W_1=W_1, W_2=W_2,
                          b=b.reshape(()), head=head)
