"""causal_mask(x.shape[-1]): the width for the length.

file: attention.py
breaks: self_attention
"""

import numpy as np


def self_attention(x, w_q, w_k, w_v, causal=False):
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    mask = causal_mask(x.shape[-1]) if causal else None
    return scaled_dot_product_attention(q, k, v, mask)
