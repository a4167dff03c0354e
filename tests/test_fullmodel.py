"""The full transformer (torch, float64) against the symbolic reduction: Eq. 3/41, Lemmas 2/3/7/13, Thms 4/5.

The torch model and the canonical map import nothing from `symbolic` (checked below), so every
agreement here is between two independent computations.
"""
from __future__ import annotations

import ast
import itertools
import math
import pathlib
import random
from fractions import Fraction

import mpmath as mp
import pytest
import sympy as sp
import torch

from local2global.numeric.transformer import canonical_map as cmap
from local2global.numeric.transformer import experiments as X
from local2global.numeric.transformer import fullmodel as fm
from local2global.numeric.evaluate.landscape import Landscape
from local2global.symbolic import MarkovChain
from local2global.symbolic import symbols as S
from local2global.symbolic.model import canonical_model

_M = canonical_model()
_MA = canonical_model(True)

ROOT = pathlib.Path(__file__).resolve().parents[1]
P, Q = Fraction(1, 5), Fraction(3, 10)            # p + q < 1
P2, Q2 = Fraction(1, 2), Fraction(4, 5)          # p + q > 1 (Fig. 4's chain)
DIMS, LENGTHS, SIGNS = (2, 8), (1, 5, 12), (1, -1)


pytestmark = pytest.mark.usefixtures("one_torch_thread")


def _rng(*key) -> random.Random:
    return random.Random("/".join(map(str, key)))


def _rational(rng, lo, hi, sign) -> Fraction:
    """A random rational of the given sign with |x| in [lo, hi] (denominators <= 97)."""
    den = rng.randint(7, 97)
    return sign * Fraction(rng.randint(int(lo * den) + 1, int(hi * den)), den)


def _alphas(d, rng, k=3):
    """All sign patterns for small d, else the all-ones pattern plus k random ones."""
    if d <= 3:
        return cmap.sign_patterns(d)
    return [(1,) * d] + [tuple(rng.choice((1, -1)) for _ in range(d)) for _ in range(k)]


def _points(key, se, sw, n=3):
    rng = _rng(*key)
    return [(_rational(rng, 0.2, 1.6, se), _rational(rng, 0.1, 1.4, sw), _rational(rng, -1.5, 1.5, 1))
            for _ in range(n)]


def _per_bit(x: torch.Tensor, z) -> torch.Tensor:
    """The reference logit z(x_n) at every position of every sequence (Eq. 3/41 depend on x_n only)."""
    return torch.where(x > 0, torch.tensor(float(z(1)), dtype=fm.DTYPE), torch.tensor(float(z(0)), dtype=fm.DTYPE))


def _rel_err(full: torch.Tensor, ref: torch.Tensor) -> float:
    """max |full - ref| / max(|ref|, 1): relative for |logit| >= 1, absolute below."""
    return float(((full - ref).abs() / ref.abs().clamp(min=1.0)).max())


# --------------------------------------------------------------------------------------------
# Independence of the witness
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("module", ["fullmodel.py", "canonical_map.py"])
def test_torch_witness_imports_nothing_from_symbolic(module):
    tree = ast.parse((ROOT / "numeric" / "transformer" / module).read_text())
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add(("." * node.level) + (node.module or ""))
    allowed = {"__future__", "math", "itertools", "dataclasses", "functools", "torch", "local2global.numeric.transformer.fullmodel"}
    assert imported and imported <= allowed, imported - allowed


# --------------------------------------------------------------------------------------------
# Logits at canonical points: Eq. 3 (softmax model, W_V = 0) and Eq. 41 (linear attention)
# --------------------------------------------------------------------------------------------

_EQ3 = sp.lambdify((S.X, S.e, S.w, S.b), _M.logit(S.X), modules="math")


@pytest.mark.parametrize("d", DIMS)
@pytest.mark.parametrize("N", LENGTHS)
@pytest.mark.parametrize("se,sw", list(itertools.product(SIGNS, SIGNS)))
def test_full_logits_equal_eq3_on_every_sequence(d, N, se, sw):
    x = fm.all_sequences(N)
    worst = 0.0
    for signs in _alphas(d, _rng("alpha", d, N, se, sw)):
        for e, w, b in _points(("eq3", d, N, se, sw), se, sw, n=1 if N == 12 else 2):
            theta = cmap.canonical_parameters(float(e), float(w), float(b), d=d, N=N, signs=signs)
            full = fm.logits(theta, x, "softmax")
            ref = _per_bit(x, lambda bit: _EQ3(bit, float(e), float(w), float(b)))
            worst = max(worst, _rel_err(full, ref))
    assert worst <= 1e-12, worst


def test_unflipped_alpha_for_negative_e_breaks_eq3():
    """Negative control: for e < 0, keeping alpha in W_1, W_2 gives the slope of Eq. 3 but another offset."""
    e, w, b, N = -1.2, 0.7, 0.3, 5
    x = fm.all_sequences(N)
    ref = _per_bit(x, lambda bit: _EQ3(bit, e, w, b))
    bad = fm.logits(cmap.canonical_parameters(e, w, b, d=2, N=N, flip_alpha_with_e=False), x)
    slope = bad[x > 0].mean() - bad[x == 0].mean()
    assert _rel_err(bad, ref) > 0.1
    assert abs(float(slope) - e**2 * (1 + 2 * w * abs(w))) < 1e-12    # same slope, wrong offset


@pytest.fixture(scope="module")
def eq41():
    return sp.lambdify((S.X, S.e, S.w, S.a, S.b), _MA.logit(S.X), modules="math")


@pytest.mark.parametrize("d", DIMS)
@pytest.mark.parametrize("N", LENGTHS)
@pytest.mark.parametrize("se,sw", list(itertools.product(SIGNS, SIGNS)))
def test_linear_attention_logits_equal_eq41_on_every_sequence(eq41, d, N, se, sw):
    x = fm.all_sequences(N)
    rng = _rng("eq41", d, N, se, sw)
    worst, gains = 0.0, set()
    for signs in _alphas(d, rng, k=1)[-(1 if N == 12 else 2):]:
        for e, w, b in _points(("eq41", d, N, se, sw), se, sw, n=1 if N == 12 else 2):
            for a in (_rational(rng, 0.05, 1.0, 1), _rational(rng, 0.05, 1.0, -1), -2 / e**2):
                gains.add(1 + a * e**2 > 0)
                theta = cmap.canonical_parameters(float(e), float(w), float(b), a=float(a), d=d, N=N, signs=signs)
                full = fm.logits(theta, x, "linear")
                ref = _per_bit(x, lambda bit: eq41(bit, float(e), float(w), float(a), float(b)))
                worst = max(worst, _rel_err(full, ref))
    assert gains == {True, False}          # both signs of the attention gain 1 + a e^2 were covered
    assert worst <= 1e-12, worst


# --------------------------------------------------------------------------------------------
# Population loss and gradients (Lemma 2, 3; Lemma 13)
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("d", DIMS)
@pytest.mark.parametrize("N", LENGTHS)
@pytest.mark.parametrize("se,sw", list(itertools.product(SIGNS, SIGNS)))
def test_population_loss_and_gradient_equal_lemma2_and_lemma3(d, N, se, sw):
    land = Landscape(P, Q)
    signs = _alphas(d, _rng("lg", d, N, se, sw), k=1)[-1]
    worst_loss = worst_grad = 0.0
    for e, w, b in _points(("lg", d, N, se, sw), se, sw, n=2):
        sym = land.at((e, w), b, dps=30)
        full = X.full_values(float(P), float(Q), e, w, b, d=d, N=N, signs=signs)
        worst_loss = max(worst_loss, abs(full["loss"] - float(sym.loss_b)))
        worst_grad = max(worst_grad, max(abs(full["grad"][n] - float(g)) / (1 + abs(float(g)))
                                         for n, g in zip("ewb", sym.grad_b)))
    assert worst_loss <= 1e-13, worst_loss
    assert worst_grad <= 1e-12, worst_grad


@pytest.mark.parametrize("N", (5, 12))
@pytest.mark.parametrize("se,sw", list(itertools.product(SIGNS, SIGNS)))
def test_gradient_at_optimal_bias_equals_lemma7(N, se, sw):
    """Reduced loss: at b = b*, d/db vanishes and (e, w) match grad L(e, w) of Lemma 7."""
    land = Landscape(P2, Q2)
    for e, w, _ in _points(("l7", N, se, sw), se, sw, n=2):
        sym = land.at((e, w), dps=30)
        full = X.full_values(float(P2), float(Q2), e, w, float(sym.b_star), d=2, N=N)
        assert abs(full["loss"] - float(sym.loss)) <= 1e-13
        assert abs(full["grad"]["b"]) <= 1e-13
        for n, g in zip("ew", sym.grad):
            assert abs(full["grad"][n] - float(g)) <= 1e-12 * (1 + abs(float(g)))


@pytest.mark.parametrize("d", DIMS)
@pytest.mark.parametrize("se,sw", list(itertools.product(SIGNS, SIGNS)))
def test_linear_attention_loss_and_gradient_equal_lemma13(d, se, sw):
    att = Landscape(P, Q, attention=True)
    rng = _rng("l13", d, se, sw)
    for e, w, b in _points(("l13", d, se, sw), se, sw, n=2):
        for a in (_rational(rng, 0.05, 1.0, 1), _rational(rng, 0.05, 1.0, -1) - 1 / e**2):
            with mp.workdps(30):
                loss, grad = att.loss_b((e, w, a), b), att.grad_b((e, w, a), b)
            full = X.full_values(float(P), float(Q), e, w, b, a=a, d=d, N=5)
            assert abs(full["loss"] - float(loss)) <= 1e-13
            for n, g in zip("ewab", grad):
                assert abs(full["grad"][n] - float(g)) <= 1e-12 * (1 + abs(float(g))), (n, full["grad"][n], g)


def test_side_by_side_reports_agreement_and_detects_a_wrong_bias():
    out = X.side_by_side(P2, Q2, Fraction(3, 4), Fraction(-9, 10), None, d=2, N=5)
    assert out["max_abs_diff"] <= 1e-12 and abs(out["symbolic"]["grad"]["b"]) < 1e-13
    # negative control: the full model evaluated at another bias than the symbolic side disagrees
    full = X.full_values(float(P2), float(Q2), Fraction(3, 4), Fraction(-9, 10), out["point"]["b_value"] + 0.1)
    assert abs(full["loss"] - out["symbolic"]["loss"]) > 1e-4


# --------------------------------------------------------------------------------------------
# Full gradient vs the tangent space of the canonical manifold
# --------------------------------------------------------------------------------------------

def _u1_coefficient_closed_form(p, q, e, w, b, N):
    """Normal part along u_1 (token alpha_e, p_n = (2/N) alpha_e, normalised), derived by hand:
    <g, (1, 2/N)> = (-t/2 + 2t/N) R_0 + t (1 + 4w|w|)(3/2 + 2/N) R_1, t = |e|,
    R_x = pi_x (sigma(z_x) - P(1|x)), z_x the Eq. 3 logit."""
    pi1 = p / (p + q)
    sig = lambda z: 1 / (1 + math.exp(-z))
    z0, z1 = b - e * e / 2, b - e * e / 2 + e * e * (1 + 2 * w * abs(w))
    R0, R1 = (1 - pi1) * (sig(z0) - p), pi1 * (sig(z1) - (1 - q))
    t = abs(e)
    return ((-t / 2 + 2 * t / N) * R0 + t * (1 + 4 * w * abs(w)) * (1.5 + 2 / N) * R1) / math.sqrt(1 + 4 / N)


@pytest.mark.parametrize("e,w,b", [(1.3, -0.8, 0.2), (-1.3, 0.6, -0.4), (0.7, 1.1, 0.3), (-0.5, -0.4, 1.0)])
@pytest.mark.parametrize("d,N", [(2, 5), (8, 3)])
def test_full_gradient_leaves_the_canonical_manifold_along_two_rank_one_directions(e, w, b, d, N):
    """The canonical manifold is not invariant under full gradient flow: the normal part of the
    gradient is nonzero, but it lies exactly in span{u_1 (token/positional split), u_2 (W_V ~ alpha alpha^T)};
    W_1, W_2, W_Q, W_K and b carry no normal part."""
    signs = _alphas(d, _rng("nc", d), k=1)[-1]
    nc = X.normal_component(0.2, 0.3, e, w, b, d=d, N=N, signs=signs)
    assert nc.normal_norm > 1e-2 * nc.grad_norm
    assert nc.residual <= 1e-14 * max(1.0, nc.grad_norm)
    for block in ("W_Q", "W_K", "W_1", "W_2", "b"):
        assert nc.blocks[block] <= 1e-14, (block, nc.blocks[block])
    assert abs(nc.coefficients[1]) > 1e-4
    assert abs(nc.coefficients[0] - _u1_coefficient_closed_form(0.2, 0.3, e, w, b, N)) <= 1e-13


@pytest.mark.parametrize("p,q,w", [(P, Q, Fraction(1, 2)), (P2, Q2, Fraction(-3, 2)), (Fraction(9, 10), Fraction(9, 10), Fraction(-1))])
def test_normal_component_vanishes_on_theta_star_and_on_the_e_axis(p, q, w):
    e, w_, b = X.theta_star_point(p, q, w)
    at_star = X.normal_component(float(p), float(q), e, w_, b, d=2, N=4, signs=(1, -1))
    assert at_star.grad_norm <= 1e-14 and at_star.normal_norm <= 1e-14
    on_axis = X.normal_component(float(p), float(q), 0.0, 0.8, 0.3, d=2, N=4, signs=(1, -1))
    assert on_axis.normal_norm <= 1e-15 and on_axis.grad_norm > 1e-3      # only the b-component (tangent)


# --------------------------------------------------------------------------------------------
# Thm 4 and Thm 5 in the full model
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("p,q,w", [(P, Q, Fraction(1, 2)), (P, Q, Fraction(-1, 3)), (P2, Q2, Fraction(-3, 2)),
                                   (Fraction(9, 10), Fraction(9, 10), Fraction(-1))])
@pytest.mark.parametrize("d,N", [(2, 5), (8, 12)])
def test_thm4_full_loss_at_theta_star_is_the_entropy_rate(p, q, w, d, N):
    e, w_, b = X.theta_star_point(p, q, w)
    H = float(MarkovChain(sp.Rational(p.numerator, p.denominator), sp.Rational(q.numerator, q.denominator)).entropy_rate)
    for sgn in (1, -1):
        assert abs(X.full_loss_at(float(p), float(q), sgn * e, w_, b, d=d, N=N) - H) <= 1e-13
    # negative control: the marginal entropy H(pi) is not the value there
    Hpi = float(MarkovChain(sp.Rational(p.numerator, p.denominator), sp.Rational(q.numerator, q.denominator)).marginal_entropy)
    assert abs(X.full_loss_at(float(p), float(q), e, w_, b, d=d, N=N) - Hpi) > 1e-3


def test_thm4_theta_star_is_a_critical_point_with_psd_full_hessian():
    p, q = 0.5, 0.8
    e, w, b = X.theta_star_point(P2, Q2, Fraction(-3, 2))
    theta = cmap.canonical_parameters(e, w, b, d=2, N=3, signs=(1, -1))
    f = lambda v: fm.population_loss(theta.unflatten(v), p, q)
    flat = theta.flatten().requires_grad_(True)
    g, = torch.autograd.grad(f(flat), flat)
    H = torch.autograd.functional.hessian(f, theta.flatten())
    eig = torch.linalg.eigvalsh(H)
    assert float(g.norm()) <= 1e-14
    assert float(eig.min()) >= -1e-13 and float(eig.max()) > 1e-2


@pytest.mark.parametrize("w", [0.8, 0.1, -0.3, -0.45])
def test_thm5_theta_min_is_a_local_minimum_of_the_full_loss_for_w_above_minus_half(w):
    """p + q > 1, e = 0, b = log(p/q): random perturbations (all parameters) never lower the loss,
    and the three deciding directions rise at the predicted rates."""
    p, q, r = 0.9, 0.9, 1e-3
    probe = X.theta_min_probe(p, q, w, d=2, N=3, radius=r, directions=300)
    assert probe["worst_random"] >= -1e-15
    for k, slope in X.theta_min_slopes(p, q, w).items():
        assert slope > 0
        assert abs(probe["directions"][k] / r**2 - slope) <= 1e-3 * abs(slope), k


@pytest.mark.parametrize("w", [-0.55, -0.65])
def test_thm5_fails_in_the_full_model_between_minus_one_over_sqrt2_and_minus_half(w):
    """1 + 2w|w| > 0 (canonical local minimum) but 1 + 4w|w| < 0: switching the positional embedding
    off (token r alpha, p_n = 0) makes the ReLU layer fully active and lowers the full loss."""
    p, q, r = 0.9, 0.9, 1e-3
    assert 1 + 2 * w * abs(w) > 0 > 1 + 4 * w * abs(w)
    probe = X.theta_min_probe(p, q, w, d=2, N=3, radius=r, directions=300)
    slope = X.theta_min_slopes(p, q, w)["relu_active"]
    assert probe["directions"]["relu_active"] < 0
    assert abs(probe["directions"]["relu_active"] / r**2 - slope) <= 1e-3 * abs(slope)
    assert probe["worst_random"] < 0                   # random directions find descent too (d = 2)
    # the autograd Hessian does not see it: at e = 0 the ReLU sits at its kink (ReLU'(0) = 0 in torch)
    theta = cmap.canonical_parameters(0.0, w, math.log(p / q), d=2, N=3)
    H = torch.autograd.functional.hessian(lambda v: fm.population_loss(theta.unflatten(v), p, q), theta.flatten())
    assert float(torch.linalg.eigvalsh(H).min()) >= -1e-15


def test_canonical_local_minima_for_p_plus_q_below_one_are_saddles_of_the_full_loss():
    """p + q < 1, w < -1/sqrt 2 (Theta_min of Thm 1): a token perturbation orthogonal to alpha lowers the loss."""
    p, q, w, r = 0.2, 0.3, -1.2, 1e-3
    probe = X.theta_min_probe(p, q, w, d=2, N=3, radius=r, directions=50)
    slopes = X.theta_min_slopes(p, q, w)
    assert slopes["along_manifold"] > 0 and probe["directions"]["along_manifold"] > 0     # canonical: a minimum
    assert probe["directions"]["orthogonal"] < 0
    assert abs(probe["directions"]["orthogonal"] / r**2 - slopes["orthogonal"]) <= 1e-3 * abs(slopes["orthogonal"])


# --------------------------------------------------------------------------------------------
# Model plumbing
# --------------------------------------------------------------------------------------------

def test_sequence_probabilities_are_the_stationary_markov_law():
    x = fm.all_sequences(6)
    P_ = fm.sequence_probabilities(0.2, 0.3, x)
    assert abs(float(P_.sum()) - 1) <= 1e-15
    assert abs(float((P_ * x[:, 3]).sum()) - 0.2 / 0.5) <= 1e-15            # x_n ~ pi for every n


def test_empirical_loss_converges_to_the_population_loss():
    g = torch.Generator().manual_seed(0)
    theta = fm.gaussian(2, 4, 0.5, g)
    seqs = fm.sample_sequences(0.2, 0.3, 5, 200_000, g)
    exact = float(fm.population_loss(theta, 0.2, 0.3, N=4))
    assert abs(float(fm.empirical_loss(theta, seqs)) - exact) < 5e-3


def test_model_rejects_bad_inputs():
    with pytest.raises(ValueError):
        fm.logits(fm.zeros(2, 3), fm.all_sequences(4))
    with pytest.raises(ValueError):
        fm.logits(fm.zeros(2, 3), fm.all_sequences(3), attention="cosine")
    with pytest.raises(ValueError):
        cmap.alpha((1, 0))
    with pytest.raises(ValueError):
        fm.population_loss(fm.zeros(2, 3), 1.2, 0.3)


# --------------------------------------------------------------------------------------------
# The registered claims: statuses and negative controls
# --------------------------------------------------------------------------------------------

def test_fullmodel_claims_pass_and_their_negative_controls_are_rejected(tmp_path, monkeypatch):
    """Own statuses (before propagation). Run in an empty folder: without cached training runs the experiment
    claims are open (never trained inside a check), with the command to run."""
    monkeypatch.chdir(tmp_path)
    # an empty training cache: runs cached by earlier tests (or the user) would make the claims experiments
    monkeypatch.setenv("L2G_CACHE", str(tmp_path / "cache"))
    from local2global.proofs import Context, run_claim, select
    expected = {"full.eq3": "sampled", "full.eq41": "sampled", "full.loss": "sampled",
                "full.gradient": "sampled", "full.normal": "sampled", "thm4.full_model": "proved",
                "full.theta_min_bound": "sampled", "thm5.full_model": "proved", "thm5.formula_sheet_reading": "proved",
                "thm5.e_axis_minima": "sampled", "fig3.rank_one_emerges": "open", "fig6.rank_one_stays": "open",
                "fig4.initialization": "open"}
    records = {r.id: r for r in (run_claim(c, Context()) for c in select(list(expected)))}
    assert {k: r.status for k, r in records.items()} == expected
    for k, r in records.items():
        if r.status != "open":
            assert r.control.startswith("rejected"), (k, r.control)
        else:
            assert "l2g figures" in r.evidence
    assert not (tmp_path / "build").exists()


def test_thm5_rests_on_the_sampled_bound_and_thm4_on_proved_steps_only():
    """Propagated statuses: Thm 4 is proved exactly if its steps are; Thm 5 is as strong as its weakest step, the
    sampled perturbation bound (the ladder, not our wish)."""
    from local2global.proofs import Context, run_claims, select
    recs = {r.id: r for r in run_claims(select(["thm5.full_model"]), Context(), workers=1)}
    assert recs["thm5.full_model"].own_status == "proved"
    assert recs["thm5.full_model"].status == "sampled" and recs["thm5.full_model"].weakest == "full.theta_min_bound"
    assert recs["thm4.full_model"].status == recs[recs["thm4.full_model"].weakest].own_status


def test_experiment_claims_read_cached_runs(tmp_path, monkeypatch):
    """With cached runs present the claim's strength is `experiment`: Fig. 6 on a quick run (rank one stays)."""
    from local2global.proofs import Context, run_claim, select
    from local2global.proofs import claims_40_fullmodel as C
    quick6, quick3 = X.fig6_runs(quick=True, cache_dir=str(tmp_path)), X.fig3_runs(quick=True, cache_dir=str(tmp_path))
    monkeypatch.setattr(C.nexp, "fig6_runs", lambda **kw: quick6)
    monkeypatch.setattr(C.nexp, "fig3_runs", lambda **kw: quick3)
    rec = run_claim(select(["fig6.rank_one_stays"])[0], Context())
    assert rec.status == "experiment" and rec.control.startswith("rejected"), (rec.evidence, rec.control)


# --------------------------------------------------------------------------------------------
# `l2g fullmodel`
# --------------------------------------------------------------------------------------------

def test_cli_fullmodel_json_contract(capsys):
    import json
    from local2global.cli import main
    assert main(["fullmodel", "--p", "0.5", "--q", "4/5", "--e", "0.7", "--w", "-1.2", "--a", "0.3",
                 "--d", "2", "--N", "4", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert list(out["symbolic"]["grad"]) == ["e", "w", "a", "b"] == list(out["full"]["grad"])
    diffs = [abs(out["symbolic"]["loss"] - out["full"]["loss"])]
    diffs += [abs(out["symbolic"]["grad"][k] - out["full"]["grad"][k]) for k in "ewab"]
    assert out["max_abs_diff"] == max(diffs) <= 1e-12
    assert main(["fullmodel", "--p", "0.5", "--q", "0.8", "--e", "0.7", "--w", "0.4", "--b", "1/3"]) == 0
    table = capsys.readouterr().out
    assert "dL/db" in table and "max |difference|" in table


@pytest.mark.parametrize("argv", [
    ["--p", "1", "--q", "0.5", "--e", "1", "--w", "1"],
    ["--p", "0.5", "--q", "0.5", "--e", "x", "--w", "1"],
    ["--p", "0.5", "--q", "0.5", "--e", "1", "--w", "0"],
    ["--p", "0.5", "--q", "0.5", "--e", "1", "--w", "1", "--N", "99"],
    ["--p", "0.5", "--q", "0.5", "--e", "1", "--w", "1", "--d", "0"],
    ["--p", "0.5", "--q", "0.5", "--e", "1e9", "--w", "1"],
    ["--p", "0.5", "--q", "0.5", "--e", "1"],
])
def test_cli_fullmodel_bad_input_is_one_line_and_exit_2(argv, capsys):
    from local2global.cli import main
    assert main(["fullmodel", *argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.strip().splitlines()) == 1


# --------------------------------------------------------------------------------------------
# The batched and the fast (bit-affine) evaluation of the same model
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("attention", fm.ATTENTIONS)
def test_batched_parameters_evaluate_each_model_as_alone(attention):
    g = torch.Generator().manual_seed(1)
    thetas = [fm.gaussian(3, 5, 0.7, g) for _ in range(3)]
    stacked = fm.stack_parameters(thetas)
    x = fm.all_sequences(5)
    both = fm.logits(stacked, x, attention)
    for r, th in enumerate(thetas):
        assert float((both[r] - fm.logits(th, x, attention)).abs().max()) <= 1e-14
    per_run = torch.stack([fm.sample_sequences(0.3, 0.6, 5, 4, g) for _ in range(3)])     # (R, B, n)
    z = fm.logits(stacked, per_run, attention)
    for r, th in enumerate(thetas):
        assert float((z[r] - fm.logits(th, per_run[r], attention)).abs().max()) <= 1e-14


@pytest.mark.parametrize("attention", fm.ATTENTIONS)
@pytest.mark.parametrize("last_only", [False, True])
def test_bit_affine_logits_equal_the_literal_model(attention, last_only):
    g = torch.Generator().manual_seed(2)
    stacked = fm.stack_parameters([fm.gaussian(4, 7, 0.8, g) for _ in range(2)])
    x = fm.all_sequences(7)
    literal = fm.logits(stacked, x, attention, last_only=last_only)
    fast = fm.logits_affine(stacked, x, attention, last_only=last_only)
    assert literal.shape == fast.shape
    assert float((literal - fast).abs().max()) <= 1e-12
    if not last_only:
        assert torch.equal(fm.logits(stacked, x, attention, last_only=True), literal[..., -1])


def test_fused_attention_logits_and_gradients_equal_the_literal_model():
    """The fused causal kernel (the paper-setting training at N = 1024) computes the literal model's sum."""
    g = torch.Generator().manual_seed(4)
    stacked = fm.stack_parameters([fm.gaussian(4, 9, 0.8, g) for _ in range(2)]).detach(requires_grad=True)
    x = fm.sample_sequences(0.3, 0.6, 9, 5, g)
    literal = fm.logits(stacked, x)
    fused = fm.logits(stacked, x, fused=True)
    assert literal.shape == fused.shape and float((literal - fused).abs().max()) <= 1e-12
    g_lit = torch.autograd.grad(literal.square().sum(), stacked.tensors())
    g_fus = torch.autograd.grad(fused.square().sum(), stacked.tensors())
    assert max(float((a - b).abs().max()) for a, b in zip(g_lit, g_fus)) <= 1e-10
    # the kernel is causal: changing the last bit leaves every earlier logit unchanged
    flipped = x.clone()
    flipped[:, -1] = 1 - flipped[:, -1]
    assert torch.equal(fm.logits(stacked, flipped, fused=True)[..., :-1].detach(), fused[..., :-1].detach())


def test_population_loss_by_prefixes_equals_the_sum_over_all_sequences():
    """Causal attention: position n needs only the 2^n prefixes; the literal definition sums over all 2^N sequences."""
    g = torch.Generator().manual_seed(3)
    for attention in fm.ATTENTIONS:
        th = fm.gaussian(2, 6, 0.9, g)
        ref = float(fm.population_loss_enumerated(th, 0.2, 0.7, attention=attention))
        assert abs(float(fm.population_loss(th, 0.2, 0.7, attention=attention)) - ref) <= 1e-14
        assert abs(float(fm.population_loss(th, 0.2, 0.7, attention=attention, fast=True)) - ref) <= 1e-14
    # negative control: a wrong chain gives a different value
    assert abs(float(fm.population_loss(th, 0.7, 0.2)) - float(fm.population_loss_enumerated(th, 0.2, 0.7))) > 1e-3


def test_thm5_theta_min_bound_constant_is_not_vacuous():
    """The sampled ratio |R_n| / (r |e|^2) of full.theta_min_bound is positive (R_n is not identically 0) and
    below the hand-proved 35, at the largest radius where the bound is claimed."""
    from local2global.proofs import claims_40_fullmodel as C
    g = torch.Generator().manual_seed(7)
    worst = max(C._bit_remainder(C._perturbation(C._theta_min(0.9, 0.9, 3, 4), 1.0, 1.0, g), 4) for _ in range(10))
    assert 1e-3 < worst <= C._BOUND_K


def test_thm5_rejects_a_regime_sympy_decided_without_raising():
    """p + q > -1 is True for p, q > 0 (SymPy decides it on construction): "theta_min is a bad local minimum for
    every chain" is false (the leading coefficient pi0 pi1 (p+q-1) changes sign), and the check says so with its
    reason instead of raising; an empty regime is rejected too. The printed regime passes."""
    from local2global.proofs import REGISTRY, Context, load_all
    load_all()
    cl = REGISTRY["thm5.full_model"]
    assert sp.StrictGreaterThan(S.p + S.q, -1) is sp.true
    every = cl.check(sp.true, Context())
    failing = [s for s in every.steps if not s.ok]
    assert not every.ok and every.method != "error" and [s.kind for s in failing] == ["exact"]
    assert "leading coefficient" in failing[0].states and ("sign of the ratio", "not positive for every chain") in failing[0].values
    none = cl.check(sp.false, Context())
    failing = [s for s in none.steps if not s.ok]
    assert not none.ok and len(failing) == 1 and ("the regime", "no chain") in failing[0].values
    assert cl.check(cl.printed(), Context()).ok


def test_fullmodel_records_are_structured_steps():
    """Every full-model claim (Figs. 3, 4, 6 aside) returns steps, none legacy: torch witnesses are sampled steps with
    their count and float64 digits, the exact decompositions exact steps (with obligations), the hand proofs argued
    steps written out in full; a status line names the argued steps a result rests on."""
    from local2global.proofs import Context, run_claims, select
    ids = ["full.eq3", "full.eq41", "full.loss", "full.gradient", "full.normal", "thm4.full_model",
           "full.theta_min_bound", "thm5.full_model", "thm5.formula_sheet_reading", "thm5.e_axis_minima"]
    from local2global.proofs._registry import REGISTRY
    recs = {r.id: r for r in run_claims(select(ids), Context(), workers=1)}
    for cid in ids:
        r = recs[cid]
        for s in (*r.steps, *r.control_steps, *r.corroborations):
            assert not s.legacy, (cid, s.states)
            if "torch" in s.method:
                assert s.kind == "sampled" and s.count > 0 and s.digits == 15 and s.software == ("torch",), (cid, s)
        assert r.control_rejected, cid
    exact = [s for s in recs["thm4.full_model"].steps if s.kind == "exact"]
    assert len(exact) >= 8 and all(s.obligations for s in exact if "free prediction" not in s.states)
    assert [s.kind for s in recs["full.theta_min_bound"].steps] == ["argued", "exact", "sampled"]
    assert recs["thm4.full_model"].status_line == "proved, 1 argued step"
    assert recs["thm5.full_model"].status_line == "sampled, 3 argued steps"
    # mutating the argued bound's constant below the argued one is rejected by the check (the hand proof does not
    # give it), and a constant the sampled remainder exceeds by the witness
    check = REGISTRY["full.theta_min_bound"].check
    weaker = check(34, Context())
    assert not weaker.ok and [s.kind for s in weaker.steps if not s.ok] == ["exact"]
    assert check(36, Context()).ok
