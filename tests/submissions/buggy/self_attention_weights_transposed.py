"""W x as in the papers: x @ w.T.

file: attention.py
breaks: self_attention
"""

import numpy as np


def self_attention(x, w_q, w_k, w_v, causal=False):
    q = x @ w_q.T
    k = x @ w_k.T
    v = x @ w_v.T
    mask = causal_mask(x.shape[-2]) if causal else None
    return scaled_dot_product_attention(q, k, v, mask)
