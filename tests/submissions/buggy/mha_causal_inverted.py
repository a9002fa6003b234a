"""Builds the causal mask with np.triu(k=1): True on the future, where it should be False.

file: multihead.py
breaks: multi_head_attention
"""

import numpy as np


def multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads, causal=False, key_padding_mask=None):
    q = split_heads(x @ w_q, n_heads)
    k = split_heads(x @ w_k, n_heads)
    v = split_heads(x @ w_v, n_heads)
    T = x.shape[-2]
    mask = None
    if causal:
        mask = np.triu(np.ones((T, T)), k=1).astype(bool)
    if key_padding_mask is not None:
        pad = key_padding_mask[:, None, None, :]
        mask = pad if mask is None else (mask & pad)
    out, attn = scaled_dot_product_attention(q, k, v, mask)
    return merge_heads(out) @ w_o, attn
