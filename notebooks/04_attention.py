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
# # 4. The attention scalar $a$
#
# Sec. 4.1 and App. G, N of *Local to Global* add the attention scalar: $\theta = (e, w, a)$ in $\mathbb{R}^3$
# (and $b$ in $\mathbb{R}^4$). The companion derives the logit of Eq. 41 from the rank-one model with linear
# attention; the slope becomes $A = e^2(1 + ae^2)(1 + 2w|w|)$, so the structure $L = G(A)$ of notebook 2
# carries over. This notebook shows the energy with attention (Lemma 14), the critical sets (Thm 10), the
# class of $\Theta_{\rm station}$ that Remark 5 leaves open, and one GF-Attention trajectory (Thm 3).

# %%
from IPython.display import Math, display

from local2global.numeric.chain import NumericChain
from local2global.numeric.dynamics.basins import attention_flow
from local2global.symbolic import canonical_model
from local2global.symbolic.latex import latex

# %% [markdown]
# ## Slope and offset of the logit (Eq. 41)

# %%
model = canonical_model(attention=True)
display(Math("A = " + latex(model.A)))
display(Math("z_0 = " + latex(model.z0)))

# %% [markdown]
# ## The energy with attention (Lemma 14)
# Integrated from the flow equations, not copied: the ansatz $e\dot e - k a\dot a = m(w)\dot w$ forces
# $k = 2$.

# %%
display(Math("E(e, w, a) = " + latex(model.energy)))

# %% [markdown]
# ## All critical points in $\mathbb{R}^3$ (Thm 10)

# %%
for cs in model.critical_sets():
    print(f"{cs.name:14s} {cs.classification:10s}", cs.argument)

# %% [markdown]
# ## $\Theta_{\rm station}$ settled (Remark 5)
# On $\Theta_{\rm station}$ ($w = -1/\sqrt 2$, $a = -1/e^2$) the reduced loss is analytic; its Hessian is
# $G'(0)\,\nabla^2 A$, whose eigenvalues are $\pm G'(0) e^2 |\nabla s||\nabla t|$ and $0$: a strict saddle
# whenever $p + q \neq 1$.

# %%
station = model.station_hessian
print(station.derivation)
display(Math(r"\lambda(\nabla^2 L) = " + latex(station["eigenvalues"])))
display(Math(r"G'(0) = " + latex(station["G_prime_at_0"])))

# %% [markdown]
# ## One GF-Attention trajectory (Thm 3)
# From a small start with $p = q = 9/10$ the flow ends in a local minimum on the $w$-axis, with the energy
# conserved along the way (drift at 15 digits shown).

# %%
out = attention_flow(NumericChain("9/10", "9/10"), "1/5", "1/2", "1/10", dps=15)
print("limit class :", out["integrated"]["class"])
print("limit       :", out["integrated"]["limit"], "±", out["integrated"]["error"], "(estimate)")
print("energy drift:", out["energy_drift"], " (E0 =", out["energy0"]["value"][0], ")")

# %% [markdown]
# Basin slices in $\mathbb{R}^3$ and the Gaussian-start fractions of Thm 11 are produced by `l2g figures` and
# `l2g flow --a0`; they take minutes, so they are not rerun here.
