"""Returns the merged heads without multiplying by w_o.

file: multihead.py
breaks: multi_head_attention
"""

import numpy as np

def multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads, causal=False, key_padding_mask=None):
    T = x.shape[1]
    mask = causal_mask(T) if causal else None
    if key_padding_mask is not None:
        pad = key_padding_mask[:, None, None, :]
        mask = pad if mask is None else mask & pad
    heads, weights = scaled_dot_product_attention(
        split_heads(x @ w_q, n_heads), split_heads(x @ w_k, n_heads), split_heads(x @ w_v, n_heads), mask
    )
    return merge_heads(heads), weights
