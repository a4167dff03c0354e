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
# # 2. The loss landscape
#
# Sec. 3 and App. D-E of *Local to Global* describe every critical point of the canonical loss, with bias in
# $\mathbb{R}^3$ (Thms 6, 7) and with the optimal bias eliminated in $\mathbb{R}^2$ (Thm 1). The companion
# organises this around one structural fact (derived in `symbolic.landscape.structure`): the reduced loss
# depends on $(e, w)$ only through the slope $A = e^2(1 + 2w|w|)$,
# $$L(e, w) = G(A), \qquad G \text{ strictly convex}, \qquad G'(0) = \pi_0\pi_1(p + q - 1).$$
# The sign of $p + q - 1$ decides whether the $w$-axis holds local minima or maxima.

# %%
import matplotlib.pyplot as plt
import mpmath as mp
import numpy as np
import sympy as sp
from IPython.display import Math, display

from local2global.numeric import Landscape

from local2global.numeric.evaluate import engine
from local2global.symbolic import MarkovChain, canonical_model, structure, symbols as S
from local2global.symbolic.latex import latex

# %% [markdown]
# ## $G$ and its derivatives (Sec. 3 / App. E)

# %%
st = structure()
print(st.derivation)
for name in ("G_second", "G_prime_at_0", "A_star", "G_prime_at_A_star"):
    display(Math(name.replace("_", r"\_") + " = " + latex(st[name])))

# %% [markdown]
# $G$ evaluated at 30 digits (`numeric.Landscape.G_parts`) for the two regimes of Fig. 1: $p = q = 9/10$
# ($p + q > 1$, $G'(0) > 0$) and $p = q = 1/10$ ($p + q < 1$, $G'(0) < 0$). The minimum sits at
# $A^\star = \log\frac{(1-p)(1-q)}{pq}$, where the loss is the entropy rate.

# %%
regimes = {"p = q = 9/10": (sp.Rational(9, 10), sp.Rational(9, 10)),
           "p = q = 1/10": (sp.Rational(1, 10), sp.Rational(1, 10))}
A_grid = [sp.Rational(k, 4) for k in range(-32, 33)]
fig, ax = plt.subplots(figsize=(6, 3.5))
for label, (p, q) in regimes.items():
    land = Landscape(p, q)
    with mp.workdps(30):
        G_values = [land.G_parts(mp.mpf(a.p) / a.q)[0] for a in A_grid]
    ax.plot([float(a) for a in A_grid], [float(g) for g in G_values], label=label)
    chain = MarkovChain(p, q)
    A_star = st["A_star"].subs({S.p: p, S.q: q})
    ax.axvline(float(A_star), ls=":", color=ax.lines[-1].get_color())
    print(f"{label}: A* = {sp.N(A_star, 12)},  G(A*) = {mp.nstr(land.G_parts(mp.mpf(sp.N(A_star, 40)))[0], 15)},"
          f"  entropy rate = {sp.N(chain.entropy_rate, 15)}")
ax.set_xlabel("A = e^2 (1 + 2 w|w|)")
ax.set_ylabel("G(A) = L(e, w)")
ax.legend()
ax.set_title("The reduced loss as a convex function of the slope A")
plt.show()

# %% [markdown]
# ## All critical points in $\mathbb{R}^2$ (Thm 1) and $\mathbb{R}^3$ (Thms 6, 7)
# `critical_sets` *solves* $\nabla L = 0$ through the chain rule $\nabla L = G'(A)\nabla A$ and classifies each
# family; the argument column is what makes a degenerate Hessian conclusive.

# %%
model = canonical_model()
for bias in (False, True):
    print(f"--- {model.space(bias)}")
    for cs in model.critical_sets(bias):
        print(f"{cs.name:11s} {cs.classification:10s} where {cs.condition}:", ", ".join(map(str, cs.equations)))
        print("            ", cs.argument)

# %% [markdown]
# The values at one point of each family at 50 digits (`Landscape.at`): on $\Theta^\star$ the loss equals the
# entropy rate, on the $w$-axis it equals $H(\pi)$; the gap is the mutual information $I(x_n; x_{n+1})$.

# %%
p, q = regimes["p = q = 9/10"]
land, chain = Landscape(p, q), MarkovChain(p, q)
A_star = st["A_star"].subs({S.p: p, S.q: q})
# for p + q > 1, A* < 0: a point of Theta_star needs 1 + 2w|w| < 0, e.g. w = -1, e > 0 solving A(e, -1) = A*
e_on_star = max(sp.solve(sp.Eq(model.A.subs(S.w, -1), A_star), S.e), key=lambda r: sp.N(r))
points = {"Theta_star (w = -1, A = A*)": (e_on_star, -1), "Theta_min (e = 0, w = 1)": (0, 1),
          "Theta_sad (e = 0, w = -1/sqrt 2)": (0, -1 / sp.sqrt(2))}
for name, (e0, w0) in points.items():
    with mp.workdps(50):
        v = land.at((mp.mpf(sp.N(e0, 60)), mp.mpf(sp.N(w0, 60))), dps=50)
    print(f"{name:34s} L = {mp.nstr(v.loss, 20)}   |grad L| = {mp.nstr(mp.norm(v.grad), 3)}")
print("entropy rate       =", sp.N(chain.entropy_rate, 20))
print("H(pi)              =", sp.N(chain.marginal_entropy, 20))
print("mutual information =", sp.N(chain.mutual_information, 20))

# %% [markdown]
# ## The landscape in the $(e, w)$ plane (cf. Fig. 1)
# Contours of $L(e, w)$ from the stable float64 engine (`numeric.evaluate.engine`, held against the mpmath path by its
# tests). For $p + q > 1$ the $w$-axis right of $w = -1/\sqrt{2}$ is a valley of local minima; the global minima lie
# on the curve $A = A^\star$.

# %%
w_axis = np.linspace(-1.6, 1.6, 161)
e_axis = np.linspace(-1.6, 1.6, 161)
W, E = np.meshgrid(w_axis, e_axis)              # w horizontal, e vertical (as in every figure)
fig, axes = plt.subplots(1, 2, figsize=(9, 4), sharey=True)
for ax, (label, (p, q)) in zip(axes, regimes.items()):
    values = engine.evaluate(float(p), float(q), E, W)
    cs = ax.contourf(W, E, values.loss, levels=30, cmap="viridis")
    ax.contour(W, E, values.A, levels=[float(st["A_star"].subs({S.p: p, S.q: q}))], colors="white", linestyles="solid",
               linewidths=1.2)
    ax.axvline(-1 / np.sqrt(2), color="red", ls="--", lw=0.8)
    ax.set_title(label)
    ax.set_xlabel("$w$")
    fig.colorbar(cs, ax=ax)
axes[0].set_ylabel("$e$")
plt.show()
