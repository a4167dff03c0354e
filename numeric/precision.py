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


# -- the one convention for printed numbers (every command) ----------------------------------------------

#: what an error stated next to a value is: a rigorous bound (an enclosure, outward rounded), or an estimate
ERROR_KINDS = ("exact", "bound", "estimate")


def _decimal(m: int, k: int) -> str:
    """The exact decimal string of the number m * 10^k (k an integer)."""
    if k >= 0:
        return str(m * 10**k)
    sign, digits = ("-" if m < 0 else ""), str(abs(m)).rjust(-k + 1, "0")
    return f"{sign}{digits[:k]}.{digits[k:]}"


def error_text(err) -> str:
    """An error (> 0) rounded *up* to two significant digits, e.g. "1.1e-12": never smaller than `err`."""
    with mp.workdps(30):
        err = mp.mpf(err)
        k = _place(err)
        # a relative 10^-12 forgiven: 3e-5 stored in binary is 30.000000000000004 units of 10^-6, not 31
        up = lambda k_: int(mp.ceil(err / mp.mpf(10) ** (k_ - 1) * (1 - _FORGIVEN)))
        m = up(k)
        if m >= 100:                    # rounding carried into a third digit
            k, m = k + 1, -(-m // 10)
        return f"{m // 10}.{m % 10}e{k}"


_FORGIVEN = mp.mpf(10) ** -12


def _place(err) -> int:
    """floor(log10(err)) for err > 0: the decimal place of its leading digit (an err within a relative 10^-12 below
    a power of ten, such as 1e-12 stored in binary, counts as that power)."""
    with mp.workdps(30):
        return int(mp.floor(mp.log10(mp.mpf(err) * (1 + _FORGIVEN))))


def with_errors(xs, err) -> tuple[list[str], str]:
    r"""(value texts, error text) of numbers xs each known to within `err` (> 0): each value rounded to the decimal
    place of the error's leading digit, and the error grown by the largest of those roundings and rounded up
    (`error_text`), so that every printed interval value ± error contains every number the unrounded x ± err
    does. No digit finer than the error's leading digit is printed: the digits shown are the ones the error
    supports. Computed at enough digits of its own, whatever the caller's precision."""
    xs = list(xs)
    with mp.workdps(30):
        k = _place(mp.mpf(err))
        need = max([0] + [int(mp.log10(abs(mp.mpf(x)))) for x in xs if x != 0]) - k + 20
    with mp.workdps(max(30, need)):
        u = mp.mpf(10) ** k
        ms = [int(mp.nint(mp.mpf(x) / u)) for x in xs]
        grown = mp.mpf(err) + max(abs(mp.mpf(x) - m * u) for x, m in zip(xs, ms))
        return [_decimal(m, k) for m in ms], error_text(grown)


def with_error(x, err) -> tuple[str, str]:
    """`with_errors` of one number: (value text, error text)."""
    texts, e = with_errors([x], err)
    return texts[0], e


def shown_point(xs, err, kind: str, exact=None, key: str = "value") -> dict:
    """The JSON form of a value or point with its error, the one form every command prints: {key: [texts],
    "error": text, "error_kind": kind} (`key` "value", or "limit" for the limit of a flow; one error for all the
    coordinates). `exact` (texts) gives an exact value instead (kind "exact", error "0"); kind "bound" is a
    rigorous bound, "estimate" an error estimate that is not a bound."""
    if kind not in ERROR_KINDS:
        raise ValueError(f"kind must be one of {ERROR_KINDS}")
    if exact is not None:
        return {key: [str(x) for x in exact], "error": "0", "error_kind": "exact"}
    if not err > 0:
        raise ValueError("an error must be positive (an exact value is printed exactly)")
    if kind == "bound":             # what `error_text` forgives, given back: a bound is never printed smaller
        err = mp.mpf(err) * (1 + 2 * _FORGIVEN)
    texts, e = with_errors(xs, err)
    return {key: texts, "error": e, "error_kind": kind}


def shown_text(sp_: dict, names: str | None = None) -> str:
    """The text form of `shown_point`'s dict: "v (exact)", "(v1, v2) ± err (rigorous bound)" or "... ± err
    (estimate, not a bound)"."""
    vals = sp_["value"] if "value" in sp_ else sp_["limit"]
    body = vals[0] if len(vals) == 1 else f"({', '.join(vals)})"
    if names is not None:
        body = f"{names} = {body}"
    if sp_["error_kind"] == "exact":
        return f"{body} (exact)"
    return f"{body} ± {sp_['error']}" + (" (estimate, not a bound)" if sp_["error_kind"] == "estimate" else
                                         " (rigorous bound)")


def confirmed_text(x, fine, dps: int) -> str:
    """x as a decimal string with at most `dps` significant digits, and only as many as a second evaluation
    `fine` of the same expression at GUARD more working digits agrees with (their relative difference): a
    tolerance-independent check of the digits, an estimate, not a bound. "0" when both are exactly zero."""
    with mp.workdps(dps + 2 * GUARD):
        x, fine = mp.mpf(x), mp.mpf(fine)
        if x == 0 and fine == 0:
            return "0"
        diff, scale = abs(x - fine), max(abs(x), abs(fine))
        n = dps if diff == 0 else min(dps, int(mp.floor(-mp.log10(diff / scale))))
        if n < 1:
            return with_error(fine, diff)[0]
        return mp.nstr(fine, n)


def exact_text(r) -> str:
    """An exact rational as text: its finite decimal expansion when it has one (3/2 -> "1.5"), else "n/d"."""
    from fractions import Fraction
    r = Fraction(r)
    d, k2, k5 = r.denominator, 0, 0
    while d % 2 == 0:
        d, k2 = d // 2, k2 + 1
    while d % 5 == 0:
        d, k5 = d // 5, k5 + 1
    if d != 1:
        return f"{r.numerator}/{r.denominator}"
    k = max(k2, k5)
    return _decimal(r.numerator * 10**k // r.denominator, -k) if k else str(r.numerator)
