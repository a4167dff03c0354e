"""`l2g basins`: certified bounds on P(local minimum) in R^3 (labelled rigorous), the quadrature value labelled an
estimate, a seeded Monte Carlo consistent with both, identical through a Dask scheduler, bad input refused."""
from __future__ import annotations

import json
from fractions import Fraction

import pytest

from local2global.cli import main


def _run(argv, capsys):
    code = main(argv)
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def test_basins_prints_the_rigorous_bounds_and_labels_the_quadrature_value_an_estimate(capsys):
    code, out, err = _run(["basins", "--p", "0.9", "--q", "0.9", "--sigma", "0.1"], capsys)
    assert code == 0 and err == ""
    assert "rigorous (arb" in out and "P(local min) >= 0.99999999554931525583" in out
    assert "for every sigma' <= 1/10: 1 - P(local min) <= 2.83512041271548755" in out
    assert "estimate (not rigorous" in out


def test_the_bounds_bracket_the_quadrature_estimate_in_both_regimes(capsys):
    for pq, sigma in ((("0.9", "0.9"), "1/2"), (("0.1", "0.1"), "1"), (("3/5", "4/5"), "1/5")):
        code, out, _ = _run(["basins", "--p", pq[0], "--q", pq[1], "--sigma", sigma, "--json"], capsys)
        rep = json.loads(out)
        est = Fraction(rep["estimate"]["P_min"])
        assert Fraction(rep["rigorous"]["P_min_at_least"]) < est
        if "P_min_at_most" in rep["rigorous"]:
            assert est < Fraction(rep["rigorous"]["P_min_at_most"])


def test_monte_carlo_of_the_classification_is_consistent_with_the_lower_bound_and_the_estimate(capsys):
    code, out, _ = _run(["basins", "--p", "0.9", "--q", "0.9", "--sigma", "1/2", "--mc", "48", "--seed", "5",
                         "--workers", "1", "--json"], capsys)
    rep = json.loads(out)
    m = rep["monte_carlo"]
    assert code == 0 and sum(m["counts"].values()) == 48 and m["reference"] == "estimate"
    assert abs(m["z_score"]) < 4
    lb = float(Fraction(rep["rigorous"]["P_min_at_least"]))
    z_lb = (m["local_min"] - 48 * lb) / (48 * lb * (1 - lb)) ** 0.5
    assert z_lb > -4                      # one-sided: a lower bound may be beaten by any amount


def test_monte_carlo_through_a_dask_scheduler_is_bitwise_the_local_run(capsys):
    distributed = pytest.importorskip("distributed")
    argv = ["basins", "--p", "0.1", "--q", "0.1", "--sigma", "1", "--mc", "20", "--seed", "2", "--json"]
    code, local, _ = _run(argv + ["--workers", "1"], capsys)
    assert code == 0
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) as cl:
        code, remote, _ = _run(argv + ["--scheduler", cl.scheduler_address], capsys)
    assert code == 0 and remote == local


@pytest.mark.parametrize("extra, word", [
    (["--p", "1.2", "--q", "0.9", "--sigma", "0.1"], "--p"),
    (["--p", "0.5", "--q", "0.5", "--sigma", "0.1"], "p+q != 1"),
    (["--p", "0.9", "--q", "0.9", "--sigma", "0"], "--sigma"),
    (["--p", "0.9", "--q", "0.9", "--sigma", "nan"], "--sigma"),
    (["--p", "0.9", "--q", "0.9", "--sigma", "0.1", "--scheduler", "tcp://127.0.0.1:1"], "only with --mc"),
    (["--p", "0.9", "--q", "0.9", "--sigma", "0.1", "--mc", "-3"], "--mc"),
    (["--p", "0.9", "--q", "0.9", "--sigma", "0.1", "--mc", "4", "--workers", "0"], "--workers"),
    (["--p", "0.9", "--q", "0.9", "--sigma", "0.1", "--mc", "4", "--scheduler", ""], "--scheduler"),
    (["--p", "0.9", "--q", "0.9", "--sigma", "0.1", "--mc", "4", "--scheduler", "abc"], "--scheduler"),
    (["--p", "0.9", "--q", "0.9", "--sigma", "0.1", "--mc", "4", "--scheduler", "tcp://host"], "--scheduler"),
    (["--p", "0.9", "--q", "0.9", "--sigma", "0.1", "--dps", "5"], "--dps"),
])
def test_bad_input_is_one_line_on_stderr_exit_2_before_any_work(extra, word, capsys, monkeypatch):
    import sys
    monkeypatch.delitem(sys.modules, "local2global.numeric.dynamics.prob_r3", raising=False)
    code, out, err = _run(["basins", *extra], capsys)
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("l2g: error:") and word in lines[0]
    assert "local2global.numeric.dynamics.prob_r3" not in sys.modules        # refused before the heavy import


_EDGE = ["", " ", "nan", "inf", "-inf", "0", "1", "-1", "1e-400", "1e400", "0x10", "1/0", "--", "0.5\n", "\x00",
         "1 2", "1e", "-1/-2", "10", "-10", "2/3", "0.9", "1/1000", "100000", "100001", "-0", "abc"]


def test_basins_never_shows_a_traceback_for_any_value(capsys, monkeypatch):
    """Every value of every option: exit 0 (computed; the work is stubbed here), or 2 with one line on stderr."""
    from hypothesis import HealthCheck, given, settings, strategies as st

    from local2global.numeric.dynamics import prob_r3
    monkeypatch.setattr(prob_r3, "report", lambda *a, **k: {"stub": True})
    monkeypatch.setattr(prob_r3, "report_text", lambda rep: "stub")

    @settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(field=st.sampled_from(["--p", "--q", "--sigma", "--dps", "--mc", "--seed", "--workers", "--scheduler"]),
           value=st.one_of(st.sampled_from(_EDGE), st.text(max_size=8)))
    def fuzz(field, value):
        args = {"--p": "0.9", "--q": "0.9", "--sigma": "1/10", "--mc": "4"}
        args[field] = value
        code = main(["basins", *sum(([k, v] for k, v in args.items()), [])])
        cap = capsys.readouterr()
        assert "Traceback" not in cap.err and code in (0, 2), (field, value, code, cap.err)
        if code == 2:
            lines = cap.err.strip().splitlines()
            assert cap.out == "" and len(lines) == 1 and lines[0].startswith("l2g: error:"), (field, value, cap.err)

    fuzz()
