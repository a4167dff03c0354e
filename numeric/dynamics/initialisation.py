r"""The Gaussian initialisation θ_0 ~ N(0, σ^2 I_d) of Sec. 4 and Thm 11, as exact starts: one seeded stream.

Every sampled experiment with Gaussian starts draws them here (the Monte Carlo of `l2g prob` in R^2, that of
`l2g basins` and the small-start fractions of Thm 11 in R^3, the starts of Fig. 5), so a seed means the same
starts everywhere. The stream: x_0, x_1, ... = successive `random.Random(seed).gauss(0, σ)` (the standard
library's Mersenne Twister; `gauss` is its Box-Muller transform of `random()`), start k = (x_{kd}, ..., x_{kd+d-1}),
each float64 draw made the Fraction of its binary value, so the flows start from exact numbers. The starts are
drawn in one process, before any work is spread over workers: they never depend on how the work is split.
"""
from __future__ import annotations

import random
from fractions import Fraction


def gaussian_starts(sigma, n: int, seed: int, dim: int = 3) -> list[tuple[Fraction, ...]]:
    """n exact starts θ_0 ~ N(0, σ^2 I_dim) from the stream of `seed` (see the module docstring); σ exact (a
    Fraction, an int or a decimal string), used as the float64 nearest to it."""
    rng = random.Random(seed)
    s = float(Fraction(str(sigma)))
    return [tuple(Fraction(rng.gauss(0.0, s)) for _ in range(dim)) for _ in range(n)]
