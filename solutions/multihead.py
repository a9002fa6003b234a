"""Exercise 6: multi-head attention.

h heads attend in parallel, each on its own d_model / h slice of the
projected features; heads are just another batch axis. Their outputs are
concatenated back to d_model features and mixed by w_o.
"""

import numpy as np

from attention import scaled_dot_product_attention
from masks import causal_mask


def split_heads(x, n_heads):
    """Split the feature axis into heads and move heads before tokens.

    Shapes: x (..., T, d_model) -> (..., n_heads, T, d_model / n_heads).
    Head h takes the contiguous feature columns h*d_head:(h+1)*d_head.
    """
    ### BEGIN SOLUTION
    ### HINT: reshape to (..., T, n_heads, d_head), then swap the T and head axes; a reshape alone mixes tokens into heads.
    *lead, t, d_model = x.shape
    if d_model % n_heads:
        raise ValueError(f"d_model={d_model} is not divisible by n_heads={n_heads}")
    d_head = d_model // n_heads
    return np.swapaxes(x.reshape(*lead, t, n_heads, d_head), -3, -2)  # (..., n_heads, T, d_head)
    ### END SOLUTION


def merge_heads(x):
    """Inverse of ``split_heads``: concatenate the heads' features again.

    Shapes: x (..., n_heads, T, d_head) -> (..., T, n_heads * d_head).
    """
    ### BEGIN SOLUTION
    *lead, n_heads, t, d_head = x.shape
    return np.swapaxes(x, -3, -2).reshape(*lead, t, n_heads * d_head)  # (..., T, d_model)
    ### END SOLUTION


def multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads, causal=False, key_padding_mask=None):
    """Multi-head self-attention.

    Shapes: x (B, T, d_model), w_q, w_k, w_v, w_o (d_model, d_model),
    key_padding_mask (B, T) bool, True at real tokens
    -> (out (B, T, d_model), weights (B, n_heads, T, T)).
    out = merge_heads(per-head attention) @ w_o; scores are scaled by 1/√d_head. A query that may
    see no key (left padding under ``causal=True``) gets zero weights in every head and a zero output.
    """
    ### BEGIN SOLUTION
    ### HINT: project first, then split; a (B, T) padding mask must become (B, 1, 1, T) to hide keys in every head; scaled_dot_product_attention already gives a query with no visible key a row of zeros.
    q = split_heads(x @ w_q, n_heads)  # (B, h, T, d_head)
    k = split_heads(x @ w_k, n_heads)  # (B, h, T, d_head)
    v = split_heads(x @ w_v, n_heads)  # (B, h, T, d_head)
    mask = causal_mask(x.shape[-2]) if causal else None  # (T, T)
    if key_padding_mask is not None:
        keys_visible = key_padding_mask[:, None, None, :]  # (B, 1, 1, T)
        mask = keys_visible if mask is None else mask & keys_visible  # (B, 1, T, T)
    heads, weights = scaled_dot_product_attention(q, k, v, mask)  # (B, h, T, d_head), (B, h, T, T)
    return merge_heads(heads) @ w_o, weights  # (B, T, d_model)
    ### END SOLUTION
