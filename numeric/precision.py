r"""The one precision policy of the numeric code: guard digits and tolerances, each written once.

* `GUARD`: every evaluation at a requested precision of `dps` significant digits runs at `dps + GUARD`
  digits (`working(dps)`, the one precision context of the library), so that the `dps` digits returned are
  not eaten by rounding; inputs that cause cancellation (large |e|, |b|) add `magnitude_digits`
  (`working(dps, extra=...)`).
* `tolerance(dps)`: two quantities computed at `dps` requested digits are called equal (or a residual
  zero) when they differ by at most 10^-(dps - SLACK) relative to max(1, |value|).
* The integrator's accuracy rules (`flow_rtol`, ...) say how close to its limit a flow integrated at
  `dps` digits stops; the classifier of an integrated limit uses the same numbers (`limit_tolerances`).
"""
from __future__ import annotations

import mpmath as mp

GUARD = 10        # working digits above the requested precision
SLACK = 10        # digits given up by an equality test at the requested precision


def working(dps: int, extra: int = 0, *, guard: bool = True):
    """mp.workdps(dps + GUARD + extra): the working precision of an evaluation requested at `dps` digits, with
    `extra` digits more where the evaluation is known to lose them (cancellation of large inputs,
    `magnitude_digits`; differences of nearby values). The one way the library sets mpmath's precision.

    `guard=False` (no GUARD digits) is for a computation whose digits are its own working precision, not a
    requested one: a sampled check evaluated at the context's digits, a fixed reference precision."""
    return mp.workdps(dps + (GUARD if guard else 0) + extra)


def tolerance(dps: int) -> mp.mpf:
    """10^-(dps - SLACK): the tolerance of an equality (or a zero residual) at `dps` requested digits."""
    return mp.mpf(10) ** (-(dps - SLACK))


def magnitude_digits(*xs) -> int:
    """Extra digits lost to cancellation when large inputs are combined (b - e^2/2, a e^4 terms)."""
    big = max((abs(float(x)) for x in xs if x is not None), default=1.0)
    return 3 * int(mp.log10(big + 1)) + 2


# -- the integrator's accuracy (numeric.dynamics.flow) ---------------------------------------------

def flow_rtol(dps: int) -> mp.mpf:
    """Local relative error per step: 10^-(dps/2) (a flow at dps digits tracks its exact path to ~dps/2)."""
    return mp.mpf(10) ** (-(dps // 2))


def flow_atol(dps: int) -> mp.mpf:
    return mp.mpf(10) ** (-dps)


def flow_grad_tol(dps: int) -> mp.mpf:
    """A flow stops when |∇L| falls below 10^-(dps - 5)."""
    return mp.mpf(10) ** (-(dps - 5))


def flow_dist_tol(dps: int) -> mp.mpf:
    """... or when its distance to a critical set falls below 10^-(dps/2 - 2) and is not increasing."""
    return mp.mpf(10) ** (-(dps // 2 - 2))


def limit_tolerances(dps: int, stationary: bool = False) -> dict:
    """Tolerances that name the end point of a flow integrated at `dps` digits: e, saddle, A.

    The stopping rule leaves the end point within `flow_dist_tol` of a critical set, so e and A are
    named within 10^-(dps/2 - 3) (ten times looser); a flow passes a degenerate saddle at distance
    ~10^-(dps/4), so the saddle is named within that. A *stationary* start (the gradient vanished
    exactly) did not move and is named at the equality tolerance of the requested precision."""
    if stationary:
        t = mp.mpf(10) ** (-(dps - 5))
        return dict(tol_e=t, tol_sad=t, tol_A=t)
    return dict(tol_e=mp.mpf(10) ** (-(dps // 2 - 3)), tol_sad=mp.mpf(10) ** (-(dps // 4)),
                tol_A=mp.mpf(10) ** (-(dps // 2 - 3)))


def limit_accuracy(dps: int, cls: str | None, stationary: bool = False) -> mp.mpf:
    """How close a flow integrated at `dps` digits is guaranteed (by its stopping rule) to the critical point it
    is named after: the tolerance of `limit_tolerances` for that class (the saddle's is the loosest)."""
    tol = limit_tolerances(dps, stationary)
    return tol["tol_sad"] if cls == "saddle" else max(tol["tol_e"], tol["tol_A"])


def to_accuracy(x, acc) -> str:
    """x as a decimal string with no digit beyond the absolute accuracy `acc` ("0" when |x| < acc)."""
    if abs(x) < acc:
        return "0"
    decimals = int(mp.ceil(-mp.log10(acc)))
    sig = max(1, decimals + int(mp.floor(mp.log10(abs(x)))) + 1)
    return mp.nstr(x, sig, min_fixed=-mp.inf, max_fixed=mp.inf)
