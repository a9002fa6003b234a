"""The causal mask sized by the width, not the length.

file: attention.py
breaks: self_attention
"""

import numpy as np


def self_attention(x, w_q, w_k, w_v, causal=False):
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    if causal:
        return scaled_dot_product_attention(q, k, v, causal_mask(x.shape[-1]))
    return scaled_dot_product_attention(q, k, v)
