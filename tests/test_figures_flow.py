"""Fig. 1 (a)-(d): deterministic output, and the plotted fields equal the high-precision engine."""
from __future__ import annotations

import random
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest

from local2global.numeric.dynamics import basins as nb
from local2global.proofs.outputs.figures import fig_flow
from local2global.proofs.outputs.figures import plotting
from local2global.numeric.dynamics.flow import ReducedFlow


@pytest.mark.slow
def test_figures_are_byte_identical_across_two_runs(tmp_path):
    names = ["fig1a", "fig1b"]
    first = plotting.render(str(tmp_path / "one"), names)
    second = plotting.render(str(tmp_path / "two"), names)
    assert [p.split("/")[-1] for p in first] == ["fig1a.pdf", "fig1a.png", "fig1b.pdf", "fig1b.png"]
    for a, b in zip(first, second):
        with open(a, "rb") as fa, open(b, "rb") as fb:
            assert fa.read() == fb.read(), a


def test_all_flow_figures_are_registered():
    assert {"fig1a", "fig1b", "fig1c", "fig1d"} <= set(plotting.discover())


def test_basin_shading_matches_the_theorem_classifier():
    rng = random.Random(2)
    for pq, pf in (((Fraction(9, 10), Fraction(9, 10)), 0.9), ((Fraction(1, 10), Fraction(1, 10)), 0.1)):
        for _ in range(40):
            w, e = rng.uniform(-2.5, 2.5), rng.uniform(-2.5, 2.5)
            shaded = fig_flow.basin_grid(pf, pf, np.array([[w]]), np.array([[e]]))[0, 0]
            _, cls = nb.classify_theorem(*pq, (Fraction(e), Fraction(w)), dps=30)
            assert (shaded == 1) == (cls == "local_min"), (e, w, cls)


def test_plotted_flow_field_equals_the_mpmath_gradient():
    rng = random.Random(4)
    fl = ReducedFlow(Fraction(9, 10), Fraction(9, 10))
    for _ in range(10):
        w, e = rng.uniform(-2, 2), rng.uniform(-2, 2)
        U, V = fig_flow.flow_field(0.9, 0.9, np.array([w]), np.array([e]))
        with mp.workdps(30):
            g = fl.grad([mp.mpf(e), mp.mpf(w)])
            assert abs(U[0] + float(g[1])) <= 1e-9 * (1 + abs(float(g[1])))
            assert abs(V[0] + float(g[0])) <= 1e-9 * (1 + abs(float(g[0])))


@pytest.mark.slow
def test_figures_drawn_in_parallel_are_the_files_drawn_in_one_process(tmp_path, monkeypatch):
    from local2global.proofs.outputs.figures import fig_attention
    # the basin map on a 5 x 5 grid, computed afresh by each run (its own cache): in parallel its four slices
    # are computed as pieces of their own before the figure is drawn
    monkeypatch.setattr(fig_attention, "SLICE_N", 5)
    names = ["fig1_legend", "fig1b", "fig5_p09", "fig_attn_basins"]
    monkeypatch.setenv("L2G_CACHE", str(tmp_path / "cache_one"))
    serial = plotting.render(str(tmp_path / "one"), names, workers=1)
    monkeypatch.setenv("L2G_CACHE", str(tmp_path / "cache_two"))
    parallel = plotting.render(str(tmp_path / "two"), names, workers=2)
    assert len(list((tmp_path / "cache_two").rglob("*.json"))) == 4
    assert [p.split("/")[-1] for p in serial] == [p.split("/")[-1] for p in parallel]
    for a, b in zip(serial, parallel):
        with open(a, "rb") as fa, open(b, "rb") as fb:
            assert fa.read() == fb.read(), a
