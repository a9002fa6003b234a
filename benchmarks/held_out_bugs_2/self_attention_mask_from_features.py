"""The causal mask is sized by x.shape[-1], the model width.

file: attention.py
breaks: self_attention
"""

import numpy as np


def self_attention(x, w_q, w_k, w_v, causal=False):
    n = x.shape[-1]
    mask = np.tril(np.ones((n, n), dtype=bool)) if causal else None
    return scaled_dot_product_attention(x @ w_q, x @ w_k, x @ w_v, mask)
