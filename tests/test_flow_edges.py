"""`l2g flow` and `l2g eval` at the edges (p + q = 1, the origin, the axes, the attention plane a = 0, a start a
hair off an axis) and at general points: no "None" or "nan" in the text or the JSON, every printed limit to no
more digits than its stated error supports, and the basin, the limits and `agree` consistent with each other.

The values and errors are read from the JSON (results are data: the text is not parsed back), the text is only
searched for words that must not appear there and for the error the JSON states."""
from __future__ import annotations

import json
import re
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from local2global.cli import main

#: both regimes and two chains on p + q = 1 (one symmetric, one not)
CHAINS = [("9/10", "9/10"), ("1/10", "1/10"), ("1/2", "1/2"), ("3/10", "7/10")]
BAD_WORDS = re.compile(r"\bNone\b|\bnan\b|\bNaN\b|\binf\b|Infinity|Traceback")


def _run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _unit(text: str) -> Fraction:
    """The value of one unit in the last printed digit of a decimal string ("1.250" -> 1/1000, "12" -> 1)."""
    body = text.lstrip("-")
    return Fraction(1, 10 ** len(body.split(".")[1])) if "." in body else Fraction(1)


def _place(err: Fraction) -> int:
    k = 0
    while Fraction(10) ** k > err:
        k -= 1
    while Fraction(10) ** (k + 1) <= err:
        k += 1
    return k


def shown_values(node):
    """Every {limit|value, error, error_kind} dict in a report (the convention of `numeric.precision`)."""
    if isinstance(node, dict):
        if "error_kind" in node:
            yield node
        for v in node.values():
            yield from shown_values(v)
    elif isinstance(node, list):
        for v in node:
            yield from shown_values(v)


def check_digits(shown: dict) -> None:
    """A value with a positive error is printed to the decimal place of the error's leading digit (one place finer
    at most, where rounding the value grew the error into the next decade), never finer; an exact one is exact."""
    values = shown.get("limit", shown.get("value"))
    kind, err = shown["error_kind"], shown["error"]
    assert kind in ("exact", "bound", "estimate"), shown
    if kind == "exact":
        assert err == "0" and all(Fraction(v) == Fraction(v) for v in values)
        return
    e = Fraction(err)
    assert e > 0, shown
    assert re.fullmatch(r"\d\.\de-?\d+", err), shown                     # two significant digits
    for v in values:
        u = _unit(v)
        assert Fraction(10) ** (_place(e) - 1) <= u <= e, (v, err)


def check_flow_report(rep: dict, theta0: tuple, three: bool) -> None:
    pred, it = rep["predicted"], rep["integrated"]
    found = list(shown_values(rep))
    assert it in found
    for s in found:
        check_digits(s)
    assert isinstance(rep["agree"], bool)
    # the basin of an exact start is read off exactly: I_max (Theta_max) needs e0 = 0 exactly
    if rep["basin"] == "I_max":
        assert Fraction(theta0[0]) == 0
    if rep["basin"] == "p+q=1":
        assert rep["theorem_class"] == pred["class"] == "global_min"
    same = pred["class"] == it["class"] and (three or pred["class"] == rep["theorem_class"])
    if "limit" in pred:
        lim_p, lim_i = [Fraction(x) for x in pred["limit"]], [Fraction(x) for x in it["limit"]]
        gap = max(abs(a - b) for a, b in zip(lim_p, lim_i))
        allowed = Fraction(pred["error"]) + Fraction(it["error"])
        if rep["agree"]:
            # agreement means the same class and printed limits whose intervals meet
            assert same and gap <= allowed, (gap, allowed, rep)
        elif same and it["status"] in ("converged_distance", "converged_gradient", "stationary"):
            # a disagreement of the same class must show a gap larger than the errors (else `agree` lies)
            assert Fraction(rep["limit_gap"]) * Fraction(11, 10) > allowed, rep
        if pred["error_kind"] == "exact":            # a critical start stays where it is
            assert lim_p == [Fraction(x) for x in theta0]
    elif rep["agree"]:
        assert same


def check_text(out: str, rep: dict) -> None:
    assert not BAD_WORDS.search(out), out
    for part in ("predicted", "integrated"):
        s = rep[part]
        if s.get("error_kind") == "estimate":
            assert f"± {s['error']} (estimate, not a bound)" in out
        if s.get("error_kind") == "bound":
            assert f"± {s['error']} (rigorous bound)" in out
    assert ("agree:             yes" in out) == rep["agree"]


def _flow(argv, capsys, theta0, three):
    code, out, err = _run(argv + ["--json"], capsys)
    assert code == 0, err
    assert not BAD_WORDS.search(out) and "null" not in out, out
    rep = json.loads(out)
    check_flow_report(rep, theta0, three)
    code, text, err = _run(argv, capsys)
    assert code == 0, err
    check_text(text, rep)
    return rep


EDGES = [
    # (p, q), (e0, w0), a0: the origin, both axes, a hair off the w-axis, p + q = 1 on each side of w = -1/sqrt2
    (("9/10", "9/10"), ("0", "0"), None),
    (("1/10", "1/10"), ("0", "-1/2"), None),
    (("9/10", "9/10"), ("1/2", "0"), None),
    (("9/10", "9/10"), ("1e-20", "-1"), None),
    (("1/2", "1/2"), ("1/2", "1/2"), None),
    (("3/10", "7/10"), ("1/2", "-1"), None),
    (("1/2", "1/2"), ("0", "0"), None),
    (("9/10", "9/10"), ("1/2", "-1/2"), "3/10"),
    (("9/10", "9/10"), ("1/2", "1/2"), "0"),
    (("1/2", "1/2"), ("1/2", "1/2"), "-1/2"),
    (("9/10", "9/10"), ("0", "0"), "0"),
]


@pytest.mark.parametrize("pq, th, a0", EDGES)
def test_flow_at_the_edges_prints_no_none_and_only_digits_its_errors_support(pq, th, a0, capsys):
    argv = ["flow", "--p", pq[0], "--q", pq[1], "--e0", th[0], "--w0", th[1], "--dps", "15"]
    if a0 is not None:
        argv += ["--a0", a0]
    rep = _flow(argv, capsys, th if a0 is None else th + (a0,), a0 is not None)
    if th == ("0", "0"):
        # the origin is a critical point: the flow stays, exactly, and the report says on which set
        assert rep["predicted"]["error_kind"] == rep["integrated"]["error_kind"] == "exact"
        assert rep["agree"] is True and any("critical" in n for n in rep["notes"])


def test_a_start_a_hair_off_the_w_axis_is_not_on_it_and_agrees_with_its_limit(capsys):
    """Issue 29: e0 = 1e-20 was labelled I_max (the axis, within the dps tolerance) while both limits were global
    minima 7e-14 apart, and `agree` said False with a gap below the accuracy."""
    code, out, _ = _run(["flow", "--p", "0.9", "--q", "0.9", "--e0", "1e-20", "--w0", "-1", "--dps", "30", "--json"],
                        capsys)
    rep = json.loads(out)
    assert code == 0 and rep["basin"] == "I_star" and rep["theorem_class"] == "global_min"
    assert rep["predicted"]["class"] == rep["integrated"]["class"] == "global_min" and rep["agree"] is True
    # negative control: the start exactly on the axis is Theta_max's
    code, out, _ = _run(["flow", "--p", "0.9", "--q", "0.9", "--e0", "0", "--w0", "-1", "--dps", "30", "--json"], capsys)
    assert json.loads(out)["basin"] == "I_max"


def test_the_digits_check_rejects_a_digit_beyond_the_error():
    """Negative control of `check_digits`: one digit more than the error supports is refused."""
    check_digits({"limit": ["1.098507155418"], "error": "1.1e-12", "error_kind": "estimate"})
    with pytest.raises(AssertionError):
        check_digits({"limit": ["1.0985071554180465"], "error": "1.1e-12", "error_kind": "estimate"})
    with pytest.raises(AssertionError):
        check_digits({"limit": ["1.09850715541804647841194805122"], "error": "0", "error_kind": "estimate"})


def test_untied_flow_at_p_plus_q_one_is_refused_with_one_line(capsys):
    code, out, err = _run(["flow", "--p", "1/2", "--q", "1/2", "--e0", "1/2", "--w0", "1/2", "--untied", "--h0",
                           "1/5"], capsys)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1


_num = st.fractions(min_value=-2, max_value=2, max_denominator=20)
_start = st.one_of(
    st.tuples(st.just(Fraction(0)), st.just(Fraction(0))),           # the origin
    st.tuples(st.just(Fraction(0)), _num),                             # the w-axis (critical)
    st.tuples(_num, st.just(Fraction(0))),                             # the e-axis (invariant)
    st.tuples(_num, _num))                                             # general


@pytest.mark.slow
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(pq=st.sampled_from(CHAINS), th=_start, a0=st.one_of(st.none(), st.just(Fraction(0)), _num))
def test_flow_reports_are_consistent_and_honest_at_drawn_starts(pq, th, a0, capsys):
    argv = ["flow", "--p", pq[0], "--q", pq[1], "--e0", str(th[0]), "--w0", str(th[1]), "--dps", "15"]
    if a0 is not None:
        argv += ["--a0", str(a0)]
    _flow(argv, capsys, th if a0 is None else th + (a0,), a0 is not None)


@pytest.mark.parametrize("pq, th", [(("1/2", "1/2"), ("0", "0")), (("9/10", "9/10"), ("1", "1/2")),
                                    (("1/10", "1/10"), ("0", "-1")), (("3/10", "7/10"), ("1/3", "0"))])
def test_eval_prints_no_none_a_exact_and_at_most_dps_digits(pq, th, capsys):
    argv = ["eval", "--p", pq[0], "--q", pq[1], "--e", th[0], "--w", th[1], "--dps", "20"]
    code, text, _ = _run(argv, capsys)
    assert code == 0 and not BAD_WORDS.search(text) and "digits:" in text
    code, out, _ = _run(argv + ["--json"], capsys)
    res = json.loads(out)
    assert code == 0 and not BAD_WORDS.search(out)
    e, w = Fraction(th[0]), Fraction(th[1])
    assert Fraction(res["A"]) == e * e * (1 + 2 * w * abs(w))      # A = e^2 (1 + 2w|w|), the paper's definition
    values = [res["b_star"], res["loss"]] + res["grad"] + [x for r in (res["hessian"] or []) for x in r]
    for v in values:
        digits = re.sub(r"[-.]|e.*$", "", v).lstrip("0")
        assert len(digits) <= 20, v


@pytest.mark.parametrize("pq, th", [((Fraction(9, 10), Fraction(9, 10)), (Fraction(1, 2), Fraction(-1, 2))),
                                    ((Fraction(9, 10), Fraction(9, 10)), (Fraction(1, 2), Fraction(1, 2))),
                                    ((Fraction(1, 10), Fraction(1, 10)), (Fraction(1, 2), Fraction(0))),
                                    ((Fraction(1, 2), Fraction(1, 2)), (Fraction(2), Fraction(-1)))])
def test_the_analytic_limit_is_enclosed_by_the_krawczyk_test_and_a_moved_limit_is_not(pq, th):
    """`certified_error` proves a root of the limit's equations within its bound (arb balls); negative control:
    the same limit moved by 10^-12 (far beyond the boxes it tries) is not certified."""
    import mpmath as mp
    from local2global.numeric.chain import NumericChain
    from local2global.numeric.dynamics.basins import ReducedFlow, certified_error, predict, predict_iid
    chain = NumericChain(*pq)
    fl = ReducedFlow(chain)
    pred = predict_iid(fl, th, dps=30) if chain.regime == 0 else predict(chain, None, th, dps=30, flow=fl)
    bound = certified_error(chain, th, pred.limit, 30)
    assert bound is not None and bound < mp.mpf(10) ** -30
    with mp.workdps(50):
        moved = tuple(x + (mp.mpf(10) ** -12 if i == 1 else 0) for i, x in enumerate(pred.limit))
    assert certified_error(chain, th, moved, 30) is None


def test_a_start_just_above_the_saddle_level_is_decided_exactly_not_within_the_tolerance():
    """E(θ_0) - E_sad ~ 10^-6 is inside the dps-15 tolerance 10^-5: an exact start is decided by balls (the contour
    passes the saddle level: a global minimum, as the flow finds); the same start as an mpf (the tolerance path,
    the control) is taken to be on the saddle's level."""
    import mpmath as mp
    from local2global.numeric.chain import NumericChain
    from local2global.numeric.dynamics.basins import predict
    chain = NumericChain(Fraction(9, 10), Fraction(9, 10))
    th = (Fraction(1, 1000), Fraction(-7071, 10000))
    assert predict(chain, None, th, dps=15).limit_class == "global_min"
    with mp.workdps(30):
        inexact = tuple(mp.mpf(x.numerator) / x.denominator for x in th)
    assert predict(chain, None, inexact, dps=15).limit_class == "saddle"
