"""Builds its own causal mask with np.triu (the future).

file: attention.py
breaks: self_attention
"""

import numpy as np


def self_attention(x, w_q, w_k, w_v, causal=False):
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    mask = None
    if causal:
        t = x.shape[-2]
        mask = np.triu(np.ones((t, t), dtype=bool))
    return scaled_dot_product_attention(q, k, v, mask)
