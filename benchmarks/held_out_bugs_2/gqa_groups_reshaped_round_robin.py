"""Groups the query heads with q.reshape(B, group, h_kv, T, d): head h lands on kv head h % h_kv.

file: efficient.py
breaks: grouped_query_attention
"""

import numpy as np


def grouped_query_attention(q, k, v, causal=False, key_padding_mask=None):
    b, h_q, t, d = q.shape
    h_kv = k.shape[1]
    grouped = q.reshape(b, h_q // h_kv, h_kv, t, d)
    mask = causal_mask(t) if causal else None
    if key_padding_mask is not None:
        pad = key_padding_mask[:, None, None, None, :]
        mask = pad if mask is None else mask & pad
    out, weights = scaled_dot_product_attention(grouped, k[:, None], v[:, None], mask)
    return out.reshape(b, h_q, t, -1), weights.reshape(b, h_q, t, t)
