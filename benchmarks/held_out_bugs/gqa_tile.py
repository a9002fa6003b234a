"""np.tile of the key/value heads: query head h reads kv head h % h_kv.

file: efficient.py
breaks: grouped_query_attention
"""

import numpy as np


def grouped_query_attention(q, k, v, causal=False):
    group = q.shape[1] // k.shape[1]
    k = np.tile(k, (1, group, 1, 1))
    v = np.tile(v, (1, group, 1, 1))
    mask = causal_mask(q.shape[-2]) if causal else None
    return scaled_dot_product_attention(q, k, v, mask)
