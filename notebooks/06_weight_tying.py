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
# # 6. Beyond the paper: weight tying
#
# The paper ties the output head of the transformer to its token embedding (Sec. 2), citing two results of its
# reference [23] (Makkuva et al., *Attention with Markov*): (i) for every chain the loss has a global minimum that
# predicts the Markov kernel, and (ii) **with tying** and $p + q > 1$ there is a bad local minimum that predicts the
# marginal. Everything else in the paper is downstream of that choice. Here the untied model is derived with the
# same machinery: the transformer is run symbolically with a head $h\alpha$ of its own, one more scalar $h$.
# Nothing below is typed by hand: every expression comes from `local2global.symbolic`.

# %%
import sympy as sp
from IPython.display import Math, display

from local2global.symbolic import canonical_model, symbols as S
from local2global.symbolic.basins_untied import untied_flow_facts
from local2global.symbolic.energy import derive_energy, quadratic_invariants
from local2global.symbolic.latex import latex

# %% [markdown]
# ## The untied logit, computed from the transformer
# `canonical_model(untied=True)` derives its logit with `derive_logit(untied=True)`, which runs the layers with
# explicit matrices on every sign branch and every $\alpha$; the head scale $h$ replaces one factor $e$ of the tied
# slope. At $h = e$ it is Eq. 3.

# %%
untied = canonical_model(untied=True)
tied = canonical_model()
X = sp.Symbol("X")
display(Math(r"\mathrm{logit}_{\rm untied}(X) = " + latex(untied.logit(X))))
display(Math(r"\mathrm{logit}_{\rm tied}(X) = " + latex(tied.logit(X))))
print("untied at h = e equals tied:", sp.expand(untied.A.subs(S.h, S.e) - tied.A) == 0)

# %% [markdown]
# ## Critical points and their classes
# Both models have $L = G(A)$ with the same strictly convex $G$, so the critical points are $A = A^\star$ or
# $\nabla A = 0$. The classes are derived: with tying $A = e^2(1 + 2w|w|)$ keeps its sign near $e = 0$, so the
# unigram line holds local minima (for $p + q > 1$ near $w = 0$); untied, $A = eh(1 + 2w|w|)$ changes sign there.

# %%
for name, model in (("tied", tied), ("untied", untied)):
    print(name)
    for cs in model.critical_sets():
        print(f"  {cs.name:12s} {cs.classification:10s} {cs.equations}  if {cs.condition}")

# %% [markdown]
# The Hessian on the unigram line $e = h = 0$ (here for $w < 0$) has one eigenvalue of each sign: a strict saddle
# wherever $1 + 2w|w| \neq 0$.

# %%
hs = untied.untied_hessians["families"]
display(Math(r"\nabla^2 L\,|_{e = h = 0} = " + latex(hs["Theta_0 (w<0)"]["hessian"])))
print("eigenvalues of grad^2 A there:", hs["Theta_0 (w<0)"]["eigenvalues_A"])

# %% [markdown]
# ## Conserved quantities of the untied flow
# The only linear symmetry of $A$ is the rescaling $(e, h) \mapsto (\lambda e, h/\lambda)$, whose charge
# $e^2 - h^2$ is conserved; the tied model has none. The energy ansatz of Eq. 11 leaves its multiplier free, a
# two-dimensional family spanned by $E_e$ and $E_h$:

# %%
print("untied symmetries:", quadratic_invariants(untied)["symmetries"], "-> invariants", quadratic_invariants(untied)["invariants"])
print("tied symmetries:", quadratic_invariants(tied)["symmetries"])
print("free multipliers of the energy ansatz:", derive_energy(untied)["free_multipliers"])
facts = untied_flow_facts()
display(Math(r"E_e = " + latex(facts["E_e"]) + r",\qquad E_h = " + latex(facts["E_h"])))

# %% [markdown]
# Along a level curve $\{E_e = E_1, E_h = E_2\}$ the slope is monotone, because
# $\det[\nabla A, \nabla E_e, \nabla E_h]$ vanishes only on the saddle sets:

# %%
display(Math(r"D\ (w > 0) = " + latex(facts["branches"]["w>0"]["D"])))
print("A^2 at the ends of a level set:", facts["ends"])

# %% [markdown]
# ## Where the flow ends: predicted and integrated
# `basins_untied.predict` finds the limit from the two conserved quantities alone; `flow_report` puts an
# integrated flow next to it. From a small start with $p + q > 1$ the tied flow stops at a bad local minimum
# (Thm 2), the untied flow reaches a global minimum:

# %%
from fractions import Fraction as F

from local2global.numeric.chain import NumericChain
from local2global.numeric.dynamics import basins, basins_untied

p = q = F(9, 10)
print("tied,   (e0, w0) = (1/20, 1/10):      ", basins.predict(p, q, (F(1, 20), F(1, 10))).limit_class)
rep = basins_untied.flow_report(NumericChain(p, q), F(1, 20), F(1, 10), F(1, 30), dps=30)
print(basins_untied.flow_report_text(rep))

# %% [markdown]
# ## The full untied transformer
# The torch model with a head of its own matches the derived loss and gradient at untied canonical points:

# %%
from local2global.numeric.transformer.experiments import side_by_side

res = side_by_side(F(9, 10), F(9, 10), F(1, 2), F(-1, 3), None, None, d=2, N=5, h=F(-3, 4))
print("max |full - derived| over loss and gradient (e, w, h, b):", res["max_abs_diff"])

# %% [markdown]
# `l2g check --only untied ref23` checks all of this with statuses and negative controls; `l2g all` also trains
# the full transformer tied and untied from the same small initialization (`untied.training`).
