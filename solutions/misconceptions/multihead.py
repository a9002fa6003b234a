"""Known wrong versions of split_heads, merge_heads and multi_head_attention."""

import numpy as np
from attention import scaled_dot_product_attention
from masks import causal_mask
from multihead import merge_heads, split_heads
from softmax import softmax

from attnlab.misconceptions import misconception


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
    return merge_heads(weights @ v) @ w_o, weights
