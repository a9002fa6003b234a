"""Never builds the causal mask.

file: efficient.py
breaks: grouped_query_attention
"""

import numpy as np


def grouped_query_attention(q, k, v, causal=False):
    group = q.shape[1] // k.shape[1]
    return scaled_dot_product_attention(q, np.repeat(k, group, axis=1), np.repeat(v, group, axis=1))
