"""A copy-paste slip: the values are projected with w_k.

file: attention.py
breaks: self_attention
"""

import numpy as np

def self_attention(x, w_q, w_k, w_v, causal=False):
    q = x @ w_q
    k = x @ w_k
    v = x @ w_k
    return scaled_dot_product_attention(q, k, v, causal_mask(x.shape[-2]) if causal else None)
