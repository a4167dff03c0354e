"""`l2g eval --a` against an independent witness: the loss built from Eq. 41 as printed in the paper,
minimised over b numerically, and differentiated with mpmath; never the derived
expressions of symbolic/attention.py nor numeric/attention.py."""
from __future__ import annotations

import json
from fractions import Fraction

import mpmath as mp
import pytest

from local2global.cli import main

WITNESS_DPS = 80


def printed_logit(x, e, w, a, b):
    """Eq. 41 as printed: e^2 [(X - 1/2)(1 + a e^2)(1 + 2w|w|) + w|w| |1 + a e^2|] + b."""
    s = 1 + a * e**2
    return e**2 * ((x - mp.mpf(1) / 2) * s * (1 + 2 * w * abs(w)) + w * abs(w) * abs(s)) + b


def direct_loss(p, q, e, w, a, b):
    pi, P = (q / (p + q), p / (p + q)), ((1 - p, p), (q, 1 - q))
    return sum(pi[x] * (P[x][1] * mp.log1p(mp.exp(-printed_logit(x, e, w, a, b)))
                        + P[x][0] * mp.log1p(mp.exp(printed_logit(x, e, w, a, b)))) for x in (0, 1))


def reduced_loss(p, q, e, w, a):
    f = lambda bb: mp.diff(lambda t: direct_loss(p, q, e, w, a, t), bb)
    lo, hi = mp.mpf(-1), mp.mpf(1)
    while f(lo) > 0:
        lo *= 2
    while f(hi) < 0:
        hi *= 2
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if f(mid) < 0 else (lo, mid)
    bstar = mp.findroot(f, (lo, hi), solver="anderson")
    return direct_loss(p, q, e, w, a, bstar), bstar


@pytest.mark.parametrize("p,q,e,w,a", [
    ("0.9", "0.9", "0.3", "0.2", "0.1"),
    ("0.2", "0.3", "0.7", "-0.9", "0.5"),
    ("0.6", "0.8", "1.1", "-0.4", "-2"),      # 1 + a e^2 < 0: the sign of the gain flips
])
def test_eval_with_attention_agrees_with_independent_minimisation(capsys, p, q, e, w, a):
    assert main(["eval", "--p", p, "--q", q, "--e", e, "--w", w, "--a", a, "--dps", "40", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    with mp.workdps(WITNESS_DPS):
        P, Q, E, W, Aa = (mp.mpf(Fraction(v).numerator) / Fraction(v).denominator for v in (p, q, e, w, a))
        L, bstar = reduced_loss(P, Q, E, W, Aa)
        assert abs(mp.mpf(out["loss"]) - L) < mp.mpf(10) ** -35
        assert abs(mp.mpf(out["b_star"]) - bstar) < mp.mpf(10) ** -30
        grad = [mp.diff(lambda t: reduced_loss(P, Q, t, W, Aa)[0], E),
                mp.diff(lambda t: reduced_loss(P, Q, E, t, Aa)[0], W),
                mp.diff(lambda t: reduced_loss(P, Q, E, W, t)[0], Aa)]
        for ours, ref in zip(out["grad"], grad):
            assert abs(mp.mpf(ours) - ref) < mp.mpf(10) ** -25
