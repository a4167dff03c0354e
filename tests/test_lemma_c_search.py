"""Lemma C's cell certificate (`prob_r3.certify_cell`) walks a few grid points, then searches the rest of the
grid (`prob_r3._searchable`): it must give exactly the answer of walking the whole grid, on the cells of both
designs of Thm 11 (precise) and on random cells."""
import random
from fractions import Fraction

import gmpy2

from local2global.numeric.dynamics import prob_r3 as P
from local2global.symbolic import basins_r3 as sr3


def _walked(Y: Fraction, a_lo: Fraction):
    """The smallest m on (1/1000)Z from max(0, -a_lo) with rate > 0 and reach > 0, by walking the grid."""
    fn = P._lemma_c()
    Y, a_lo = gmpy2.mpq(Y.numerator, Y.denominator), gmpy2.mpq(a_lo.numerator, a_lo.denominator)
    m, step = gmpy2.mpq(int(max(0, -a_lo) * 1000), 1000), gmpy2.mpq(1, 1000)
    while fn["rate"](Y, m, a_lo) > 0:
        if fn["reach"](Y, m, a_lo) > 0:
            return tuple(map(P._fraction, (m, fn["D"](Y, m, a_lo), fn["Dbar"](Y, m, a_lo))))
        m += step
    return None


def test_the_derived_lemma_c_hypotheses_have_the_shape_the_search_needs():
    assert P._lemma_c()["searchable"]


def test_a_reach_that_is_not_concave_is_walked():
    lc = sr3.lemma_c()
    D = lc["D"]
    assert not P._searchable(lc["hypothesis_rate"], sr3.a_lo + D + sr3.m_)          # convex in m
    assert not P._searchable(8 + 16 * sr3.m_ * sr3.Y, lc["hypothesis_reach"])        # rate increasing in m
    assert not P._searchable(8 - 16 * sr3.m_**2 * sr3.Y, lc["hypothesis_reach"])     # rate not affine


def test_the_search_finds_the_cell_the_walk_finds():
    pairs = []
    for i in range(1, P.N_E + 1):
        Y = (P.E_MAX * i / P.N_E) ** 2
        pairs += [(Y, -P.A_MAX + 2 * P.A_MAX * j / P.N_A) for j in range(P.N_A)]            # design_cells
        pairs += [(Y, -Fraction(k, 100)) for k in range(1, int(P.A_CAP * 100) + 1, 7)]     # design_monotone
    rng = random.Random(11)
    pairs += [(Fraction(rng.randint(1, 10**6), 10**6), Fraction(rng.randint(-3000, 3000), 1000)) for _ in range(1000)]
    got = [P.certify_cell(Y, a) for Y, a in pairs]
    assert got == [_walked(Y, a) for Y, a in pairs]
    # both outcomes occur, and some answers lie beyond the walked points (found by the search)
    assert any(g is None for g in got)
    assert any(g is not None and g[0] - max(0, -a) >= Fraction(P.WALK, 1000) for g, (_, a) in zip(got, pairs))
