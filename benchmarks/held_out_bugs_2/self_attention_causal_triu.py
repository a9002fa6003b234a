"""Passes np.triu(ones, 1), the cells to hide, as the mask of what may be seen.

file: attention.py
breaks: self_attention
"""

import numpy as np


def self_attention(x, w_q, w_k, w_v, causal=False):
    t = x.shape[-2]
    mask = np.triu(np.ones((t, t), dtype=bool), 1) if causal else None
    return scaled_dot_product_attention(x @ w_q, x @ w_k, x @ w_v, mask)
