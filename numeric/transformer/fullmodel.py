r"""The full single-layer transformer of Sec. 2 / App. A in torch float64.

An independent witness for the symbolic reduction: this module imports nothing from
`local2global.symbolic`, so agreement with the derived formulas is evidence, not an echo.

For input bits x_1..x_N and dimension d, at each position n (weight tying a = e, W_O = I as in
the authors' code; with `head` set, the head a is a parameter of its own: the untied model):

    x_n = x_n e + p_n
    y_n = x_n + sum_{i<=n} att_{n,i} W_V x_i
          softmax: att_{n,i} = softmax_i(<W_Q x_n, W_K x_i> / sqrt d)
          linear (§7): att_{n,i} = (1/n) <W_Q x_n, W_K x_i> / sqrt d
    z_n = y_n + W_2 ReLU(W_1 y_n),     W_1 in R^{4d x d}, W_2 in R^{d x 4d}
    logit_n = <a, z_n> + b,            f_theta(x_1^n) = sigma(logit_n),   a = e (tied) or the head

The population loss L(theta) = -(1/N) sum_n E[x_{n+1} log f + (1 - x_{n+1}) log(1 - f)] is computed
exactly: all 2^N input sequences are enumerated with their Markov probabilities (stationary start),
and the target x_{n+1} is integrated out with its exact conditional law P(x_{n+1} = 1 | x_1^n) =
P(x_{n+1} = 1 | x_n) (Markov property). Nothing is sampled; the model has no side effects.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace
from functools import lru_cache

import torch

DTYPE = torch.float64
ATTENTIONS = ("softmax", "linear")


@dataclass(frozen=True)
class FullParameters:
    r"""theta = (e, {p_n}, W_Q, W_K, W_V, W_1, W_2, b[, a]) of the full model (App. A, Table 1).

    token: (d,) token embedding e, also the head a (weight tying) unless `head` is given; positional: (N, d)
    rows p_n; W_Q, W_K, W_V: (d, d); W_1: (4d, d); W_2: (d, 4d); b: () scalar bias; head: (d,) the output head a
    of the untied model (None: tied, the paper's model; then it is no parameter: not in `tensors`, `flatten`).
    """

    token: torch.Tensor
    positional: torch.Tensor
    W_Q: torch.Tensor
    W_K: torch.Tensor
    W_V: torch.Tensor
    W_1: torch.Tensor
    W_2: torch.Tensor
    b: torch.Tensor
    head: torch.Tensor | None = None

    @property
    def d(self) -> int:
        return self.token.shape[-1]

    @property
    def N(self) -> int:
        return self.positional.shape[-2]

    def tensors(self) -> tuple[torch.Tensor, ...]:
        """The parameter tensors in field order (the head only when untied)."""
        return tuple(getattr(self, n) for n in self.names())

    def names(self) -> tuple[str, ...]:
        return tuple(f.name for f in fields(self) if not (f.name == "head" and self.head is None))

    @property
    def head_vector(self) -> torch.Tensor:
        """The output head a: the token embedding when tied, else `head`."""
        return self.token if self.head is None else self.head

    def flatten(self) -> torch.Tensor:
        """All parameters as one vector (field order, row-major)."""
        return torch.cat([t.reshape(-1) for t in self.tensors()])

    def unflatten(self, vec: torch.Tensor) -> "FullParameters":
        """Parameters with the shapes of self, read from a flat vector (inverse of `flatten`); vectors (*R, D) give
        parameters with leading batch dimensions R (see `logits`)."""
        out, k = {}, 0
        for name, t in zip(self.names(), self.tensors()):
            out[name] = vec[..., k:k + t.numel()].reshape(vec.shape[:-1] + t.shape)
            k += t.numel()
        if k != vec.shape[-1]:
            raise ValueError(f"vector has {vec.shape[-1]} entries, parameters need {k}")
        return FullParameters(**out)

    def detach(self, requires_grad: bool = False) -> "FullParameters":
        """A copy cut from the autograd graph (optionally a fresh leaf set requiring grad)."""
        return FullParameters(**{n: t.detach().clone().requires_grad_(requires_grad)
                                 for n, t in zip(self.names(), self.tensors())})

    def with_(self, **kw) -> "FullParameters":
        return replace(self, **kw)


def zeros(d: int, N: int) -> FullParameters:
    """All-zero parameters of dimension d for sequences of length up to N."""
    z = lambda *s: torch.zeros(*s, dtype=DTYPE)
    return FullParameters(z(d), z(N, d), z(d, d), z(d, d), z(d, d), z(4 * d, d), z(d, 4 * d), z(()))


def gaussian(d: int, N: int, sigma: float, generator: torch.Generator, untied: bool = False) -> FullParameters:
    """Standard initialization N(0, sigma^2) for every parameter, bias included (Sec. 5.2); untied, the head is
    drawn last, so the other parameters are those of the tied draw from the same generator state."""
    shapes = [t.shape for t in zeros(d, N).tensors()]
    theta = FullParameters(*[sigma * torch.randn(s, dtype=DTYPE, generator=generator) for s in shapes])
    if untied:
        theta = theta.with_(head=sigma * torch.randn(d, dtype=DTYPE, generator=generator))
    return theta


def _linear(X: torch.Tensor, W: torch.Tensor) -> torch.Tensor:
    """X W^T for X (*R, B, n, k) and W (*R, m, k): one matrix product per model over all its B*n rows.

    Written as an einsum: with float64 on this CPU build (MKL) the batched `X @ W^T` took 3-4x longer."""
    B, n = X.shape[-3], X.shape[-2]
    return torch.einsum("...ik,...mk->...im", X.flatten(-3, -2), W).unflatten(-2, (B, n))


def logits(theta: FullParameters, x: torch.Tensor, attention: str = "softmax", last_only: bool = False,
           fused: bool = False) -> torch.Tensor:
    r"""logit_n = <a, z_n> + b (a = e tied, the head untied) for every position n of every sequence: x (..., B, n)
    bits -> (..., B, n).

    The parameters may carry leading batch dimensions R (token (*R, d), positional (*R, N, d), W_* (*R, ., .),
    b (*R,)): independent models evaluated at once (the vectorised training of `experiments`); x then has
    shape (*R, B, n) or (B, n) (the same sequences for every model). Without batch dimensions this is the
    model of one parameter set on (B, n) sequences. `last_only=True` computes the logit at the last position
    n only, (..., B): it attends to all of x_1..x_n, so no mask is needed (the prefix sums of
    `population_loss`). `fused=True` (softmax attention, all positions) computes the causal attention with torch's
    fused kernel (`scaled_dot_product_attention`, scale 1/sqrt d): the same sum without the (n, n) score and mask
    tensors, equal to the literal one up to rounding (tested); what makes the training at the paper's N = 1024 fit.
    """
    if attention not in ATTENTIONS:
        raise ValueError(f"attention must be one of {ATTENTIONS}, got {attention!r}")
    n = x.shape[-1]
    if n > theta.N:
        raise ValueError(f"sequence length {n} exceeds the {theta.N} positional embeddings")
    d = theta.d
    X = x.to(theta.token.dtype)[..., None] * theta.token[..., None, None, :] + theta.positional[..., None, :n, :]
    Xq = X[..., -1:, :] if last_only else X                                  # query positions (*R, B, nq, d)
    if fused and attention == "softmax" and not last_only:
        Y = X + torch.nn.functional.scaled_dot_product_attention(
            _linear(X, theta.W_Q), _linear(X, theta.W_K), _linear(X, theta.W_V), is_causal=True)   # W_O = I
        Z = Y + _linear(torch.relu(_linear(Y, theta.W_1)), theta.W_2)
        return (Z @ theta.head_vector[..., None, :, None])[..., 0] + theta.b[..., None, None]   # head a (= e tied)
    scores = _linear(Xq, theta.W_Q) @ _linear(X, theta.W_K).transpose(-1, -2) / math.sqrt(d)   # <q_n, k_i>/sqrt d
    if attention == "softmax":
        if not last_only:
            scores = scores.masked_fill(~torch.ones(n, n, dtype=torch.bool).tril(), float("-inf"))
        att = torch.softmax(scores, dim=-1)
    else:                                                                    # (1/n) normalisation, §7
        if last_only:
            att = scores / n
        else:
            counts = torch.arange(1, n + 1, dtype=X.dtype)[:, None]
            att = scores.masked_fill(~torch.ones(n, n, dtype=torch.bool).tril(), 0.0) / counts
    Y = Xq + att @ _linear(X, theta.W_V)                                     # W_O = I
    Z = Y + _linear(torch.relu(_linear(Y, theta.W_1)), theta.W_2)
    out = (Z @ theta.head_vector[..., None, :, None])[..., 0] + theta.b[..., None, None]    # head a (= e tied)
    return out[..., 0] if last_only else out


def logits_affine(theta: FullParameters, x: torch.Tensor, attention: str = "softmax",
                  last_only: bool = False) -> torch.Tensor:
    r"""The same logits as `logits`, computed through the bit-affine structure of the token vectors (fast path).

    Every token vector is x_i e + p_i, so every linear image of it is affine in the bit: W(x_i e + p_i) =
    x_i (W e) + W p_i. Hence the attention score <q_n, k_i> = x_n x_i <a_Q, a_K> + x_n <a_Q, c_{K,i}> +
    x_i <c_{Q,n}, a_K> + <c_{Q,n}, c_{K,i}> (a_W = W e, c_{W,i} = W p_i) needs per sequence only (n, n)
    scalars, never the (n, n, d) products, and the value mix is (sum_i att x_i) a_V + att (W_V p). An exact
    rearrangement of the same arithmetic (equal to `logits` up to rounding, tested); the training of
    `experiments` runs on it, the claims on the literal `logits`. Shapes and batch dimensions as in `logits`.
    """
    if attention not in ATTENTIONS:
        raise ValueError(f"attention must be one of {ATTENTIONS}, got {attention!r}")
    n = x.shape[-1]
    if n > theta.N:
        raise ValueError(f"sequence length {n} exceeds the {theta.N} positional embeddings")
    d, tok, P = theta.d, theta.token, theta.positional[..., :n, :]
    xf = x.to(tok.dtype)

    def affine(W):                      # (W e, W p_i): (*R, d), (*R, n, d)
        return (W @ tok[..., None])[..., 0], P @ W.transpose(-1, -2)

    (qa, qc), (ka, kc), (va, vc) = affine(theta.W_Q), affine(theta.W_K), affine(theta.W_V)
    rows = slice(n - 1, n) if last_only else slice(0, n)
    xq = xf[..., rows]                                                       # query bits (..., B, nq)
    s11 = (qa * ka).sum(-1)[..., None, None, None]
    s10 = (qc[..., rows, :] @ ka[..., None])[..., None, :, :]               # <c_{Q,n}, a_K>: (*R, 1, nq, 1)
    s01 = (kc @ qa[..., None]).transpose(-1, -2)[..., None, :, :]            # <a_Q, c_{K,i}>: (*R, 1, 1, n)
    s00 = (qc[..., rows, :] @ kc.transpose(-1, -2))[..., None, :, :]         # (*R, 1, nq, n)
    scores = (xq[..., :, None] * xf[..., None, :] * s11 + xq[..., :, None] * s01 + xf[..., None, :] * s10
              + s00) / math.sqrt(d)
    if not last_only:
        keep = torch.ones(n, n, dtype=torch.bool).tril()
    if attention == "softmax":
        att = torch.softmax(scores if last_only else scores.masked_fill(~keep, float("-inf")), dim=-1)
    elif last_only:
        att = scores / n
    else:
        att = scores.masked_fill(~keep, 0.0) / torch.arange(1, n + 1, dtype=xf.dtype)[:, None]
    B, nq = att.shape[-3], att.shape[-2]
    mix = ((att * xf[..., None, :]).sum(-1)[..., None] * va[..., None, None, :]
           + (att.flatten(-3, -2) @ vc).unflatten(-2, (B, nq)))
    Y = xq[..., None] * tok[..., None, None, :] + P[..., None, rows, :] + mix   # W_O = I
    Z = Y + _linear(torch.relu(_linear(Y, theta.W_1)), theta.W_2)
    out = (Z @ theta.head_vector[..., None, :, None])[..., 0] + theta.b[..., None, None]  # head a (= e tied)
    return out[..., 0] if last_only else out


@lru_cache(maxsize=8)
def _all_sequences(N: int) -> torch.Tensor:
    idx = torch.arange(2**N)
    return ((idx[:, None] >> torch.arange(N - 1, -1, -1)) & 1).to(DTYPE)


def all_sequences(N: int) -> torch.Tensor:
    """All 2^N binary sequences of length N, (2^N, N), in lexicographic order."""
    if not 1 <= N <= 20:
        raise ValueError(f"exact enumeration needs 1 <= N <= 20, got {N}")
    return _all_sequences(N).clone()


def sequence_probabilities(p: float, q: float, x: torch.Tensor) -> torch.Tensor:
    r"""P(x_1^N) = pi_{x_1} prod_k P(x_{k+1} | x_k) for the chain (pi, P) started stationary."""
    _check_pq(p, q)
    pi1 = p / (p + q)
    first = torch.where(x[:, 0] > 0, torch.tensor(pi1, dtype=DTYPE), torch.tensor(1 - pi1, dtype=DTYPE))
    prev, nxt = x[:, :-1], x[:, 1:]
    p_one = next_one_probability(p, q, prev)
    trans = torch.where(nxt > 0, p_one, 1 - p_one)
    return first * trans.prod(dim=1)


def next_one_probability(p: float, q: float, x: torch.Tensor) -> torch.Tensor:
    """P(x_{n+1} = 1 | x_n): p after a 0, 1 - q after a 1 (the kernel's second column)."""
    return torch.where(x > 0, torch.tensor(1 - q, dtype=DTYPE), torch.tensor(p, dtype=DTYPE))


def population_loss(theta: FullParameters, p: float, q: float, N: int | None = None,
                    attention: str = "softmax", fast: bool = False) -> torch.Tensor:
    r"""Exact population cross-entropy L(theta) over sequences of length N (default theta.N).

    L = (1/N) sum_n sum_{x_1^n} P(x_1^n) [P1 softplus(-z_n) + (1 - P1) softplus(z_n)],
    P1 = P(x_{n+1} = 1 | x_n): the exact expectation over the target (Markov property), and over
    x_{n+2..N}, on which z_n does not depend (causal attention): each position needs only its 2^n prefixes
    (2^{N+1} - 2 logits in all instead of N 2^N; `population_loss_enumerated` is the literal sum over all
    2^N sequences). With batched parameters (see `logits`) the result has the batch shape: the logits of all
    models in one pass, then each model's expectation from its own row, so that with the literal `logits` every
    entry is bit for bit the loss of that model alone (tested; the batched products of `logits_affine` may round
    differently). `fast=True` evaluates the model with `logits_affine` (the training's recorded losses), else with
    the literal `logits`.
    """
    N = theta.N if N is None else N
    model = logits_affine if fast else logits
    total = 0
    for n in range(1, N + 1):
        x, P1, weights = _prefix_law(p, q, n)
        if theta.token.device.type != "cpu":              # the chain's tables are built once, on the CPU
            x, P1, weights = (t.to(theta.token.device) for t in (x, P1, weights))
        total = total + _position_loss(model(theta, x, attention, last_only=True), P1, weights)   # z: (*R, 2^n)
    return total / N


def _position_loss(z: torch.Tensor, P1: torch.Tensor, weights: torch.Tensor) -> torch.Tensor:
    r"""sum_{x_1^n} P(x_1^n) [P1 softplus(-z_n) + (1 - P1) softplus(z_n)]: position n's term of the population loss.

    Logits z of a batch of models (*R, 2^n) give each model's value as for the model alone. softplus and the sum
    take one model's row at a time: over one long tensor torch's elementwise kernels take their vectorised path
    where a single model's short row takes the scalar one (softplus may round differently in the last bit), and a
    reduction over rows may group the additions differently. The negation, products and sum of two terms run on the
    whole batch: each is one correctly rounded IEEE operation per entry, the same bits on either path."""
    softplus = torch.nn.functional.softplus
    if z.ndim == 1:
        per_prefix = P1 * softplus(-z) + (1 - P1) * softplus(z)
        return (weights * per_prefix).sum(dim=-1)
    rows = z.reshape(-1, z.shape[-1])
    per_prefix = (P1 * torch.stack([softplus(r) for r in -rows])
                  + (1 - P1) * torch.stack([softplus(r) for r in rows]))
    return torch.stack([r.sum(dim=-1) for r in weights * per_prefix]).reshape(z.shape[:-1])


@lru_cache(maxsize=64)
def _prefix_law(p: float, q: float, n: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """The chain's side of `population_loss` at position n: every context x_1^n (2^n, n), P(x_{n+1} = 1 | x_n)
    and P(x_1^n). It does not depend on theta, so it is built once per (p, q, n) (the probes of Thm 5 evaluate
    the loss thousands of times at one chain); the tensors are shared, only read."""
    x = _all_sequences(n)
    return x, next_one_probability(p, q, x[:, -1]), sequence_probabilities(p, q, x)


def population_loss_enumerated(theta: FullParameters, p: float, q: float, N: int | None = None,
                               attention: str = "softmax") -> torch.Tensor:
    r"""The same loss as the literal sum over all 2^N sequences and all N positions (the definition, §2)."""
    N = theta.N if N is None else N
    x = all_sequences(N)
    weights, P1 = sequence_probabilities(p, q, x), next_one_probability(p, q, x)
    if theta.token.device.type != "cpu":              # the chain's tables are built on the CPU
        x, weights, P1 = (t.to(theta.token.device) for t in (x, weights, P1))
    z = logits(theta, x, attention)
    per_position = P1 * torch.nn.functional.softplus(-z) + (1 - P1) * torch.nn.functional.softplus(z)
    return (weights[:, None] * per_position).sum(dim=(-2, -1)) / N


def sample_sequences(p: float, q: float, length: int, batch: int, generator: torch.Generator) -> torch.Tensor:
    """`batch` sequences x_1..x_length of the stationary chain, (batch, length) float64 bits."""
    _check_pq(p, q)
    u = torch.rand(batch, length, dtype=DTYPE, generator=generator)
    out = torch.empty(batch, length, dtype=DTYPE)
    out[:, 0] = (u[:, 0] < p / (p + q)).to(DTYPE)
    for k in range(1, length):
        out[:, k] = (u[:, k] < next_one_probability(p, q, out[:, k - 1])).to(DTYPE)
    return out


def empirical_loss(theta: FullParameters, seqs: torch.Tensor, attention: str = "softmax") -> torch.Tensor:
    """Mean next-token cross-entropy on sampled sequences (batch, N+1): inputs x_1..x_N, targets x_2..x_{N+1}."""
    z = logits(theta, seqs[:, :-1], attention)
    return torch.nn.functional.binary_cross_entropy_with_logits(z, seqs[:, 1:])


def singular_value_ratios(M: torch.Tensor) -> torch.Tensor:
    """s_2/s_1, s_3/s_1, ... of a matrix: all near 0 means numerically rank one."""
    s = torch.linalg.svdvals(M.detach())
    return s[1:] / s[0] if s[0] > 0 else torch.full_like(s[1:], float("nan"))


def _check_pq(p: float, q: float) -> None:
    if not (0 < p < 1 and 0 < q < 1):
        raise ValueError(f"p and q must lie in (0, 1), got p={p}, q={q}")


def stack_parameters(thetas: list[FullParameters]) -> FullParameters:
    """R parameter sets as one with a leading batch dimension R (`logits` evaluates all at once)."""
    return FullParameters(*[torch.stack(ts) for ts in zip(*(t.tensors() for t in thetas))])
