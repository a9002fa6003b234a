"""Combines the causal and padding masks with +, which for booleans is OR.

file: multihead.py
breaks: multi_head_attention
"""

import numpy as np


def multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads, causal=False, key_padding_mask=None):
    q, k, v = (split_heads(x @ w, n_heads) for w in (w_q, w_k, w_v))
    mask = causal_mask(x.shape[-2]) if causal else None
    if key_padding_mask is not None:
        keys = key_padding_mask[:, None, None, :]
        mask = keys if mask is None else mask + keys
    heads, weights = scaled_dot_product_attention(q, k, v, mask)
    return merge_heads(heads) @ w_o, weights
