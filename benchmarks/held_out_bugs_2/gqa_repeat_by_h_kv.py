"""np.repeat(k, h_kv, axis=1): repeats each kv head h_kv times instead of group times.

file: efficient.py
breaks: grouped_query_attention
"""

import numpy as np


def grouped_query_attention(q, k, v, causal=False, key_padding_mask=None):
    h_kv = k.shape[1]
    k, v = np.repeat(k, h_kv, axis=1), np.repeat(v, h_kv, axis=1)
    mask = causal_mask(q.shape[-2]) if causal else None
    if key_padding_mask is not None:
        pad = key_padding_mask[:, None, None, :]
        mask = pad if mask is None else mask & pad
    return scaled_dot_product_attention(q, k, v, mask)
