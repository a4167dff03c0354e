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
# # 3. Gradient flow, energy and basins of convergence
#
# Sec. 4 and App. F, M of *Local to Global*: where does gradient flow on the reduced loss $L(e, w)$ end?
# The answer rests on a conserved energy (Lemma 1 / Lemma 9, Eq. 11): trajectories stay on contours of
# $E(e, w)$, so the limit is where the contour through $\theta_0$ meets the critical set of Thm 1.
# Thm 2 ($p + q > 1$) and Thm 8 ($p + q < 1$) turn this into basins $I_\star, I_{\min}, I_{\max}, I_{\rm sad}$.

# %%
import matplotlib.pyplot as plt
import mpmath as mp
import numpy as np
import sympy as sp
from IPython.display import Math, display

from local2global.numeric.evaluate import engine
from local2global.numeric.dynamics.basins import compare
from local2global.numeric.dynamics.flow import ReducedFlow
from local2global.symbolic import basins, energy
from local2global.symbolic.latex import latex

# %% [markdown]
# ## The energy, derived (Lemma 1 / 9)
# `symbolic.energy` integrates the trajectory equation $de/dw = (\partial_e L)/(\partial_w L)
# = (\partial_e A)/(\partial_w A)$ on each side of the $e$-axis instead of copying Eq. 11.

# %%
E = energy.derive_energy()
print(E.derivation if E.derivation else E.title)
for name in ("E_w>0", "E_w<0"):
    display(Math(r"E\ (" + name[2:] + ") = " + latex(E[name])))

# %% [markdown]
# ## The basins of Thm 2 and Thm 8
# Written with the derived $g(w)$ and $E_{\rm sad}$ (`symbolic.basins`); $I_\star$ is "otherwise".

# %%
for p, q in (("9/10", "9/10"), ("1/10", "1/10")):
    regime = "p+q>1" if sp.Rational(p) + sp.Rational(q) > 1 else "p+q<1"
    sets = basins.basin_sets(regime)
    print(f"--- p = {p}, q = {q}: {regime} ({sets.ref})")
    for name, condition in sets.expressions.items():
        print(f"  {name:7s}", condition)

# %% [markdown]
# ## Three answers for one start (`numeric.dynamics.basins.compare`)
# The basin read off the theorem, the analytic prediction (contour meets critical set, solved with
# `mp.findroot`) and an integrated flow at 20 digits whose error is monitored by the energy drift.

# %%
out = compare("9/10", "9/10", ("1/2", "1/5"), dps=20)
pred = out["predicted"]
print("theorem basin     :", out["basin"], "->", out["theorem_class"])
print("predicted         :", pred.limit_class, [mp.nstr(x, 12) for x in pred.limit], "-", pred.reason)
print("integrated        :", out["integrated_class"], [mp.nstr(x, 12) for x in out["flow"].theta])
print("energy drift      :", mp.nstr(out["flow"].energy_drift, 3), "  limit gap:", mp.nstr(out["limit_gap"], 3))
print("all three agree   :", out["agree"])

# %% [markdown]
# ## Flows on the energy contours (cf. Fig. 1 (a), (c))
# For $p = q = 9/10$: a few trajectories integrated at 15 digits, drawn over the contours of $E$
# (`numeric.evaluate.engine.energy`), the $w$-axis $e = 0$ (local minima right of $w = -1/\sqrt 2$, maxima left of it)
# and the curve of global minima $A = A^\star$. As in every figure of the project, $w$ is horizontal and
# $e$ vertical.

# %%
p, q = "9/10", "9/10"
flow = ReducedFlow(p, q)
starts = [("1/2", "1/5"), ("1/2", "1"), ("3/2", "-1/2"), ("1/5", "-1"), ("-1", "3/5"), ("-3/10", "-3/2")]
w_axis = np.linspace(-2, 2, 201)
e_axis = np.linspace(-2, 2, 201)
Wg, Eg = np.meshgrid(w_axis, e_axis)            # x = w, y = e
fig, ax = plt.subplots(figsize=(6, 5.5))
ax.contour(Wg, Eg, engine.energy(Eg, Wg), levels=np.linspace(-4, 4, 33), colors="0.8", linewidths=0.6)
with mp.workdps(20):
    A_star = float(flow.A_star())
ax.contour(Wg, Eg, engine.slope_A(Eg, Wg), levels=[A_star], colors="tab:green", linewidths=1.5, linestyles="solid")
ax.axhline(0, color="tab:blue", lw=1.5)                    # the w-axis e = 0: all critical
ax.axvline(-1 / np.sqrt(2), color="tab:red", ls="--", lw=0.8)
for start in starts:
    res = flow.run(start, dps=15, record=True)
    path = np.array([[float(x) for x in theta] for _, theta in res.path])   # columns (e, w)
    ax.plot(path[:, 1], path[:, 0], color="black", lw=1)
    ax.plot(path[0, 1], path[0, 0], "o", color="black", ms=3)
    ax.plot(path[-1, 1], path[-1, 0], "*", color="tab:orange", ms=9)
ax.set_xlim(-2, 2)
ax.set_ylim(-2, 2)
ax.set_xlabel("$w$")
ax.set_ylabel("$e$")
ax.set_title("$p = q = 0.9$: flows (black) end on the $w$-axis (blue) or on $A = A^\\star$ (green)")
plt.show()

# %% [markdown]
# Heavier work (boundary starts at distance $10^{-20}$, Gaussian-initialisation probabilities) belongs to the
# CLI: `l2g flow`, `l2g prob`, and the figures of `l2g figures`.
