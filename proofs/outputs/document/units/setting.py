r"""Topic 1: the Markov chain (Sec. 2) and the canonical logit (Eq. 3, App. C)."""
from __future__ import annotations

import sympy as sp

from ._common import CHAIN, M, Block, Entry, section, show_all, t


@section("chain", order=10, topic="setting", title="Stationary law and entropies of the chain",
         kind="", where="Sec. 2", refs=("Sec. 2",))
def _chain() -> Block:
    ch = CHAIN
    pi0, pi1 = ch.stationary
    return Block(
        ref="Sec. 2",
        assumptions=(r"$(p, q) \in (0, 1)^2$",),
        statement=(
            r"The chain with transition matrix $P = %s$ has the stationary law $\pi = (\pi_0, \pi_1) = (%s, %s)$, "
            r"the entropy rate and the marginal entropy" % (t(ch.kernel), t(pi0), t(pi1))
            + show_all([(r"H(x_{n+1} \mid x_n)", ch.entropy_rate), (r"H(x_n) = H(\pi)", ch.marginal_entropy)])
            + r"and their gap is the mutual information $I(x_n; x_{n+1})$."),
        derivation=(r"$\pi$ is solved from $\pi P = \pi$, $\pi_0 + \pi_1 = 1$; the entropies are expectations over "
                    r"$(X, Y) \sim (\pi, P)$, and the mutual information is computed from the joint law "
                    r"(not as a difference of the two entropies, so that their equality is a check)."),
        entries=(
            Entry(r"I(x_n; x_{n+1})", ch.mutual_information),
        ),
    )


@section("canonical_logit", order=20, topic="setting", title="Canonical logit", kind="Equation", number="3",
         where="Sec. 3, App. C", refs=("Eq. 3",))
def _canonical_logit() -> Block:
    r = M.logit_result
    X = sp.Symbol("X")
    return Block(
        ref="Eq. 3",
        assumptions=(r"$e, w, b \in \mathbb{R}$", r"embedding dimension $d \in \{1, 2, 3\}$",
                     r"every direction $\alpha \in \{\pm 1\}^d/\sqrt{d}$"),
        statement=(
            r"On the canonical rank-one manifold the transformer's logit at a position with current bit "
            r"$X = x_n$ is affine in $X$: $\mathrm{logit}_X = A X + z_0$ with slope $A = %s$ and offset "
            r"$z_0 = %s$, whatever the dimension $d$ and the direction $\alpha$." % (t(r["A"]), t(r["z0"]))),
        derivation=(
            r"The single-layer transformer (token and positional embedding, softmax attention, ReLU feed-forward "
            r"layer, tied linear head) was evaluated symbolically at the rank-one point of App.~C, on each of the "
            r"four sign branches of $(e, w)$, with $\alpha$ flipped with the sign of $e$; the logits do not depend "
            r"on $d$ or $\alpha$, and the branches glue into one expression through $w|w|$."),
        entries=(
            Entry(r"A = z_1 - z_0", r["A"]),
            Entry(r"z_0", r["z0"]),
            Entry(r"\mathrm{logit}_X", M.logit(X)),
        ),
    )
