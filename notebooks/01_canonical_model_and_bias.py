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
# # 1. The canonical model and the optimal bias
#
# Companion to Makkuva et al., *Local to Global* (NeurIPS 2024). Sec. 2 sets up a first-order binary Markov
# chain with switching probabilities $(p, q)$; Sec. 3 and App. C reduce a single-layer transformer to three
# scalars $(e, w, b)$ whose logit is (Eq. 3)
# $$\mathrm{logit}(x) = e^2(1 + 2w|w|)\,x + b - e^2/2 .$$
# Nothing below is typed in by hand: every expression comes from `local2global.symbolic`, which derives it.

# %%
import sympy as sp

from local2global.symbolic import MarkovChain, canonical_model, derive_logit, derive_optimal_bias, symbols as S
from local2global.symbolic.latex import latex
from IPython.display import Math, display

# %% [markdown]
# ## The Markov chain (Sec. 2)
# The chain's stationary law $\pi$, its entropy rate (the best achievable loss) and the marginal entropy
# $H(\pi)$ (the loss of a unigram predictor), symbolically in $(p, q)$.

# %%
chain = MarkovChain()
pi0, pi1 = chain.stationary
display(Math(r"\pi_0 = " + latex(pi0) + r",\quad \pi_1 = " + latex(pi1)))
display(Math(r"H(x_{n+1}\mid x_n) = " + latex(chain.entropy_rate)))

# %% [markdown]
# For a concrete chain, e.g. $p = q = 9/10$ (the $p + q > 1$ regime of Fig. 1), the same objects are exact numbers:

# %%
fast = MarkovChain(sp.Rational(9, 10), sp.Rational(9, 10))
print("stationary:", fast.stationary)
print("entropy rate  =", sp.N(fast.entropy_rate, 20))
print("H(pi)         =", sp.N(fast.marginal_entropy, 20))
print("I(x_n;x_n+1)  =", sp.N(fast.mutual_information, 20))

# %% [markdown]
# ## The canonical logit (Eq. 3, App. C)
# `derive_logit` builds the rank-one transformer (embedding, attention with $W_V = 0$, ReLU feed-forward, tied
# head) for several embedding dimensions and sign patterns, and returns the logit it computes. The slope
# $A = e^2(1 + 2w|w|)$ and offset $c = b - e^2/2$ are the only combinations that matter.

# %%
logit = derive_logit()
print(logit.ref, "-", logit.title)
print("assumptions:", logit.assumptions)
for name, expr in logit.expressions.items():
    display(Math(name + " = " + latex(expr)))

# %% [markdown]
# ## The optimal bias (Lemma 5, App. E)
# Setting $\partial L/\partial b = 0$ and writing $u = e^{b - e^2/2}$, $K = e^{A}$ gives a quadratic in $u$.
# Its roots have a negative product, so exactly one is positive: that root is $b^\star$. Both the root
# formula and the cancellation-free conjugate form are derived.

# %%
bias = derive_optimal_bias()
print(bias.derivation)
for name in ("quadratic", "root_product", "u_star", "u_star_stable"):
    display(Math(name.replace("_", r"\_") + " = " + latex(bias[name])))
display(Math(r"b^\star(e, w) = " + latex(canonical_model().b_star)))

# %% [markdown]
# Two special cases (Lemma 5): at $A = 0$ (e.g. $e = 0$) the optimum is $b^\star = \log(p/q)$, the log-odds of the
# stationary law, and the loss is convex in $b$ ($\partial^2 L/\partial b^2 > 0$).

# %%
c_star_0 = bias["c_star"].subs(S.A, 0)
# sqrt(p^2 + 2pq + q^2) = p + q needs the radicand factored first (p, q > 0)
c_star_0 = c_star_0.replace(lambda t: t.is_Pow and t.exp == sp.S.Half, lambda t: sp.sqrt(sp.factor(t.base)))
print("c*(A=0) =", sp.simplify(c_star_0))
display(Math(r"\partial^2 L/\partial b^2 = " + latex(bias["d2L_db2"])))

# %% [markdown]
# The registered proof checks for these results (Eq. 3, Lemma 5) run the paper's printed forms against these
# derivations, each with a negative control; see `l2g check --only eq3 lemma5` and the report (`l2g check`).
