"""Turns the (B, T) padding mask into (B, 1, T), which lines the batch up with the heads.

file: efficient.py
breaks: grouped_query_attention
"""

import numpy as np

def grouped_query_attention(q, k, v, causal=False, key_padding_mask=None):
    group = q.shape[1] // k.shape[1]
    k = np.repeat(k, group, axis=1)
    v = np.repeat(v, group, axis=1)
    T = q.shape[-2]
    mask = causal_mask(T) if causal else None
    if key_padding_mask is not None:
        pad = key_padding_mask[:, None, :]
        mask = pad if mask is None else mask & pad
    return scaled_dot_product_attention(q, k, v, mask)
