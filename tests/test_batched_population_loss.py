"""The batched population loss of the Thm 5 probes equals the one-model loss bit for bit.

The probes of thm5.full_model and thm5.e_axis_minima evaluate many perturbations of one parameter value in one
pass (`fullmodel.population_loss` of batched parameters); their evidence prints loss changes, so every entry must
be the value the one-at-a-time evaluation gives, not merely close to it.
"""
from __future__ import annotations

import math

import pytest
import torch

from local2global.numeric.transformer import canonical_map as cmap
from local2global.numeric.transformer import experiments as X
from local2global.numeric.transformer import fullmodel as fm

pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.mark.parametrize("attention", fm.ATTENTIONS)
def test_population_loss_of_a_batch_equals_each_model_alone_bit_for_bit(attention):
    g = torch.Generator().manual_seed(11)
    for d, N, R in ((1, 3, 5), (2, 3, 40), (3, 4, 7), (8, 6, 3)):
        thetas = [fm.gaussian(d, N, 0.7, g) for _ in range(R)]
        batch = fm.zeros(d, N).unflatten(torch.stack([t.flatten() for t in thetas]))
        alone = torch.stack([fm.population_loss(t, 0.3, 0.6, attention=attention) for t in thetas])
        assert torch.equal(fm.population_loss(batch, 0.3, 0.6, attention=attention), alone)


def test_a_batch_of_flat_vectors_unflattens_to_the_stacked_parameters():
    g = torch.Generator().manual_seed(12)
    thetas = [fm.gaussian(2, 3, 1.0, g) for _ in range(4)]
    batch = thetas[0].unflatten(torch.stack([t.flatten() for t in thetas]))
    stacked = fm.stack_parameters(thetas)
    assert all(torch.equal(u, v) for u, v in zip(batch.tensors(), stacked.tensors()))
    with pytest.raises(ValueError):
        thetas[0].unflatten(torch.zeros(4, thetas[0].flatten().numel() + 1, dtype=fm.DTYPE))


def test_theta_min_probe_finds_the_same_worst_random_direction_as_one_loss_at_a_time():
    p, q, w, radius = 0.9, 0.9, -0.6, 1e-3
    theta = cmap.canonical_parameters(0.0, w, math.log(p / q), d=2, N=3)
    L0, flat0 = fm.population_loss(theta, p, q), theta.flatten()
    g, worst = torch.Generator().manual_seed(1), math.inf
    for _ in range(40):
        v = torch.randn(flat0.shape, dtype=fm.DTYPE, generator=g)
        worst = min(worst, float(fm.population_loss(theta.unflatten(flat0 + radius * v / v.norm()), p, q) - L0))
    probe = X.theta_min_probe(p, q, w, d=2, N=3, radius=radius, directions=40, seed=1)
    assert probe["worst_random"] == worst < 0
