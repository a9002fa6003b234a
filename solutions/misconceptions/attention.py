"""Known wrong versions of scaled_dot_product_attention, self_attention and cross_attention."""

import numpy as np
from attention import scaled_dot_product_attention
from masks import causal_mask
from scores import attention_scores
from softmax import softmax

from attnlab.misconceptions import Alternatives, Raised, misconception, probe


def _attend(q, k, v, mask, *, scale_width=None, fill=-np.inf, axis=-1, blind="either"):
    """The reference's steps, with the one thing a mistake changes as a parameter.

    A query that may see no key is a rule of its own: a student whose mistake is elsewhere leaves
    such a row nan (the -inf arithmetic) or gives it zeros as the course asks, and either way the
    mistake is the same; ``blind="nan"`` keeps the nan only (that mistake is the nan itself)."""
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1] if scale_width is None else scale_width)
    if mask is not None:
        scores = np.where(mask, scores, fill)
    weights = softmax(scores, axis=axis)
    if mask is None or blind == "nan" or fill != -np.inf or not np.isnan(weights).any():
        return weights @ v, weights
    zeroed = np.where(mask, np.nan_to_num(weights, nan=0.0), 0.0)
    return Alternatives([(weights @ v, weights), (zeroed @ v, zeroed)])


def _finish(scores, v, mask):
    """Softmax and output from masked scores (-inf where hidden), a row with no visible key left
    nan or given zeros (students write both)."""
    weights = softmax(scores, axis=-1)
    if mask is None or not np.isnan(weights).any():
        return weights @ v, weights
    zeroed = np.where(mask, np.nan_to_num(weights, nan=0.0), 0.0)
    return Alternatives([(weights @ v, weights), (zeroed @ v, zeroed)])


@misconception(
    "scaled_dot_product_attention",
    "a query with no visible key gets nan",
    explanation="When a query may see no key (a padding query under a causal mask, with left padding), every score of its row is -inf, and the softmax computes -inf - (-inf) = nan. Such a row must come out as zero weights and a zero output, or the nan spreads to every later layer.",
    hint="After the softmax, set the weights of masked cells to 0 with np.where(mask, weights, 0.0), and give an all-masked row finite scores first.",
)
def sdpa_nan_for_empty_row(q, k, v, mask=None):
    return _attend(q, k, v, mask, blind="nan")


@misconception(
    "scaled_dot_product_attention",
    "K and V swapped: the weights from q vᵀ, the output a blend of the keys",
    explanation="Keys and values play different parts: a key is what a token offers to be matched against (the weights come from q · k), a value is what it contributes once matched (the output blends the values). Swapping them scores the queries against the values and returns a blend of the keys; it only runs at all when d_k = d_v.",
    hint="weights = softmax(q kᵀ / √d_k), then out = weights @ v.",
)
def sdpa_keys_and_values_swapped(q, k, v, mask=None):
    try:
        scores = q @ np.swapaxes(v, -1, -2) / np.sqrt(q.shape[-1])
    except ValueError as error:  # d_v != d_k: q cannot be dotted with a value
        return Raised(type(error).__name__)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    return _finish(scores, k, mask)


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
    hint="Fill masked scores with -np.inf, not 0 and not a finite number such as -1e9 (it leaves a query that may see no key uniform); then zero such a row after the softmax.",
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
    return _finish(scores, v, mask)


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
    answers = _attend(q, k, v, mask)
    return Alternatives([(weights, out) for out, weights in answers]) if isinstance(answers, Alternatives) else answers[::-1]


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
    answers = _finish(scores, v, mask)
    return Alternatives([(scores @ v, weights) for _, weights in answers]) if isinstance(answers, Alternatives) else (scores @ v, answers[1])


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


@misconception(
    "scaled_dot_product_attention",
    "masked scores set to -1e9: a query that may see no key gets uniform weights",
    explanation="A large negative number hides a key as well as -inf does while the query sees some other key. But a query that may see no key at all (a padding query under a causal mask, with left padding) then has every score equal, and the softmax spreads its weight uniformly over keys it must not see: its output is the mean of hidden values instead of zero, and it sends gradient to them.",
    hint="After the softmax, give a row with no visible key zero weights: np.where(mask, weights, 0.0) (with -inf, first give such a row finite scores so that no nan is made).",
)
def sdpa_minus_1e9(q, k, v, mask=None):
    return _attend(q, k, v, mask, fill=-1e9)


@misconception(
    "scaled_dot_product_attention",
    "the 1/√d_k divides the weights after the softmax, not the scores before it",
    explanation="The scale tempers the scores so that the softmax does not saturate; applied after the softmax it only shrinks every weight by √d_k, so the rows no longer sum to 1 and the softmax is as saturated as without the scale.",
    hint="softmax(q kᵀ / √d_k): divide the scores, then take the softmax.",
)
def sdpa_scales_the_weights(q, k, v, mask=None):
    answers = _attend(q, k, v, mask, scale_width=1.0)
    scale = np.sqrt(q.shape[-1])
    if isinstance(answers, Alternatives):
        return Alternatives([((w / scale) @ v, w / scale) for _, w in answers])
    return (answers[1] / scale) @ v, answers[1] / scale


@misconception(
    "scaled_dot_product_attention",
    "the scores are returned in place of the weights",
    explanation="The second result is the attention weights, softmax(scores): each row a distribution over the keys. The raw (scaled, masked) scores are what the softmax is taken of, not the weights.",
    hint="return weights @ v, weights, with weights = softmax(scores, axis=-1).",
)
def sdpa_returns_scores(q, k, v, mask=None):
    scores = attention_scores(q, k)
    masked = scores if mask is None else np.where(mask, scores, -np.inf)
    answers = _finish(masked, v, mask)
    outputs = [out for out, _ in answers] if isinstance(answers, Alternatives) else [answers[0]]
    return Alternatives([(out, shown) for out in outputs for shown in (scores, masked)])


@misconception(
    "self_attention",
    "the causal mask is built with np.triu (the future and the diagonal)",
    explanation="With True = may attend, query i sees keys 0..i: the lower triangle, np.tril. np.triu keeps the diagonal and everything above it, so each query reads itself and every later token, never an earlier one.",
    hint="Use causal_mask(T) from masks.py (np.tril).",
)
def self_attention_causal_triu(x, w_q, w_k, w_v, causal=False):
    t = x.shape[-2]
    mask = np.triu(np.ones((t, t), dtype=bool)) if causal else None
    return scaled_dot_product_attention(x @ w_q, x @ w_k, x @ w_v, mask)


@misconception(
    "self_attention",
    "the projections use the transposed weights (x @ w.T, the papers' W x)",
    explanation="The papers write W x with column vectors; this course's arrays hold one token per row, so the projection is x @ w_q with w_q of shape (d_model, d_k). x @ w_q.T fails when d_k != d_model and silently uses the wrong weights when they are square.",
    hint="q = x @ w_q, k = x @ w_k, v = x @ w_v.",
)
def self_attention_weights_transposed(x, w_q, w_k, w_v, causal=False):
    mask = causal_mask(x.shape[-2]) if causal else None
    return scaled_dot_product_attention(x @ w_q.T, x @ w_k.T, x @ w_v.T, mask)


@misconception(
    "self_attention",
    "the causal mask's size is read off the wrong axis",
    explanation="The causal mask is (T, T), T the number of tokens: x.shape[-2]. x.shape[-1] is the width d_model and x.shape[0] the batch; either gives a mask that does not fit the (…, T, T) scores, or fits by chance and masks the wrong cells.",
    hint="causal_mask(x.shape[-2]).",
)
def self_attention_mask_size_from_wrong_axis(x, w_q, w_k, w_v, causal=False):
    if not causal:
        return scaled_dot_product_attention(x @ w_q, x @ w_k, x @ w_v)
    return Alternatives([_attend_or_raise(x, w_q, w_k, w_v, causal_mask(x.shape[axis])) for axis in (-1, 0)])


def _attend_or_raise(x, w_q, w_k, w_v, mask):
    try:
        return scaled_dot_product_attention(x @ w_q, x @ w_k, x @ w_v, mask)
    except Exception as error:  # noqa: BLE001 - the mistake shows as what it raises
        return Raised(type(error).__name__)


@misconception(
    "cross_attention",
    "the padding mask gets its length-1 axis last ((B, L_k, 1)): it hides queries, not keys",
    explanation="Against (B, L_q, L_k) scores the mask needs a query axis of length 1 in the middle: (B, 1, L_k). kv_padding_mask[:, :, None] is (B, L_k, 1): it fails unless L_q == L_k, and then it hides whole query rows instead of padded keys.",
    hint="kv_padding_mask[:, None, :].",
)
def cross_attention_mask_as_column(x_q, x_kv, w_q, w_k, w_v, kv_padding_mask=None):
    mask = None if kv_padding_mask is None else kv_padding_mask[:, :, None]
    q, k, v = x_q @ w_q, x_kv @ w_k, x_kv @ w_v
    try:
        return scaled_dot_product_attention(q, k, v, mask)
    except ValueError as error:
        return Raised(type(error).__name__)


@misconception(
    "cross_attention",
    "queries from the encoder, keys and values from the decoder (the roles swapped)",
    explanation="The decoder asks, the encoder answers: queries come from x_q (the decoder), keys and values from x_kv (the encoder). Swapped, the output has one row per encoder token and mixes decoder vectors.",
    hint="q = x_q @ w_q; k = x_kv @ w_k; v = x_kv @ w_v.",
)
def cross_attention_roles_swapped(x_q, x_kv, w_q, w_k, w_v, kv_padding_mask=None):
    q, k, v = x_kv @ w_q, x_q @ w_k, x_q @ w_v
    if kv_padding_mask is None:
        return scaled_dot_product_attention(q, k, v)
    answers = []
    for mask in (kv_padding_mask[:, None, :], kv_padding_mask[:, :, None]):
        try:
            answers.append(scaled_dot_product_attention(q, k, v, mask))
        except ValueError as error:
            answers.append(Raised(type(error).__name__))
    return Alternatives(answers)


@misconception(
    "cross_attention",
    "the padding mask is never applied",
    explanation="The encoder's padded positions are not tokens: without the mask every decoder query gives them weight, and what sits in the padding (zeros, or whatever the batch held) leaks into the output.",
    hint="Pass kv_padding_mask[:, None, :] as the mask when it is given.",
)
def cross_attention_ignores_padding(x_q, x_kv, w_q, w_k, w_v, kv_padding_mask=None):
    return scaled_dot_product_attention(x_q @ w_q, x_kv @ w_k, x_kv @ w_v)


def _fixed(shape, seed):
    """A fixed, small array (the probes' inputs are the same for every student)."""
    return np.random.default_rng(seed).normal(size=shape)


_CAUSAL_4 = np.tril(np.ones((4, 4), dtype=bool))


@misconception(
    "scaled_dot_product_attention",
    "the boolean mask added to the scores (True = +1, False = +0) instead of hiding keys",
    explanation="An additive mask holds 0 where a key may be seen and -inf where it may not; this course's mask is boolean, True = may attend. Adding a boolean mask to the scores adds 1 to every visible key and 0 to the hidden ones: the hidden keys keep almost all their weight, and a query that may see no key is not even noticed.",
    hint="np.where(mask, scores, -np.inf) before the softmax (or add np.where(mask, 0.0, -np.inf)).",
)
def sdpa_boolean_mask_added(q, k, v, mask=None):
    scores = attention_scores(q, k)
    if mask is not None:
        scores = scores + mask
    weights = softmax(scores, axis=-1)
    return weights @ v, weights


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
probe("cross_attention", "L_q == L_k with a padding mask: a mask on the wrong axis still fits", _fixed((2, 3, 3), 41), _fixed((2, 3, 3), 42), _fixed((3, 2), 32), _fixed((3, 2), 33), _fixed((3, 5), 34), np.array([[True, True, False], [True, False, False]]))
probe("self_attention", "square weights (d_model = d_k = d_v), T != d_model, causal", _fixed((2, 5, 3), 24), _fixed((3, 3), 25), _fixed((3, 3), 26), _fixed((3, 3), 27), causal=True)
probe("self_attention", "one sequence of one feature, causal: a mask of the wrong size still broadcasts", _fixed((1, 3, 1), 27), _fixed((1, 2), 28), _fixed((1, 2), 29), _fixed((1, 2), 43), causal=True)


@misconception(
    "scaled_dot_product_attention",
    "q is scaled in place",
    explanation="q /= np.sqrt(d_k) writes into the caller's queries: a caller that uses q again (another head, a second call, the backward pass) uses queries already divided by √d_k, and they shrink every call. The output of this call is right, which is why this goes unnoticed.",
    hint="Scale the scores, or a new array: scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(d_k).",
    changes_its_arguments=True,
)
def sdpa_scales_q_in_place(q, k, v, mask=None):
    answer = scaled_dot_product_attention(np.array(q), k, v, mask)
    q /= np.sqrt(q.shape[-1])  # then scores = q @ kᵀ: the caller's q is divided too
    return answer


@misconception(
    "scaled_dot_product_attention",
    "the mask argument is never applied",
    explanation="A mask (True = may attend) hides keys before the softmax: the future under a causal mask, padding, another document. Ignored, every query reads every key.",
    hint="scores = np.where(mask, scores, -np.inf) before the softmax (and zero a row that sees no key after it).",
)
def sdpa_ignores_mask(q, k, v, mask=None):
    return _attend(q, k, v, None)


@misconception(
    "self_attention",
    "one of Q, K, V is made with another's weights, or two of them swapped (a copy-paste slip among w_q, w_k, w_v)",
    explanation="Self-attention makes three views of x, each with its own matrix: Q = x W_Q, K = x W_K, V = x W_V. Using one matrix twice (V = x W_K, say), or swapping two (K = x W_V and V = x W_K), runs whenever the widths agree and gives other numbers.",
    hint="Check each line: q = x @ w_q, k = x @ w_k, v = x @ w_v.",
)
def self_attention_projection_slip(x, w_q, w_k, w_v, causal=False):
    mask = np.tril(np.ones((x.shape[-2],) * 2, dtype=bool)) if causal else None
    outputs = []
    # One matrix used twice, or two of them swapped (k and v, q and k, q and v).
    for q_w, k_w, v_w in ((w_k, w_k, w_v), (w_q, w_k, w_k), (w_q, w_k, w_q), (w_q, w_v, w_v), (w_v, w_k, w_v), (w_q, w_q, w_q), (w_q, w_v, w_k), (w_k, w_q, w_v), (w_v, w_k, w_q)):
        try:
            outputs.append(scaled_dot_product_attention(x @ q_w, x @ k_w, x @ v_w, mask))
        except ValueError as error:
            outputs.append(Raised(type(error).__name__))
    return Alternatives(outputs)
