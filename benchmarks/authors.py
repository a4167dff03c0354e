r"""The authors' float pipeline, restated for comparison only (not part of the library).

The authors' scripts (github.com/Bond1995/Local-to-Global, Markov-Fixed/) evaluate the optimal bias with
the closed form of Lemma 5 in numpy,

    c* = log((p - q + sqrt((p - q)^2 + 4 p q exp(A))) / (2 q exp(A))),   b* = c* + e^2/2,

and the loss and gradient with plain sigmoids and logs (Lemma 2, Lemma 7: grad L = E[(f1 X + f2) X] grad A,
E[(f1 X + f2) X] = pi1 (f1 + f2)). This module writes that approach down once, as a baseline for
`benchmarks/run.py`: it overflows for A > ~709 (exp(A) = inf) and cancels to log(0) for p < q and
A below about -37.
"""
from __future__ import annotations

import numpy as np


def authors_b_star_offset(p, q, A):
    r"""The authors' closed form of $c^\star = b^\star - e^2/2$ (Lemma 5), verbatim in numpy."""
    return np.log((p - q + np.sqrt((p - q) ** 2 + 4 * p * q * np.exp(A))) / (2 * q * np.exp(A)))


def _sigmoid(z):
    return 1 / (1 + np.exp(-z))


def authors_loss_and_grad(p, q, e, w):
    r"""(L, dL/de, dL/dw) of the reduced loss the authors' way: b* closed form, then sigmoids and logs."""
    pi0, pi1 = q / (p + q), p / (p + q)
    A = e**2 * (1 + 2 * w * np.abs(w))
    b = authors_b_star_offset(p, q, A) + e**2 / 2
    z0 = b - e**2 / 2
    z1 = 2 * e**2 * w * np.abs(w) + b + e**2 / 2
    s0, s1 = _sigmoid(z0), _sigmoid(z1)
    loss = -(pi0 * (p * np.log(s0) + (1 - p) * np.log(1 - s0)) + pi1 * ((1 - q) * np.log(s1) + q * np.log(1 - s1)))
    f1 = s1 + q - 1 - s0 + p
    f2 = s0 - p
    ex = pi1 * (f1 + f2)
    ge = 2 * e * (1 + 2 * w * np.abs(w)) * ex
    gw = 4 * e**2 * np.abs(w) * ex
    return loss, ge, gw
