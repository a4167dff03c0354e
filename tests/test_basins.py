"""Basins of Thms 2 and 8: theorem sets vs analytic predictor vs integration, boundaries, and the flow
claims with their negative controls (the Gaussian-initialization probabilities: test_gaussian_certified.py)."""
from __future__ import annotations

import random
from fractions import Fraction

import mpmath as mp
import pytest

from local2global.numeric.dynamics import basins as nb
from local2global.proofs import REGISTRY, Context, run_claim
from local2global.proofs import claims_20_flow

P9 = (Fraction(9, 10), Fraction(9, 10))
P1 = (Fraction(1, 10), Fraction(1, 10))
PAIRS = (P9, P1, (Fraction(3, 5), Fraction(4, 5)), (Fraction(1, 5), Fraction(3, 10)))


@pytest.mark.parametrize("pq", PAIRS, ids=lambda pq: f"p={pq[0]},q={pq[1]}")
def test_predictor_agrees_with_theorem_sets_on_random_starts(pq):
    rng = random.Random(11)
    for _ in range(25):
        th = (Fraction(rng.randint(-250, 250), 100), Fraction(rng.randint(-250, 250), 100))
        _, cls = nb.classify_theorem(*pq, th, dps=30)
        assert nb.predict(*pq, th, dps=30).limit_class == cls, th


# the theorem's statement, side by side: (regime, boundary, side) -> class of the limit
EXPECTED = {
    ("gt", "I_sad e=+g", "inside"): "local_min", ("gt", "I_sad e=+g", "outside"): "global_min",
    ("gt", "I_sad e=-g", "inside"): "local_min", ("gt", "I_sad e=-g", "outside"): "global_min",
    ("gt", "e-axis", "w>0"): "local_min", ("gt", "e-axis", "w<0"): "local_min",
    ("gt", "w=-1/sqrt2, e=0", "right"): "local_min", ("gt", "w=-1/sqrt2, e=0", "left"): "local_max",
    ("gt", "w=-1/sqrt2, e=1/4", "right"): "global_min", ("gt", "w=-1/sqrt2, e=1/4", "left"): "global_min",
    ("lt", "I_sad e=+g", "inside"): "local_min", ("lt", "I_sad e=+g", "outside"): "global_min",
    ("lt", "I_sad e=-g", "inside"): "local_min", ("lt", "I_sad e=-g", "outside"): "global_min",
    ("lt", "e-axis", "w>0"): "global_min", ("lt", "e-axis", "w<0"): "global_min",
    ("lt", "w=-1/sqrt2, e=0", "right"): "local_max", ("lt", "w=-1/sqrt2, e=0", "left"): "local_min",
    ("lt", "w=-1/sqrt2, e=1/4", "right"): "global_min", ("lt", "w=-1/sqrt2, e=1/4", "left"): "global_min",
    ("gt", "exactly on I_sad", "on"): "saddle", ("lt", "exactly on I_sad", "on"): "saddle",
    ("gt", "E_sad contour beyond the saddle", "on"): "global_min",
    ("lt", "E_sad contour beyond the saddle", "on"): "global_min",
    ("gt", "e-axis", "on"): "local_min", ("lt", "e-axis", "on"): "global_min",
    ("gt", "Theta_max", "on"): "local_max", ("lt", "Theta_max", "on"): "local_max",
}


@pytest.mark.parametrize("pq", PAIRS, ids=lambda pq: f"p={pq[0]},q={pq[1]}")
def test_predicted_class_is_right_on_both_sides_of_every_boundary_down_to_1e_minus_20(pq):
    reg = "gt" if sum(pq) > 1 else "lt"
    rows = nb.boundary_starts(*pq, ks=(1, 20), dps=50)
    for row in rows:
        _, thm = nb.classify_theorem(*pq, row["theta"], dps=50)
        pred = nb.predict(*pq, row["theta"], dps=50).limit_class
        want = EXPECTED[(reg, row["boundary"], row["side"])]
        assert thm == pred == want, (row["boundary"], row["side"], row["k"])


def test_integrated_flow_agrees_on_both_sides_of_I_sad_at_1e_minus_10():
    w_b = Fraction(-1, 2)
    with mp.workdps(60):
        g = nb.derived_functions()["g"](mp.mpf(w_b.numerator) / w_b.denominator)
        for side, delta, want in (("inside", -1, "local_min"), ("outside", 1, "global_min")):
            th = (g + delta * mp.mpf(10) ** -10, w_b)
            cls, res = nb.integrate_class(*P9, th, dps=30)
            assert cls == want and res.converged, side


def test_start_exactly_on_I_sad_flows_to_the_saddle_at_50_digits():
    with mp.workdps(60):
        th = (nb.derived_functions()["g"](mp.mpf(-1) / 2), mp.mpf(-1) / 2)
    cls, res = nb.integrate_class(*P9, th, dps=50)
    assert cls == "saddle"


def test_I_common_lies_in_the_global_basin_for_both_regimes():
    rng = random.Random(5)
    n = 0
    for _ in range(40):
        th = (Fraction(rng.randint(-250, 250), 100), Fraction(rng.randint(-250, -1), 100))
        if nb.in_I_common(th, dps=30):
            n += 1
            for pq in PAIRS:
                assert nb.predict(*pq, th, dps=30).limit_class == "global_min"
    assert n > 5


FLOW_CLAIMS = sorted(cid for cid, c in REGISTRY.items() if c.check.__module__ == claims_20_flow.__name__)


@pytest.mark.parametrize("cid", FLOW_CLAIMS)
def test_flow_claim_passes_and_its_negative_control_rejected(cid):
    rec = run_claim(REGISTRY[cid], Context(dps=50, points=20))
    assert rec.status in ("proved", "certified", "sampled", "erratum"), rec.evidence
    assert rec.control.startswith("rejected"), rec.control


def test_the_float64_basin_map_reads_the_sets_as_the_mpmath_classifier_does():
    """`engine.basin_labels` (numpy) and `classify_theorem` (mpmath) evaluate the same conditions with the one
    operator table (`symbolic.sets.RELATIONS`): the same basin at grid points off the boundaries."""
    from local2global.numeric.evaluate import engine
    import numpy as np
    pts = [(Fraction(i, 4), Fraction(j, 4)) for i in range(-6, 7, 3) for j in range(-8, 5, 3)]
    for (p, q), regime in ((P9, "p+q>1"), (("1/10", "1/10"), "p+q<1")):
        labels = engine.basin_labels(regime, np.array([float(e) for e, _ in pts]), np.array([float(w) for _, w in pts]))
        assert list(labels) == [nb.classify_theorem(p, q, th, dps=30)[0] for th in pts]
