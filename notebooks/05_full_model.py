# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 5. The full transformer against the symbolic model
#
# Everything symbolic rests on one modelling step (Sec. 3, App. A-C of *Local to Global*): on the rank-one
# manifold the single-layer transformer *is* the three-scalar model. `numeric.transformer.fullmodel` is that transformer in
# torch float64 (embedding, causal attention, ReLU feed-forward, tied head) and imports nothing from
# `symbolic`, so agreement with the derived formulas is evidence, not an echo.

# %%
from fractions import Fraction

import sympy as sp
import torch

from local2global.numeric.transformer import canonical_map

from local2global.numeric.transformer import experiments

from local2global.numeric.transformer import fullmodel
from local2global.symbolic import MarkovChain

# %% [markdown]
# ## Loss and gradient side by side
# At canonical points $\theta(e, w, b^\star)$ the full model's *population* loss (all $2^N$ sequences
# enumerated with their Markov probabilities) and its autograd gradient through the canonical map are
# compared with the symbolic $L(e, w)$ and its gradient (Lemma 7), for both signs of $e$ and $w$.

# %%
for e, w in (("1/2", "3/10"), ("-1/2", "3/10"), ("7/10", "-1/4"), ("-7/10", "-4/5")):
    out = experiments.side_by_side(Fraction(3, 5), Fraction(4, 5), Fraction(e), Fraction(w), d=2, N=5)
    print(f"e = {e:5s} w = {w:5s}  L_sym = {float(out['symbolic']['loss']):.15f}  "
          f"L_full = {float(out['full']['loss']):.15f}  max |diff| = {float(out['max_abs_diff']):.1e}")

# %% [markdown]
# ## Thm 4: at a point of $\Theta^\star$ the full loss is the entropy rate
# (Here for $p = q = 9/10$, where $A^\star < 0$ needs $w < -1/\sqrt 2$.)

# %%
p = q = Fraction(9, 10)
e, w, b = experiments.theta_star_point(p, q, Fraction(-1))
full = experiments.full_loss_at(p, q, e, w, b, d=2, N=8)
print("full-model loss at Theta*:", full)
chain = MarkovChain(sp.Rational(p.numerator, p.denominator), sp.Rational(q.numerator, q.denominator))
print("entropy rate             :", float(chain.entropy_rate))

# %% [markdown]
# ## Rank one by construction
# The canonical map puts every weight matrix on a rank-one manifold; the singular-value ratios
# $\sigma_2/\sigma_1$ are zero up to rounding (Fig. 3 / Fig. 6 show training keeps or reaches this).

# %%
theta = canonical_map.canonical_parameters(0.5, 0.3, 0.1, d=4, N=5)
for name, tensor in zip(theta.names(), theta.tensors()):
    if tensor.dim() == 2 and min(tensor.shape) > 1 and torch.any(tensor != 0):
        print(f"{name:4s} sigma_2/sigma_1 = {float(fullmodel.singular_value_ratios(tensor)[0]):.2e}")
