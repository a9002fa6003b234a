"""np.repeat along axis 2, the tokens, not axis 1, the heads.

file: efficient.py
breaks: grouped_query_attention
"""

import numpy as np


def grouped_query_attention(q, k, v, causal=False):
    group = q.shape[1] // k.shape[1]
    k = np.repeat(k, group, axis=2)
    v = np.repeat(v, group, axis=2)
    mask = causal_mask(q.shape[-2]) if causal else None
    return scaled_dot_product_attention(q, k, v, mask)
