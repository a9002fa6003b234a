"""key_padding_mask is accepted and never applied.

file: efficient.py
breaks: grouped_query_attention
"""

import numpy as np


def grouped_query_attention(q, k, v, causal=False, key_padding_mask=None):
    group = q.shape[1] // k.shape[1]
    k = np.repeat(k, group, axis=1)
    v = np.repeat(v, group, axis=1)
    return scaled_dot_product_attention(q, k, v, causal_mask(q.shape[2]) if causal else None)
