"""Our R^3 result (issue 16): the claims of `claims_35_basins_r3` hold with the stated statuses and reject their
negative controls; the certified probability bounds are rigorous balls on the right side; the predictor agrees
with integrated flows; `l2g flow --a0` shows the prediction next to the integration."""
from __future__ import annotations

from fractions import Fraction

import pytest

from local2global.proofs import Context, REGISTRY, run_claim, select

select()
R3_CLAIMS = sorted(cid for cid, c in REGISTRY.items() if c.check.__module__.endswith("claims_35_basins_r3"))
EXPECTED = {"r3.exact_facts": "proved", "r3.airy_facts": "certified", "r3.trichotomy": "proved",
            "r3.lemma_c": "proved", "r3.basins_A": "proved", "r3.basins_B": "proved",
            "r3.lemma15_thm3": "erratum", "thm11.precise": "certified"}


@pytest.fixture(scope="module")
def r3_records():
    return {cid: run_claim(REGISTRY[cid], Context()) for cid in R3_CLAIMS}


def test_the_r3_module_registers_exactly_the_expected_claims():
    assert R3_CLAIMS == sorted(EXPECTED)


@pytest.mark.parametrize("cid", sorted(EXPECTED))
def test_r3_claim_has_its_own_status_and_rejects_its_negative_control(r3_records, cid):
    r = r3_records[cid]
    assert r.own_status == EXPECTED[cid], f"{cid}: {r.own_status}: {r.evidence}"
    assert r.control.startswith("rejected"), f"{cid}: {r.control}"
    assert r.stated_domain and r.checked_domain


def test_theorems_a_and_b_are_corroborated_by_integrated_flows_on_both_sides_of_every_boundary(r3_records):
    for cid in ("r3.basins_A", "r3.basins_B"):
        (corr,) = r3_records[cid].corroborations
        assert corr.kind == "sampled" and corr.ok and corr.digits == 30
        names = [k for k, _ in corr.values]
        assert "mismatch" not in names and any(k.startswith("sad") for k in names) and any(k.startswith("st") for k in names)
        assert dict(corr.values)["agree"] == f"{corr.count} of {corr.count}"
    assert any(k.startswith("S ") for k, _ in r3_records["r3.basins_A"].corroborations[0].values)


def test_the_erratum_shows_the_printed_convergence_statement_failing_on_the_separatrix(r3_records):
    r = r3_records["r3.lemma15_thm3"]
    assert r.status == "erratum" and r.erratum
    (printed,) = [s for s in r.printed_steps if not s.ok]
    assert printed.kind == "exact" and any("the derivation says unbounded, the statement converges" in v
                                           for _, v in printed.values)
    assert all(s.ok for s in r.steps) and all(s.ok for s in r.corroborations)
    assert r.corroborations[0].kind == "sampled" and dict(r.corroborations[0].values)["status at t = 30"] == "t_max"


def test_the_theorem_11_bound_is_certified_on_its_cells(r3_records):
    r = r3_records["thm11.precise"]
    assert "5714 Lemma C cells" in r.checked_domain
    intervals = [s for s in r.steps if s.kind == "interval"]
    assert len(intervals) == 3 and all(s.ok and s.digits == 128 for s in intervals)
    assert 5714 in [s.count for s in intervals]
    assert [s.kind for s in r.steps if s.kind not in ("interval",)] == ["argued"]      # Fubini and the cells, in prose


def test_the_certified_lower_bound_lies_below_the_quadrature_value_and_the_uniform_bound_above_it():
    from local2global.numeric.dynamics import prob_r3 as P
    lb = P.lower_bound(Fraction(1, 10))
    # quadrature (research note, N = 20 vs 32 agree to 1e-22): 1 - P_min(1/10) = 3.7226978818946808831e-9
    assert lb["eps"] > P._ball(Fraction(37226978818946808831, 10**28))
    assert lb["eps"].rad() < P._ball(Fraction(1, 10**18))
    mono = P.monotone_bound(Fraction(1, 10))
    assert mono["eps_mono"] > lb["eps"]                   # uniform over sigma <= 1/10 is weaker than pointwise
    lo, hi = P.ball_interval(lb["LB"], 20)
    assert Fraction(lo) <= P.exact_point(lb["LB"].mid()) <= Fraction(hi)


def test_decimal_rounding_is_outward():
    from local2global.numeric.dynamics.prob_r3 import decimal_rounded
    assert decimal_rounded(Fraction(1, 3), 3, up=False) == "0.333" and decimal_rounded(Fraction(1, 3), 3, up=True) == "0.334"
    assert decimal_rounded(Fraction(-1, 3), 3, up=False) == "-0.334"
    assert decimal_rounded(Fraction(2835, 10**11), 4, up=True) == "2.835e-8"
    assert decimal_rounded(Fraction(999999, 10**6), 3, up=True) == "1.00"


@pytest.mark.parametrize("pq", [("9/10", "9/10"), ("1/10", "1/10")])
def test_flow_a0_reports_the_predicted_class_and_it_agrees_with_the_integrated_one_on_random_starts(pq, capsys):
    import json

    from local2global.cli import main
    from local2global.numeric.dynamics.basins_r3 import random_starts
    seen = set()
    for th in random_starts(6, seed=16 if pq[0] == "9/10" else 17):
        assert main(["flow", "--p", pq[0], "--q", pq[1], "--e0", str(th[0]), "--w0", str(th[1]), "--a0", str(th[2]),
                     "--dps", "30", "--json"]) == 0
        rep = json.loads(capsys.readouterr().out)
        assert rep["predicted"]["class"] == rep["integrated"]["class"] and rep["agree"] is True, (th, rep)
        seen.add(rep["predicted"]["class"])
    assert seen == {"global_min", "local_min"}


def test_flow_a0_text_shows_the_prediction_next_to_the_integration(capsys):
    from local2global.cli import main
    assert main(["flow", "--p", "0.9", "--q", "0.9", "--e0", "1/2", "--w0", "1/2", "--a0", "0", "--dps", "15"]) == 0
    out = capsys.readouterr().out
    assert "predicted limit:   local_min" in out and "integrated limit:  local_min" in out and "agree:             yes" in out
    assert "no analytic prediction" not in out


@pytest.mark.slow
def test_the_r3_basins_figure_is_registered_and_its_bytes_are_deterministic(tmp_path, monkeypatch):
    from local2global.commands.figures import FIGURES
    from local2global.proofs.outputs.figures import fig_r3_basins as FR, plotting
    assert "fig_r3_basins" in plotting.discover() and list(FIGURES) == list(plotting.discover())
    monkeypatch.setattr(FR, "GRID_D", 7)            # the bytes do not depend on the grid size being large
    one = plotting.save(FR.fig_r3_basins(), str(tmp_path / "one"), "fig_r3_basins")
    two = plotting.save(FR.fig_r3_basins(), str(tmp_path / "two"), "fig_r3_basins")
    for a_, b_ in zip(one, two):
        assert open(a_, "rb").read() == open(b_, "rb").read()


def test_airy_fast_path_is_correct_to_the_working_precision_and_falls_back_off_the_reals():
    import random

    import mpmath as mp

    from local2global.numeric.dynamics.basins_r3 import _airy
    rng = random.Random(7)
    exact = (mp.airyai, lambda x: mp.airyai(x, 1), mp.airybi, lambda x: mp.airybi(x, 1))
    for dps in (15, 40):
        with mp.workdps(dps):
            prec = mp.mp.prec
            for _ in range(40):
                z = mp.mpf(rng.randint(-3000, 3000)) / 100
                for k in range(4):
                    got = _airy(z, k)
                    with mp.workdps(dps + 30):
                        ref = exact[k](z)
                        assert abs(got - ref) <= abs(ref) * mp.mpf(2) ** (1 - prec), (dps, z, k)
    with mp.workdps(30):
        zc = mp.mpc(1, 2)
        assert _airy(zc, 2) == mp.airybi(zc)


@pytest.mark.parametrize("start", [(Fraction(1, 2), Fraction(1, 3)), (Fraction(1, 2), Fraction(-1)), (Fraction(2), Fraction(1))])
def test_the_certified_end_point_on_the_axis_encloses_the_newton_value(start):
    """`a_inf_arb`: a ball, every step certified (z0 > a_1, beta > 0, the sign change of q, the sign of l), that
    contains the safeguarded-Newton a_inf of mpmath at 60 digits and is narrow at 200 bits."""
    import mpmath as mp
    from local2global.numeric.dynamics import basins_r3 as B
    ball, info = B.a_inf_arb(*start, prec=200)
    with mp.workdps(70):
        ref = B.a_inf(*start, dps=60)
        mid, rad = mp.mpf(ball.mid().str(60, radius=False)), mp.mpf(ball.rad().str(5, radius=False))
        assert abs(mid - ref) <= rad + mp.mpf(10) ** -58
    assert rad < mp.mpf(10) ** -40 and info["beta"] > 0


def test_the_certified_end_point_refuses_a_start_whose_line_does_not_reach_the_axis():
    """(e0, a0) = (1, -1/2) descends to C, not to the axis: beta > 0 cannot be certified and nothing is returned."""
    from local2global.numeric.dynamics import basins_r3 as B
    assert B.descent_fate(Fraction(1), Fraction(-1, 2), 30)["fate"] != "axis"
    with pytest.raises(ArithmeticError, match="beta"):
        B.a_inf_arb(Fraction(1), Fraction(-1, 2))
