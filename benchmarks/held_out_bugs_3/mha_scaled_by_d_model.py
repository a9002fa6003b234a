"""Computes its own scores scaled by 1/√d_model instead of 1/√d_head.

file: multihead.py
breaks: multi_head_attention
"""

import numpy as np

def multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads, causal=False, key_padding_mask=None):
    B, T, d_model = x.shape
    q = split_heads(x @ w_q, n_heads)
    k = split_heads(x @ w_k, n_heads)
    v = split_heads(x @ w_v, n_heads)
    s = q @ np.swapaxes(k, -1, -2) / np.sqrt(d_model)
    mask = np.ones((B, 1, T, T), dtype=bool)
    if causal:
        mask = mask & causal_mask(T)
    if key_padding_mask is not None:
        mask = mask & key_padding_mask[:, None, None, :]
    s = np.where(mask, s, -np.inf)
    m = np.max(s, axis=-1, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    e = np.exp(s - m)
    tot = e.sum(axis=-1, keepdims=True)
    w = np.divide(e, tot, out=np.zeros_like(e), where=tot > 0)
    return merge_heads(w @ v) @ w_o, w
