"""The model without weight tying (the paper's premise of Sec. 2 dropped): derived, evaluated, confronted with the
full untied transformer, and its flow predicted from its conserved quantities."""
from __future__ import annotations

from fractions import Fraction as F

import mpmath as mp
import pytest
import sympy as sp

from local2global.numeric.chain import NumericChain
from local2global.cli import main
from local2global.symbolic import symbols as S
from local2global.symbolic.canonical import derive_logit, rank_one_logit
from local2global.symbolic.model import canonical_model

e, w, h, b = S.e, S.w, S.h, S.b


def test_untied_logit_is_derived_from_the_transformer_and_is_eq3_at_h_equal_e():
    r = derive_logit(untied=True)
    assert sp.expand(r["A"] - e * h * (1 + 2 * w * sp.Abs(w))) == 0
    assert sp.expand(r["offset"] + e * h / 2) == 0
    tied = derive_logit()
    assert sp.expand(r["A"].subs(h, e) - tied["A"]) == 0
    # the derivation is the transformer's: an independent evaluation at a rank-one point with a separate head
    for signs in ((1, -1), (1, 1, -1)):
        for ev, wv, hv in ((F(1, 2), F(-3, 4), F(5, 7)), (F(-2, 3), F(1, 3), F(-1, 5))):
            for x in (0, 1):
                full = rank_one_logit(x, signs, sp.Rational(ev), sp.Rational(wv), h_val=sp.Rational(hv))
                ours = (r["A"] * x + r["z0"]).subs({e: ev, w: wv, h: hv})
                assert sp.simplify(full - ours) == 0


def test_untied_model_is_a_parameter_of_the_one_model_and_refuses_attention():
    m = canonical_model(untied=True)
    assert m.params == (e, w, h) and repr(canonical_model()) == "canonical_model(attention=False)"
    with pytest.raises(ValueError):
        canonical_model(True, untied=True)


def test_every_non_global_critical_point_of_the_untied_model_is_a_saddle():
    for bias in (False, True):
        classes = {cs.name: cs.classification for cs in canonical_model(untied=True).critical_sets(bias)}
        star = "Gamma_star" if bias else "Theta_star"
        assert classes.pop(star) == "global_min"
        assert set(classes.values()) == {"saddle"} and len(classes) == 3


def test_untied_saddles_are_strict_off_the_degenerate_point():
    fams = canonical_model(untied=True).untied_hessians["families"]
    assert len(fams) == 4                               # Θ_0 on both branches of w, and the two saddle sets
    for data in fams.values():
        lam = data["eigenvalues_A"]
        nonzero = [x for x in lam if x != 0]               # ±λ and 0: indefinite wherever λ ≠ 0
        assert len(lam) == 3 and len(nonzero) == 2 and sp.simplify(nonzero[0] + nonzero[1]) == 0


def test_conserved_quantities_of_the_untied_flow():
    from local2global.symbolic.basins_untied import untied_flow_facts
    from local2global.symbolic.energy import quadratic_invariants
    facts = untied_flow_facts()
    m = canonical_model(untied=True)
    for E in (facts["E_e"], facts["E_h"]):
        for wb in (S.w_pos, S.w_neg):
            dot = sum(sp.diff(E.subs(w, wb), v) * g.subs(w, wb) for v, g in zip((e, wb, h), m.grad_A))
            assert sp.simplify(dot) == 0
    inv = quadratic_invariants(m)
    assert inv["dimension"] == 1 and sp.expand(inv["invariants"][0] + e**2 - h**2) == 0
    assert quadratic_invariants(canonical_model())["dimension"] == 0        # the tied model: none


def _derived(p, q, e_, w_, h_, b_):
    from local2global.numeric.evaluate.landscape import Landscape
    with mp.workdps(40):
        land = Landscape(p, q, untied=True)
        th = (e_, w_, h_)
        return float(land.loss_b(th, b_)), [float(x) for x in land.grad_b(th, b_)]


POINTS = [(F(9, 10), F(9, 10), F(1, 2), F(-1, 3), F(-3, 4), F(1, 7), 2, 5),
          (F(1, 5), F(3, 10), F(-5, 4), F(2, 3), F(1, 3), F(-2, 5), 3, 4),
          (F(1, 2), F(4, 5), F(3, 7), F(-9, 10), F(6, 5), F(0), 1, 6),
          (F(3, 5), F(4, 5), F(1, 3), F(1, 2), F(-1, 2), F(1, 3), 4, 3)]


@pytest.mark.parametrize("point", POINTS)
def test_full_untied_transformer_matches_the_derived_loss_and_gradient_to_1e_12(point):
    """float64 torch, exact population loss over all 2^N sequences, autograd through the untied canonical map (e ≠ 0:
    at e = 0 the map's ReLU sits on its kink, where autograd takes the derivative 0 of one side)."""
    from local2global.numeric.transformer.experiments import full_values
    p, q, e_, w_, h_, b_, d, N = point
    L, g = _derived(p, q, e_, w_, h_, b_)
    full = full_values(p, q, e_, w_, b_, d=d, N=N, h=h_)
    assert abs(full["loss"] - L) <= 1e-12
    assert max(abs(full["grad"][n] - x) for n, x in zip(("e", "w", "h", "b"), g)) <= 1e-12


def test_untied_head_changes_the_full_model_only_through_the_head():
    import torch
    from local2global.numeric.transformer import canonical_map as cmap, fullmodel as fm
    tied = cmap.canonical_parameters(0.5, -0.3, 0.1, d=2, N=3)
    same = cmap.canonical_parameters(0.5, -0.3, 0.1, d=2, N=3, h=0.5)
    assert torch.equal(fm.population_loss(tied, 0.6, 0.8), fm.population_loss(same, 0.6, 0.8))
    assert tied.names()[-1] == "b" and same.names()[-1] == "head" and same.flatten().numel() == tied.flatten().numel() + 2


@pytest.mark.parametrize("pq", [(F(9, 10), F(9, 10)), (F(1, 10), F(1, 5))])
@pytest.mark.parametrize("theta0", [(F(1, 10), F(1, 5), F(-1, 20)), (F(1, 2), F(-1, 2), F(1, 3)),
                                    (F(-1, 4), F(2), F(1, 2)), (F(1, 3), F(0), F(1, 5)), (F(1, 10), F(-1, 2), F(1, 10))])
def test_predicted_limit_of_the_untied_flow_agrees_with_the_integrated_one(pq, theta0):
    from local2global.numeric.dynamics.basins_untied import flow_report
    rep = flow_report(NumericChain(*pq), *theta0, dps=30)
    assert rep["agree"] is True, rep


def test_untied_flow_from_small_starts_leaves_the_unigram_point_where_the_tied_one_stays():
    from local2global.numeric.dynamics.basins import predict as tied_predict
    from local2global.numeric.dynamics.basins_untied import predict
    # p + q > 1: the tied flow from a small start with w > 0 ends on the unigram line e = 0 (Thm 2)
    assert tied_predict(F(9, 10), F(9, 10), (F(1, 20), F(1, 10))).limit_class == "local_min"
    assert predict(F(9, 10), F(9, 10), (F(1, 20), F(1, 10), F(1, 30))).limit_class == "global_min"
    # on the diagonal |e| = |h| with the wrong sign of eh, the untied flow reaches the line e = h = 0: a saddle
    assert predict(F(9, 10), F(9, 10), (F(1, 20), F(1, 10), F(1, 20))).limit_class == "saddle"


BAD_UNTIED = [
    ["eval", "--p", "0.2", "--q", "0.3", "--e", "1", "--w", "0.5", "--h", "1"],
    ["eval", "--p", "0.2", "--q", "0.3", "--e", "1", "--w", "0.5", "--untied"],
    ["eval", "--p", "0.2", "--q", "0.3", "--e", "1", "--w", "0.5", "--untied", "--h", "nan"],
    ["eval", "--p", "0.2", "--q", "0.3", "--e", "1", "--w", "0.5", "--untied", "--h", "1e400"],
    ["eval", "--p", "0.2", "--q", "0.3", "--e", "1", "--w", "0.5", "--untied", "--h", "1", "--a", "1"],
    ["flow", "--p", "0.9", "--q", "0.9", "--e0", "0.1", "--w0", "0.2", "--h0", "0.1"],
    ["flow", "--p", "0.9", "--q", "0.9", "--e0", "0.1", "--w0", "0.2", "--untied"],
    ["flow", "--p", "0.9", "--q", "0.9", "--e0", "0.1", "--w0", "0.2", "--untied", "--h0", "11"],
    ["flow", "--p", "0.9", "--q", "0.9", "--e0", "0.1", "--w0", "0.2", "--untied", "--h0", "1", "--a0", "0"],
    ["flow", "--suite", "--untied"],
    ["flow", "--untied", "--h0", "1"],
    ["fullmodel", "--p", "0.2", "--q", "0.3", "--e", "1", "--w", "0.5", "--h", "1"],
    ["fullmodel", "--p", "0.2", "--q", "0.3", "--e", "1", "--w", "0.5", "--untied"],
    ["fullmodel", "--p", "0.2", "--q", "0.3", "--e", "1", "--w", "0.5", "--untied", "--h", "inf"],
    ["fullmodel", "--p", "0.2", "--q", "0.3", "--e", "1", "--w", "0.5", "--untied", "--h", "1", "--a", "1"],
    ["eval", "--p", "0.2", "--q", "0.3", "--e", "1", "--w", "0.5", "--untied=1", "--h", "1"],
]


@pytest.mark.parametrize("argv", BAD_UNTIED, ids=lambda a: " ".join(a[:1] + a[9:]))
def test_bad_untied_input_is_one_stderr_line_and_exit_2(capsys, argv):
    assert main(argv) == 2
    cap = capsys.readouterr()
    lines = cap.err.strip().splitlines()
    assert cap.out == "" and len(lines) == 1 and lines[0].startswith("l2g: error:"), cap.err


def test_untied_commands_print_their_model(capsys):
    import json
    assert main(["eval", "--p", "0.9", "--q", "0.9", "--e", "0", "--w", "1/2", "--untied", "--h", "0", "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["critical"] == "Theta_0" and len(res["grad"]) == 3
    assert main(["fullmodel", "--p", "0.9", "--q", "0.9", "--e", "1/2", "--w", "1/5", "--untied", "--h", "-7/10",
                 "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["point"]["head"] == "untied" and res["max_abs_diff"] <= 1e-12
