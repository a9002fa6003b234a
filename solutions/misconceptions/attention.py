"""Known wrong versions of scaled_dot_product_attention, self_attention and cross_attention."""

import numpy as np
from attention import scaled_dot_product_attention
from masks import causal_mask
from scores import attention_scores
from softmax import softmax

from attnlab.misconceptions import Alternatives, misconception


def _attend(q, k, v, mask, *, scale_width=None, fill=-np.inf, axis=-1):
    """The reference's steps, with the one thing a mistake changes as a parameter."""
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1] if scale_width is None else scale_width)
    if mask is not None:
        scores = np.where(mask, scores, fill)
    weights = softmax(scores, axis=axis)
    return weights @ v, weights


@misconception(
    "scaled_dot_product_attention",
    "a query with no visible key gets nan",
    explanation="When a query may see no key (a padding query under a causal mask, with left padding), every score of its row is -inf, and the softmax computes -inf - (-inf) = nan. Such a row must come out as zero weights and a zero output, or the nan spreads to every later layer.",
    hint="After the softmax, set the weights of masked cells to 0 with np.where(mask, weights, 0.0), and give an all-masked row finite scores first.",
)
def sdpa_nan_for_empty_row(q, k, v, mask=None):
    return _attend(q, k, v, mask)


@misconception(
    "scaled_dot_product_attention",
    "softmax over the query axis",
    explanation="Each row of the weights must be a distribution over the keys. A softmax over axis -2 makes each column a distribution over the queries instead, which is not retrieval: rows no longer sum to 1.",
    hint="Apply the softmax over the last axis (the keys), axis=-1.",
)
def sdpa_softmax_over_queries(q, k, v, mask=None):
    return _attend(q, k, v, mask, axis=-2)


@misconception(
    "scaled_dot_product_attention",
    "the mask is inverted",
    explanation="In this course True means the query may attend to the key. Sending -inf where the mask is True hides exactly the keys that should be seen.",
    hint="Keep the score where the mask is True: np.where(mask, scores, -np.inf).",
)
def sdpa_mask_inverted(q, k, v, mask=None):
    inverted = None if mask is None else ~np.asarray(mask, dtype=bool)
    # A row whose every key is hidden is nan with -inf and uniform with -1e9: students write both.
    return Alternatives([_attend(q, k, v, inverted, fill=fill) for fill in (-np.inf, -1e9)])


@misconception(
    "scaled_dot_product_attention",
    "the mask is applied after the softmax",
    explanation="Multiplying the weights by the mask zeroes the masked cells, but the softmax had already shared the probability with them, so the remaining weights no longer sum to 1.",
    hint="Mask the scores with -inf before the softmax; the softmax then renormalises over the visible keys.",
)
def sdpa_mask_after_softmax(q, k, v, mask=None):
    weights = softmax(attention_scores(q, k), axis=-1)
    if mask is not None:
        weights = weights * mask
    return weights @ v, weights


@misconception(
    "scaled_dot_product_attention",
    "masked scores filled with 0 instead of -inf",
    explanation="exp(0) = 1, so a masked key with score 0 still gets weight; only exp(-inf) = 0 removes it.",
    hint="Fill masked scores with -np.inf (or a very large negative number such as -1e9).",
)
def sdpa_mask_fills_zero(q, k, v, mask=None):
    return _attend(q, k, v, mask, fill=0.0)


@misconception(
    "scaled_dot_product_attention",
    "scaled by √d_v instead of √d_k",
    explanation="The scale corrects the variance of q·k, a sum over the d_k query/key features; the value width d_v has nothing to do with it.",
    hint="Scale by np.sqrt(q.shape[-1]).",
)
def sdpa_scaled_by_d_v(q, k, v, mask=None):
    return _attend(q, k, v, mask, scale_width=v.shape[-1])


@misconception(
    "self_attention",
    "scaled by √d_model instead of √d_k",
    explanation="The scale belongs to the width of the vectors being dotted, the projected queries and keys (d_k), not to the input width d_model.",
    hint="Project first, then scale by the square root of the queries' last dimension.",
)
def self_attention_scaled_by_d_model(x, w_q, w_k, w_v, causal=False):
    mask = causal_mask(x.shape[-2]) if causal else None
    return _attend(x @ w_q, x @ w_k, x @ w_v, mask, scale_width=x.shape[-1])


@misconception(
    "self_attention",
    "causal=True is ignored",
    explanation="Without the causal mask every token sees the future, so a decoder trained this way can copy the answer, and training no longer matches generation.",
    hint="When causal is True, pass causal_mask(T) as the mask.",
)
def self_attention_ignores_causal(x, w_q, w_k, w_v, causal=False):
    return scaled_dot_product_attention(x @ w_q, x @ w_k, x @ w_v)


@misconception(
    "cross_attention",
    "the (B, L_k) padding mask is broadcast along the queries",
    explanation="Passed as is, a (B, L_k) mask broadcasts against (B, L_q, L_k) scores as (1, B, L_k): row b of the mask lands on query b of every sequence. Shapes only line up when B == L_q, so the bug is silent exactly then.",
    hint="Give the mask a query axis first: kv_padding_mask[:, None, :] has shape (B, 1, L_k).",
)
def cross_attention_mask_broadcast(x_q, x_kv, w_q, w_k, w_v, kv_padding_mask=None):
    return scaled_dot_product_attention(x_q @ w_q, x_kv @ w_k, x_kv @ w_v, kv_padding_mask)


@misconception(
    "cross_attention",
    "keys taken from the query source",
    explanation="In cross-attention the decoder asks (queries from x_q) and the encoder answers: keys and values both come from x_kv.",
    hint="Compute the keys as x_kv @ w_k.",
)
def cross_attention_keys_from_queries(x_q, x_kv, w_q, w_k, w_v, kv_padding_mask=None):
    mask = None if kv_padding_mask is None else kv_padding_mask[:, None, :]
    return scaled_dot_product_attention(x_q @ w_q, x_q @ w_k, x_kv @ w_v, mask)


@misconception(
    "scaled_dot_product_attention",
    "softmax over the first axis (the batch, or the queries when there is none)",
    explanation="softmax(scores, axis=0) normalises across the first axis: for a batch of sequences that mixes different sequences, and for a single (L_q, L_k) matrix it is the query axis. The weights must be a distribution over the keys, the last axis.",
    hint="Use axis=-1, which is the key axis whatever the leading axes are.",
)
def sdpa_softmax_over_first_axis(q, k, v, mask=None):
    return _attend(q, k, v, mask, axis=0)
