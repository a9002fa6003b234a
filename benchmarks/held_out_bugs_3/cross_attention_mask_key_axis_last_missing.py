"""Gives the padding mask a trailing axis, (B, L_k, 1), so it hides queries instead of keys.

file: attention.py
breaks: cross_attention
"""

import numpy as np

def cross_attention(x_q, x_kv, w_q, w_k, w_v, kv_padding_mask=None):
    q = x_q @ w_q
    k = x_kv @ w_k
    v = x_kv @ w_v
    mask = None if kv_padding_mask is None else kv_padding_mask[:, :, None]
    return scaled_dot_product_attention(q, k, v, mask)
