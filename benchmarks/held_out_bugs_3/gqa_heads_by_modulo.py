"""Gives query head h the key/value head h % h_kv instead of h // group.

file: efficient.py
breaks: grouped_query_attention
"""

import numpy as np

def grouped_query_attention(q, k, v, causal=False, key_padding_mask=None):
    h_q, h_kv, T = q.shape[1], k.shape[1], q.shape[2]
    idx = np.arange(h_q) % h_kv
    k = k[:, idx]
    v = v[:, idx]
    mask = np.ones((T, T), dtype=bool)
    if causal:
        mask = causal_mask(T)
    if key_padding_mask is not None:
        mask = mask & key_padding_mask[:, None, None, :]
    return scaled_dot_product_attention(q, k, v, mask)
