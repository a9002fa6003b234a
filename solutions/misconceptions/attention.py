"""Known wrong versions of scaled_dot_product_attention, self_attention and cross_attention."""

import numpy as np
from attention import scaled_dot_product_attention
from masks import causal_mask
from scores import attention_scores
from softmax import softmax

from attnlab.misconceptions import Alternatives, misconception, probe


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


@misconception(
    "scaled_dot_product_attention",
    "no 1/√d_k scale",
    explanation="A dot product of d_k unit-variance terms has variance d_k; unscaled, the softmax saturates as heads widen (almost one-hot at d_k = 256) and its gradients vanish.",
    hint="Divide q kᵀ by np.sqrt(q.shape[-1]) before the softmax.",
)
def sdpa_no_scale(q, k, v, mask=None):
    return _attend(q, k, v, mask, scale_width=1.0)


@misconception(
    "scaled_dot_product_attention",
    "scaled by 1/d_k instead of 1/√d_k",
    explanation="The variance of q·k grows like d_k, so its spread grows like √d_k: dividing by d_k over-corrects and the weights flatten towards uniform as heads widen.",
    hint="Divide by np.sqrt(d_k), not d_k.",
)
def sdpa_scaled_by_d_k(q, k, v, mask=None):
    return _attend(q, k, v, mask, scale_width=q.shape[-1] ** 2)


@misconception(
    "scaled_dot_product_attention",
    "k.T reverses every axis, not only the last two",
    explanation="On (L_k, d_k) keys k.T is right, but on (B, L_k, d_k) it is (d_k, L_k, B): the batch axis moves to the end, and q @ k.T fails or mixes sequences.",
    hint="np.swapaxes(k, -1, -2) swaps only the token and feature axes, whatever the leading axes are.",
)
def sdpa_full_transpose(q, k, v, mask=None):
    scores = q @ k.T / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = softmax(scores, axis=-1)
    return weights @ v, weights


@misconception(
    "scaled_dot_product_attention",
    "a transpose written for one rank (k.transpose(0, 2, 1))",
    explanation="k.transpose(0, 2, 1) is right for a (B, L_k, d_k) array only: it fails on 2-D keys and swaps the wrong axes once heads add a fourth.",
    hint="np.swapaxes(k, -1, -2) counts from the end, so it works for any number of leading axes.",
)
def sdpa_fixed_rank_transpose(q, k, v, mask=None):
    scores = q @ k.transpose(0, 2, 1) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = softmax(scores, axis=-1)
    return weights @ v, weights


@misconception(
    "scaled_dot_product_attention",
    "exp of the scores without subtracting the row maximum",
    explanation="exp overflows to inf for scores above about 710 (float64), and inf / inf is nan. Subtracting each row's maximum first changes nothing mathematically and keeps every exponential at most 1.",
    hint="Use softmax(scores, axis=-1), or subtract scores.max(axis=-1, keepdims=True) before np.exp.",
)
def sdpa_exp_without_max(q, k, v, mask=None):
    scores = attention_scores(q, k)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    exps = np.exp(scores)
    weights = exps / exps.sum(axis=-1, keepdims=True)
    return weights @ v, weights


@misconception(
    "scaled_dot_product_attention",
    "returns (weights, output) instead of (output, weights)",
    explanation="Every attention function in the course returns the output first and the weights second, like PyTorch's nn.MultiheadAttention: callers unpack out, weights = ...",
    hint="return weights @ v, weights.",
)
def sdpa_returns_weights_first(q, k, v, mask=None):
    out, weights = _attend(q, k, v, mask)
    return weights, out


@misconception(
    "scaled_dot_product_attention",
    "the output is built from the raw scores, not the weights",
    explanation="The output is a weighted average of the values, with the softmax weights as the weights: each row a convex combination. scores @ v uses unnormalised, possibly negative scores instead.",
    hint="Multiply the weights (after the softmax) by v: weights @ v.",
)
def sdpa_output_from_scores(q, k, v, mask=None):
    scores = attention_scores(q, k)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = softmax(scores, axis=-1)
    return scores @ v, weights


@misconception(
    "self_attention",
    "the keys are projected with w_q",
    explanation="Queries, keys and values are three different learned views of x: Q = x W_Q, K = x W_K, V = x W_V. Using w_q for the keys makes every score a query dotted with another query.",
    hint="k = x @ w_k.",
)
def self_attention_keys_from_w_q(x, w_q, w_k, w_v, causal=False):
    mask = causal_mask(x.shape[-2]) if causal else None
    return scaled_dot_product_attention(x @ w_q, x @ w_q, x @ w_v, mask)


@misconception(
    "self_attention",
    "the causal mask is inverted (True on the future)",
    explanation="True means may attend: query i sees keys 0..i. A mask that is True above the diagonal lets each query see only later tokens, and the last query none at all.",
    hint="Pass causal_mask(T) as it is; do not negate it.",
)
def self_attention_causal_inverted(x, w_q, w_k, w_v, causal=False):
    t = x.shape[-2]
    mask = ~causal_mask(t) if causal else None
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    # The last query sees no key: nan by hand, uniform with -1e9, zeros through the course's function.
    return Alternatives([_attend(q, k, v, mask, fill=fill) for fill in (-np.inf, -1e9)] + [scaled_dot_product_attention(q, k, v, mask)])


@misconception(
    "cross_attention",
    "values taken from the query source",
    explanation="The decoder asks and the encoder answers: keys and values both come from x_kv, so the output mixes encoder vectors. Values from x_q only line up when L_q == L_k, and mean nothing then.",
    hint="v = x_kv @ w_v.",
)
def cross_attention_values_from_queries(x_q, x_kv, w_q, w_k, w_v, kv_padding_mask=None):
    mask = None if kv_padding_mask is None else kv_padding_mask[:, None, :]
    return scaled_dot_product_attention(x_q @ w_q, x_kv @ w_k, x_q @ w_v, mask)


@misconception(
    "cross_attention",
    "the padding mask is inverted (True read as padding)",
    explanation="kv_padding_mask is True at real encoder tokens. Negating it hides the real tokens and shows the padding; a sequence with no padding then has every key hidden.",
    hint="Pass kv_padding_mask[:, None, :] itself as the mask.",
)
def cross_attention_padding_inverted(x_q, x_kv, w_q, w_k, w_v, kv_padding_mask=None):
    mask = None if kv_padding_mask is None else ~kv_padding_mask[:, None, :]
    q, k, v = x_q @ w_q, x_kv @ w_k, x_kv @ w_v
    # A full sequence hides every key: nan by hand, uniform with -1e9, zeros through the course's function.
    return Alternatives([_attend(q, k, v, mask, fill=fill) for fill in (-np.inf, -1e9)] + [scaled_dot_product_attention(q, k, v, mask)])


def _fixed(shape, seed):
    """A fixed, small array (the probes' inputs are the same for every student)."""
    return np.random.default_rng(seed).normal(size=shape)


_CAUSAL_4 = np.tril(np.ones((4, 4), dtype=bool))
probe("scaled_dot_product_attention", "L_q != L_k and d_k != d_v, no mask", _fixed((3, 4), 1), _fixed((5, 4), 2), _fixed((5, 2), 3))
probe("scaled_dot_product_attention", "a 4 x 4 causal mask on a batch of two", _fixed((2, 4, 3), 4), _fixed((2, 4, 3), 5), _fixed((2, 4, 2), 6), _CAUSAL_4)
probe("scaled_dot_product_attention", "a (B, 1, L_k) padding mask, B == L_q", _fixed((3, 3, 2), 7), _fixed((3, 4, 2), 8), _fixed((3, 4, 5), 9), np.array([[True, True, True, False], [True, False, False, False], [True, True, True, True]])[:, None, :])
probe("scaled_dot_product_attention", "scores near ±1e4 with a causal mask", 60.0 * _fixed((4, 4), 10), 60.0 * _fixed((4, 4), 11), _fixed((4, 3), 12), _CAUSAL_4)
probe("scaled_dot_product_attention", "a query that may see no key", _fixed((3, 2), 16), _fixed((4, 2), 17), _fixed((4, 3), 18), np.array([[False, False, False, False], [True, True, False, False], [True, True, True, True]]))
probe("scaled_dot_product_attention", "4-D (batch, heads) inputs", _fixed((1, 2, 3, 2), 13), _fixed((1, 2, 3, 2), 14), _fixed((1, 2, 3, 2), 15))
probe("self_attention", "d_model != d_k != d_v, causal", _fixed((2, 4, 3), 20), _fixed((3, 2), 21), _fixed((3, 2), 22), _fixed((3, 5), 23), causal=True)
probe("self_attention", "the same, not causal", _fixed((2, 4, 3), 20), _fixed((3, 2), 21), _fixed((3, 2), 22), _fixed((3, 5), 23))
probe("cross_attention", "B == L_q, a padded sequence and a full one", _fixed((2, 2, 3), 30), _fixed((2, 4, 3), 31), _fixed((3, 2), 32), _fixed((3, 2), 33), _fixed((3, 5), 34), np.array([[True, True, False, False], [True, True, True, True]]))
probe("cross_attention", "B != L_q != L_k, no mask", _fixed((2, 3, 3), 35), _fixed((2, 4, 3), 36), _fixed((3, 2), 32), _fixed((3, 2), 33), _fixed((3, 5), 34))
probe("cross_attention", "B != L_q with a padding mask", _fixed((2, 3, 3), 37), _fixed((2, 4, 3), 38), _fixed((3, 2), 32), _fixed((3, 2), 33), _fixed((3, 5), 34), np.array([[True, True, True, False], [True, False, False, False]]))
probe("cross_attention", "L_q == L_k: keys or values from the wrong side still line up", _fixed((2, 4, 3), 39), _fixed((2, 4, 3), 40), _fixed((3, 2), 32), _fixed((3, 2), 33), _fixed((3, 5), 34))
