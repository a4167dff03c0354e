r"""Topic 5: the full transformer (Sec. 5, App. A-C, H): the canonical model inside it, Thms 4 and 5, Figs. 3, 4, 6."""
from __future__ import annotations

import sympy as sp

from ._common import CHAIN, M, Block, section, t


@section("full_model", order=510, topic="full", title="The canonical model inside the full transformer",
         kind="Proposition", number="", where="Sec. 5, App. A, App. C",
         refs=("Eq. 3", "Eq. 41", "Lemma 2", "Lemma 3", "Sec. 5.1 (the rank-one manifold)"), only_topic=True)
def _full_model() -> Block:
    X = sp.Symbol("X")
    return Block(
        ref="Sec. 5",
        assumptions=(r"double precision", r"embedding dimension $d \in \{1, 2, 3, 8\}$", r"sequence length $N \leq 12$"),
        statement=(
            r"At every canonical point $\theta(e, w, b)$ the full single-layer transformer (softmax attention, ReLU "
            r"feed-forward layer, tied head) outputs the logit $%s$ of Equation~(3) at every position of every sequence "
            r"(and Equation~(41)'s logit with linear attention); its exact population loss over all $2^N$ sequences is "
            r"Lemma~2's $L(e, w, b)$, and its gradient along the canonical map is Lemma~3's. The canonical manifold is "
            r"nevertheless not invariant under the full gradient flow: away from the critical points the full gradient "
            r"has a component normal to it, in the span of two explicit directions." % t(M.logit(X))),
        derivation=(r"The full model is an independent implementation in double precision (it uses nothing of the "
                    r"symbolic derivations); its population loss enumerates all $2^N$ sequences with the stationary "
                    r"start. The claims compare logits, losses and automatic-differentiation gradients with the derived "
                    r"formulas, and project the full gradient on the tangent space of the canonical map."),
    )


@section("thm4", order=530, topic="full", title="Global minimum of the full transformer", kind="Theorem", number="4",
         where="App. A", refs=("Thm 4",))
def _thm4() -> Block:
    return Block(
        ref="Thm 4",
        statement=(r"Every canonical point of $\Theta^\star$ with $b = b^\star$ is a global minimum of the full "
                   r"transformer's loss: the population loss equals the entropy rate $H(x_{n+1} \mid x_n) = %s$ and "
                   r"the full gradient vanishes." % t(CHAIN.entropy_rate)),
        derivation=r"The points of $\Theta^\star$ are built from the derived $A^\star$ and $b^\star$; loss and gradient are those of the full model.",
    )


@section("thm5", order=535, topic="full", title="Bad local minimum of the full transformer", kind="Theorem",
         number="5", where="App. A, App. C", refs=("Thm 5",))
def _thm5() -> Block:
    return Block(
        ref="Thm 5",
        statement=(r"At $e = 0$, $b = \log(p/q)$ the canonical local minima of Theorem~1 ($p + q > 1$) are local minima "
                   r"of the full loss only where $1 + 4w|w| > 0$, that is $w > -\tfrac12$: for "
                   r"$-\tfrac{1}{\sqrt{2}} < w < -\tfrac12$ the direction (token $r\alpha$, positional embedding $0$) "
                   r"lowers the loss by $r^2\pi_0\pi_1(p + q - 1)(1 + 4w|w|)$, and for $p + q < 1$ a token direction "
                   r"orthogonal to $\alpha$ lowers it by $r^2\pi_0\pi_1(1 - p - q)$ (see the Errata)."),
        derivation=(r"Perturbations of norm $10^{-3}$ of the full parameters (three deciding directions and 40 random "
                    r"ones) at points of the $w$-axis, in double precision: numerical evidence, not a proof."),
    )


@section("figure3", order=540, topic="full", title="Rank-one structure emerges from a small initialization",
         kind="Figure", number="3", where="Sec. 5.1", refs=("Fig. 3",))
def _figure3() -> Block:
    return Block(ref="Fig. 3",
                 statement=(r"Trained from $N(0, 0.001^2)$, the value matrix $W_V$ and the feed-forward matrices become "
                            r"approximately rank one, aligned with the embedding."),
                 derivation=r"A training run of the full model (CPU-sized), its singular values recorded along training.")


@section("figure4", order=550, topic="full", title="Standard versus the paper's initialization", kind="Figure",
         number="4", where="Sec. 5.2", refs=("Fig. 4",))
def _figure4() -> Block:
    return Block(ref="Fig. 4",
                 statement=(r"For $p = 0.5$, $q = 0.8$: from $N(0, 0.02^2)$ the loss ends near the unigram loss $H(\pi)$ "
                            r"(a bad local minimum), from the paper's initialization near the entropy rate."),
                 derivation=r"Training runs of the full model, with the exact population loss.")


@section("figure6", order=560, topic="full", title="A rank-one initialization stays rank one", kind="Figure",
         number="6", where="App. H", refs=("Fig. 6",))
def _figure6() -> Block:
    return Block(ref="Fig. 6",
                 statement=r"Rank-one weights with embeddings on $\{\pm 1\}^d$ stay rank one under unconstrained training.",
                 derivation=r"A training run of the full model from a rank-one initialization.")


@section("phase_diagram", order=570, topic="full", title="Where training ends: the basins against the full transformer "
         "(our result)", where="Sec. 5.2", refs=("Sec. 5.2 (phase diagram, our result)",))
def _phase_diagram() -> Block:
    return Block(ref="Sec. 5.2 (phase diagram, our result)",
                 assumptions=(r"$(p, q) \in (0, 1)^2$, $p + q \neq 1$", r"every parameter of the full transformer "
                              r"drawn from $N(0, \sigma^2)$", r"double precision"),
                 statement=(r"Section~5.2 asks whether the canonical analysis predicts where the full transformer's "
                            r"training ends, and answers for one chain and one scale. Over a grid of chains and scales "
                            r"$\sigma$: where the canonical model's certified probability $P(\theta_0 \in I^\star)$ of "
                            r"the global-minimum basin is within $1/100$ of 0 or 1, every seed ends where it predicts; "
                            r"elsewhere the record compares the fraction of seeds at the bigram loss with "
                            r"$P(\theta_0 \in I^\star)$."),
                 derivation=(r"The full transformer is trained by gradient descent on its exact population loss (all "
                             r"$2^N$ sequences), several seeds per point; a run counts as ending at a reference loss when "
                             r"within a tenth of the gap $H(\pi) - H(x_{n+1} \mid x_n)$ of it. The canonical probabilities "
                             r"are the certified enclosures of Theorems~2 and~8 (and, with attention, the bounds of "
                             r"Theorems~A and~B); the number of seeds at the bigram loss is compared with their sum by the "
                             r"exact tails of a sum of independent Bernoulli variables."))
