# Exercise stub of multihead.py, generated from the course's reference solution: fill in the parts marked YOUR CODE HERE.
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
    # YOUR CODE HERE
    # Hint: reshape to (..., T, n_heads, d_head), then swap the T and head axes; a reshape alone mixes tokens into heads.
    raise NotImplementedError("split_heads is not implemented yet")


def merge_heads(x):
    """Inverse of ``split_heads``: concatenate the heads' features again.

    Shapes: x (..., n_heads, T, d_head) -> (..., T, n_heads * d_head).
    """
    # YOUR CODE HERE
    raise NotImplementedError("merge_heads is not implemented yet")


def multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads, causal=False, key_padding_mask=None):
    """Multi-head self-attention.

    Shapes: x (B, T, d_model), w_q, w_k, w_v, w_o (d_model, d_model),
    key_padding_mask (B, T) bool, True at real tokens
    -> (out (B, T, d_model), weights (B, n_heads, T, T)).
    out = merge_heads(per-head attention) @ w_o; scores are scaled by 1/√d_head. A query that may
    see no key (left padding under ``causal=True``) gets zero weights in every head and a zero output.
    """
    # YOUR CODE HERE
    # Hint: project first, then split; a (B, T) padding mask must become (B, 1, 1, T) to hide keys in every head; scaled_dot_product_attention already gives a query with no visible key a row of zeros.
    raise NotImplementedError("multi_head_attention is not implemented yet")
