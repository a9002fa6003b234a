"""The padding mask as (B, 1, T).

file: multihead.py
breaks: multi_head_attention
"""

import numpy as np


def multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads, causal=False, key_padding_mask=None):
    q = split_heads(x @ w_q, n_heads)
    k = split_heads(x @ w_k, n_heads)
    v = split_heads(x @ w_v, n_heads)
    mask = causal_mask(x.shape[1]) if causal else None
    if key_padding_mask is not None:
        pad = key_padding_mask[:, np.newaxis, :]
        mask = pad if mask is None else mask & pad
    out, weights = scaled_dot_product_attention(q, k, v, mask)
    return merge_heads(out) @ w_o, weights
