"""Known wrong versions of split_heads, merge_heads and multi_head_attention."""

import numpy as np
from attention import scaled_dot_product_attention
from masks import causal_mask
from multihead import merge_heads, split_heads
from softmax import softmax

from attnlab.misconceptions import Alternatives, Raised, misconception, probe


@misconception(
    "split_heads",
    "heads split by reshape alone",
    explanation="Reshaping (..., T, d_model) straight to (..., h, T, d_model/h) cuts the flat memory into chunks that mix tokens into heads. Head h must take feature columns h*d_head:(h+1)*d_head of every token.",
    hint="Reshape to (..., T, h, d_head) first, then swap the T and head axes.",
)
def split_heads_reshape_only(x, n_heads):
    *lead, t, d_model = x.shape
    return x.reshape(*lead, n_heads, t, d_model // n_heads)


@misconception(
    "merge_heads",
    "heads merged by reshape alone",
    explanation="Reshaping (..., h, T, d_head) straight to (..., T, h*d_head) interleaves tokens of different heads. The head axis has to move back after the tokens before the features are joined.",
    hint="Swap the head and T axes, then reshape to (..., T, h * d_head).",
)
def merge_heads_reshape_only(x):
    *lead, n_heads, t, d_head = x.shape
    return x.reshape(*lead, t, n_heads * d_head)


def _heads(x, w_q, w_k, w_v, n_heads):
    return (split_heads(x @ w, n_heads) for w in (w_q, w_k, w_v))


def _mask(x, causal, key_padding_mask, padding_axes=(slice(None), None, None, slice(None))):
    mask = causal_mask(x.shape[-2]) if causal else None
    if key_padding_mask is not None:
        visible = key_padding_mask[padding_axes]
        mask = visible if mask is None else mask & visible
    return mask


@misconception(
    "multi_head_attention",
    "the output projection w_o is forgotten",
    explanation="After the heads are concatenated, w_o mixes what the heads found; without it the layer only concatenates.",
    hint="Return merge_heads(heads) @ w_o.",
)
def mha_forgets_w_o(x, w_q, w_k, w_v, w_o, n_heads, causal=False, key_padding_mask=None):
    q, k, v = _heads(x, w_q, w_k, w_v, n_heads)
    heads, weights = scaled_dot_product_attention(q, k, v, _mask(x, causal, key_padding_mask))
    return merge_heads(heads), weights


@misconception(
    "multi_head_attention",
    "the padding mask is put on the query axis",
    explanation="A key padding mask hides padded keys from every query: it needs shape (B, 1, 1, T). As (B, 1, T, 1) it hides whole rows (padded queries) and leaves the padded keys visible.",
    hint="Index the mask as key_padding_mask[:, None, None, :].",
)
def mha_padding_masks_queries(x, w_q, w_k, w_v, w_o, n_heads, causal=False, key_padding_mask=None):
    q, k, v = _heads(x, w_q, w_k, w_v, n_heads)
    mask = _mask(x, causal, key_padding_mask, padding_axes=(slice(None), None, slice(None), None))
    heads, weights = scaled_dot_product_attention(q, k, v, mask)
    return merge_heads(heads) @ w_o, weights


@misconception(
    "multi_head_attention",
    "scaled by √d_model instead of √d_head",
    explanation="Each head dots vectors of width d_head = d_model / h, so its scores are scaled by 1/√d_head; √d_model over-shrinks them by a factor √h.",
    hint="Split into heads first, then scale by the square root of the heads' last dimension.",
)
def mha_scaled_by_d_model(x, w_q, w_k, w_v, w_o, n_heads, causal=False, key_padding_mask=None):
    q, k, v = _heads(x, w_q, w_k, w_v, n_heads)
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(x.shape[-1])
    mask = _mask(x, causal, key_padding_mask)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = softmax(scores, axis=-1)
    # Scores written by hand leave a query that may see no key nan (0 / 0); through
    # scaled_dot_product_attention (q rescaled), or guarded as the docstring asks, it gets zeros.
    guarded = np.nan_to_num(weights, nan=0.0)
    return Alternatives([(merge_heads(weights @ v) @ w_o, weights), (merge_heads(guarded @ v) @ w_o, guarded)])


@misconception(
    "split_heads",
    "reshaped to (..., T, n_heads, d_head) but the head axis never moved",
    explanation="The reshape gives each token its heads' slices, which is right, but the heads must then become a batch axis in front of the tokens: (..., n_heads, T, d_head). Left where it is, every later matmul pairs the wrong axes.",
    hint="After the reshape, np.swapaxes(x, -3, -2).",
)
def split_heads_no_transpose(x, n_heads):
    *lead, t, d_model = x.shape
    return x.reshape(*lead, t, n_heads, d_model // n_heads)


@misconception(
    "split_heads",
    "head h takes every n_heads-th feature (strided), not a block of columns",
    explanation="Reshaping to (..., T, d_head, n_heads) deals the features out round-robin: head h gets columns h, h + n_heads, ... The contract's head h takes the contiguous block h*d_head:(h+1)*d_head, as merge_heads and w_o expect.",
    hint="Reshape to (..., T, n_heads, d_head): the head index must come before the feature index.",
)
def split_heads_strided(x, n_heads):
    *lead, t, d_model = x.shape
    return np.moveaxis(x.reshape(*lead, t, d_model // n_heads, n_heads), -1, -3)


@misconception(
    "merge_heads",
    "the head axis is moved last, so the heads' features interleave",
    explanation="Moving the head axis behind the features, (..., T, d_head, n_heads), and then flattening interleaves the heads column by column. Head h's features must sit together at columns h*d_head:(h+1)*d_head.",
    hint="Swap the head and token axes, np.swapaxes(x, -3, -2), then reshape to (..., T, n_heads * d_head).",
)
def merge_heads_heads_last(x):
    *lead, n_heads, t, d_head = x.shape
    return np.moveaxis(x, -3, -1).reshape(*lead, t, n_heads * d_head)


@misconception(
    "multi_head_attention",
    "the softmax runs over the heads axis",
    explanation="Per head the scores are (B, n_heads, T_queries, T_keys): axis 1 is the heads. A softmax over it shares probability between heads; each query's weights must sum to 1 over the keys, the last axis.",
    hint="softmax(scores, axis=-1).",
)
def mha_softmax_over_heads(x, w_q, w_k, w_v, w_o, n_heads, causal=False, key_padding_mask=None):
    q, k, v = _heads(x, w_q, w_k, w_v, n_heads)
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    mask = _mask(x, causal, key_padding_mask)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = softmax(scores, axis=1)
    return merge_heads(weights @ v) @ w_o, weights


@misconception(
    "multi_head_attention",
    "causal=True is ignored",
    explanation="Without the causal mask every token sees the tokens after it, in every head, so a decoder trained this way copies the answer.",
    hint="When causal is True, combine causal_mask(T) with the padding mask (both True = may attend) before attending.",
)
def mha_ignores_causal(x, w_q, w_k, w_v, w_o, n_heads, causal=False, key_padding_mask=None):
    q, k, v = _heads(x, w_q, w_k, w_v, n_heads)
    heads, weights = scaled_dot_product_attention(q, k, v, _mask(x, False, key_padding_mask))
    return merge_heads(heads) @ w_o, weights


@misconception(
    "merge_heads",
    "the head axis swapped with the width axis (-3 and -1) before the reshape",
    explanation="(…, n_heads, T, d_head) must become (…, T, n_heads, d_head) before the reshape: the head axis moves next to the width, swapping axes -3 and -2. Swapping -3 and -1 gives (…, d_head, T, n_heads), and the reshape then mixes tokens and features.",
    hint="np.swapaxes(x, -3, -2), then reshape to (…, T, n_heads * d_head).",
)
def merge_heads_swaps_head_and_width(x):
    *lead, n_heads, t, d_head = x.shape
    return np.swapaxes(x, -3, -1).reshape(*lead, t, n_heads * d_head)


@misconception(
    "merge_heads",
    "the heads concatenated along the token axis",
    explanation="Each token's heads go side by side: the output is (…, T, n_heads · d_head), one row per token. Concatenating along the token axis stacks the heads as extra tokens, (…, n_heads · T, d_head).",
    hint="Concatenate along the last axis (the features), after moving the head axis next to it.",
)
def merge_heads_concatenates_tokens(x):
    return np.concatenate([x[..., h, :, :] for h in range(x.shape[-3])], axis=-2)


@misconception(
    "multi_head_attention",
    "the (B, T) padding mask given one axis, (B, 1, T): the batch lines up with the heads",
    explanation="The scores are (B, n_heads, T, T): a key padding mask must be (B, 1, 1, T) to reach every head and every query. (B, 1, T) broadcasts as (1, B, 1, T), so sequence b's mask lands on head b: it raises unless B equals the number of heads (or 1), and is silently wrong when it does.",
    hint="key_padding_mask[:, None, None, :].",
)
def mha_padding_mask_missing_an_axis(x, w_q, w_k, w_v, w_o, n_heads, causal=False, key_padding_mask=None):
    q, k, v = _heads(x, w_q, w_k, w_v, n_heads)
    try:
        heads, weights = scaled_dot_product_attention(q, k, v, _mask(x, causal, key_padding_mask, (slice(None), None, slice(None))))
    except ValueError as error:
        return Raised(type(error).__name__)
    return merge_heads(heads) @ w_o, weights


@misconception(
    "multi_head_attention",
    "weights used transposed (x @ w.T, as nn.Linear stores them)",
    explanation="nn.Linear stores its weight as (out, in) and computes x @ W.T; this course's w_q … w_o are (d_model, d_model) matrices used as x @ w. Transposing them runs (they are square) and silently uses other weights.",
    hint="x @ w_q, x @ w_k, x @ w_v and merge_heads(heads) @ w_o.",
)
def mha_weights_transposed(x, w_q, w_k, w_v, w_o, n_heads, causal=False, key_padding_mask=None):
    answers = []
    for inputs, output in (((w_q, w_k, w_v), w_o.T), ((w_q.T, w_k.T, w_v.T), w_o.T), ((w_q.T, w_k.T, w_v.T), w_o)):
        q, k, v = _heads(x, *inputs, n_heads)
        heads, weights = scaled_dot_product_attention(q, k, v, _mask(x, causal, key_padding_mask))
        answers.append((merge_heads(heads) @ output, weights))
    return Alternatives(answers)


@misconception(
    "multi_head_attention",
    "the causal and padding masks combined with | (either lets a key through)",
    explanation="A key may be seen only if both masks allow it: it is in the past (causal) and it is a real token (padding). mask | padding lets a query see the future as long as it is real, and padding as long as it is in the past.",
    hint="Combine with &: causal_mask(T) & key_padding_mask[:, None, None, :].",
)
def mha_masks_combined_with_or(x, w_q, w_k, w_v, w_o, n_heads, causal=False, key_padding_mask=None):
    q, k, v = _heads(x, w_q, w_k, w_v, n_heads)
    mask = causal_mask(x.shape[-2]) if causal else None
    if key_padding_mask is not None:
        visible = key_padding_mask[:, None, None, :]
        mask = visible if mask is None else mask | visible
    heads, weights = scaled_dot_product_attention(q, k, v, mask)
    return merge_heads(heads) @ w_o, weights


@misconception(
    "multi_head_attention",
    "the weights averaged over the heads, (B, T, T)",
    explanation="multi_head_attention returns every head's weights, (B, n_heads, T, T): heads specialise, and their maps are what one inspects. nn.MultiheadAttention averages them by default (average_attn_weights=True); this course's contract does not.",
    hint="Return the weights as scaled_dot_product_attention gives them, one map per head.",
)
def mha_weights_averaged(x, w_q, w_k, w_v, w_o, n_heads, causal=False, key_padding_mask=None):
    q, k, v = _heads(x, w_q, w_k, w_v, n_heads)
    heads, weights = scaled_dot_product_attention(q, k, v, _mask(x, causal, key_padding_mask))
    return merge_heads(heads) @ w_o, weights.mean(axis=1)


@misconception(
    "multi_head_attention",
    "a padding mask replaces the causal mask instead of joining it",
    explanation="With causal=True and a key padding mask, a key may be seen only if both allow it. Setting mask = padding when one is given drops the causal mask: every query of a padded batch reads the future.",
    hint="mask = causal_mask(T) & key_padding_mask[:, None, None, :] when both apply.",
)
def mha_padding_replaces_causal(x, w_q, w_k, w_v, w_o, n_heads, causal=False, key_padding_mask=None):
    q, k, v = _heads(x, w_q, w_k, w_v, n_heads)
    mask = key_padding_mask[:, None, None, :] if key_padding_mask is not None else (causal_mask(x.shape[-2]) if causal else None)
    heads, weights = scaled_dot_product_attention(q, k, v, mask)
    return merge_heads(heads) @ w_o, weights


_X = np.random.default_rng(50).normal(size=(2, 3, 4))
_W = [np.random.default_rng(51 + i).normal(size=(4, 4)) for i in range(4)]
probe("split_heads", "T, n_heads and d_head all different", np.arange(24.0).reshape(1, 3, 8), 2)
probe("split_heads", "four heads of width 2 on a batch", np.arange(48.0).reshape(2, 3, 8), 4)
probe("merge_heads", "n_heads, T and d_head all different", np.arange(24.0).reshape(1, 2, 3, 4))
probe("merge_heads", "four heads of width 2 on a batch", np.arange(48.0).reshape(2, 4, 3, 2))
probe("split_heads", "one sequence, (T, d_model), no batch axis", np.arange(24.0).reshape(3, 8), 2)
probe("merge_heads", "one sequence, (n_heads, T, d_head), no batch axis", np.arange(24.0).reshape(2, 3, 4))
probe("multi_head_attention", "as many sequences as heads, causal and padded: a mask on the wrong axis still fits", np.random.default_rng(52).normal(size=(2, 4, 4)), *_W, 2, causal=True, key_padding_mask=np.array([[True, True, True, False], [True, True, False, False]]))
probe("multi_head_attention", "two heads, causal, with a padded sequence", _X, *_W, 2, causal=True, key_padding_mask=np.array([[True, True, False], [True, True, True]]))
probe("multi_head_attention", "two heads, no mask", _X, *_W, 2)
probe("multi_head_attention", "one head, causal: the scale of d_head and d_model agree", _X, *_W, 1, causal=True)


@misconception(
    "multi_head_attention",
    "key_padding_mask is never applied",
    explanation="The padding mask (B, T), True at real tokens, hides the padded keys from every query of every head. Ignored, the queries read the padding as if it were text.",
    hint="key_padding_mask[:, None, None, :] (B, 1, 1, T), combined with the causal mask by &.",
)
def mha_ignores_key_padding(x, w_q, w_k, w_v, w_o, n_heads, causal=False, key_padding_mask=None):
    q, k, v = _heads(x, w_q, w_k, w_v, n_heads)
    heads, weights = scaled_dot_product_attention(q, k, v, _mask(x, causal, None))
    return merge_heads(heads) @ w_o, weights


@misconception(
    "multi_head_attention",
    "one of Q, K, V is made with another's weights (a copy-paste slip among w_q, w_k, w_v)",
    explanation="Multi-head attention projects x three ways before splitting the heads: Q = x W_Q, K = x W_K, V = x W_V, all (d_model, d_model). Using one matrix twice runs (they have the same shape) and gives other numbers.",
    hint="Check each projection: x @ w_q, x @ w_k, x @ w_v.",
)
def mha_projection_slip(x, w_q, w_k, w_v, w_o, n_heads, causal=False, key_padding_mask=None):
    answers = []
    for q_w, k_w, v_w in ((w_k, w_k, w_v), (w_q, w_q, w_v), (w_q, w_k, w_k), (w_v, w_k, w_v), (w_q, w_v, w_v), (w_q, w_k, w_q)):
        q, k, v = _heads(x, q_w, k_w, v_w, n_heads)
        heads, weights = scaled_dot_product_attention(q, k, v, _mask(x, causal, key_padding_mask))
        answers.append((merge_heads(heads) @ w_o, weights))
    return Alternatives(answers)


# ---------------------------------------------------------------- axes numbered for one rank


@misconception(
    "split_heads",
    "the head axis moved with swapaxes(1, 2): right with a batch axis only",
    explanation="After the reshape to (B, T, n_heads, d_head), axes 1 and 2 are the tokens and the heads. Without a batch axis the reshape gives (T, n_heads, d_head), and swapaxes(1, 2) swaps the heads with the features instead: (T, d_head, n_heads). Counting the axes from the end works for any number of leading axes.",
    hint="np.swapaxes(x, -3, -2) after the reshape.",
)
def split_heads_swapaxes_one_two(x, n_heads):
    *lead, t, d_model = x.shape
    return np.swapaxes(x.reshape(*lead, t, n_heads, d_model // n_heads), 1, 2)


@misconception(
    "merge_heads",
    "the head axis moved back with swapaxes(1, 2): right with a batch axis only",
    explanation="On (B, n_heads, T, d_head), axes 1 and 2 are the heads and the tokens. Without a batch axis, (n_heads, T, d_head), swapaxes(1, 2) swaps the tokens with the features instead, and the reshape to (T, n_heads·d_head) then scrambles the features. Counting the axes from the end works for any number of leading axes.",
    hint="np.swapaxes(x, -3, -2), then reshape to (..., T, n_heads * d_head).",
)
def merge_heads_swapaxes_one_two(x):
    *lead, n_heads, t, d_head = x.shape
    return np.swapaxes(x, 1, 2).reshape(*lead, t, n_heads * d_head)


@misconception(
    "multi_head_attention",
    "the causal mask is inverted (True on the future)",
    explanation="In this course True means 'may attend': the causal mask is True on and below the diagonal, so query i sees keys 0..i. A mask that is True above the diagonal (np.triu, or ~np.tril) lets each query see only the future, and the last query sees nothing.",
    hint="np.tril(np.ones((T, T), dtype=bool)), combined with the padding mask by &.",
)
def mha_causal_inverted(x, w_q, w_k, w_v, w_o, n_heads, causal=False, key_padding_mask=None):
    q, k, v = _heads(x, w_q, w_k, w_v, n_heads)
    answers = []
    for future in (~causal_mask(x.shape[-2]), np.triu(np.ones((x.shape[-2],) * 2, dtype=bool))):
        mask = future if causal else None
        if key_padding_mask is not None:
            visible = key_padding_mask[:, None, None, :]
            mask = visible if mask is None else mask & visible
        heads, weights = scaled_dot_product_attention(q, k, v, mask)
        answers.append((merge_heads(heads) @ w_o, weights))
    return Alternatives(answers)
