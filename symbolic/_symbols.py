"""The paper's symbols, declared once with their assumptions.

p, q are the switching probabilities (positive; the bound < 1 is enforced by `MarkovChain`),
e, w, b, a the canonical scalars (embedding, feed-forward weight, bias, attention); h is the scale of the
output head when it is not tied to the embedding (head vector h·alpha; weight tying is h = e).
`A` and `c` are the two coordinates the loss really depends on: A = z1 - z0 (the logit
slope in X) and c = z0 = b - e^2/2 (the logit at X = 0).
Branch symbols carry a sign so that Abs/sign simplify: `w_pos` is w on w > 0, `w_neg` on w < 0.
"""
import sympy as sp

p, q = sp.symbols("p q", positive=True)
e, w, b, a = sp.symbols("e w b a", real=True)
h = sp.Symbol("h", real=True)          # head scale of the untied model (the tied model is h = e)
A, c = sp.symbols("A c", real=True)
X = sp.Symbol("X", integer=True, nonnegative=True)
Y = sp.Symbol("Y", integer=True, nonnegative=True)
u = sp.Symbol("u", positive=True)      # u = exp(b - e^2/2), the unknown of Lemma 5's quadratic
K = sp.Symbol("K", positive=True)      # K = exp(A)

e_pos = sp.Symbol("e", positive=True)
e_neg = sp.Symbol("e", negative=True)
w_pos = sp.Symbol("w", positive=True)
w_neg = sp.Symbol("w", negative=True)

#: the four sign branches of (e, w), as substitutions; Abs(w) and sign(w) evaluate on each
BRANCHES = {
    "e>0, w>0": {e: e_pos, w: w_pos},
    "e>0, w<0": {e: e_pos, w: w_neg},
    "e<0, w>0": {e: e_neg, w: w_pos},
    "e<0, w<0": {e: e_neg, w: w_neg},
}
#: the two sign branches of w alone (e enters only through e^2 after the reduction)
W_BRANCHES = {"w>0": {w: w_pos}, "w<0": {w: w_neg}}


def sigma(z):
    r"""Logistic sigmoid $\sigma(z) = 1/(1+e^{-z})$."""
    return 1 / (1 + sp.exp(-z))


def ell_log(z):
    r"""Logistic loss $\ell_{\log}(z) = \log(1 + e^{-z})$ (convex, positive)."""
    return sp.log(1 + sp.exp(-z))


def binary_entropy(x):
    r"""Binary entropy in nats, $h(x) = -x\log x - (1-x)\log(1-x)$."""
    return -x * sp.log(x) - (1 - x) * sp.log(1 - x)


def hessian(expr, variables):
    r"""Hessian with the distributional term of $d^2(w|w|)/dw^2$ removed.

    SymPy differentiates |w| twice to $2\,\mathrm{sign}(w) + 2w\,\delta(w)$; $w\,\delta(w) = 0$, so
    the delta never contributes. The classical second derivative $2\,\mathrm{sign}(w)$ is undefined at
    w = 0 (w|w| is C^1, not C^2); there the formula returns sign(0) = 0.
    """
    H = sp.hessian(expr, variables)
    return H.replace(sp.DiracDelta, lambda *args: sp.S.Zero)
