"""np.repeat along axis 2.

file: efficient.py
breaks: grouped_query_attention
"""

import numpy as np


def grouped_query_attention(q, k, v, causal=False):
    n_rep = q.shape[1] // k.shape[1]
    k = np.repeat(k, n_rep, axis=2)
    v = np.repeat(v, n_rep, axis=2)
    mask = causal_mask(q.shape[-2]) if causal else None
    return scaled_dot_product_attention(q, k, v, mask)
