"""kv_padding_mask[:, :, None]: the length-1 axis in the wrong place.

file: attention.py
breaks: cross_attention
"""

import numpy as np


def cross_attention(x_q, x_kv, w_q, w_k, w_v, kv_padding_mask=None):
    q, k, v = x_q @ w_q, x_kv @ w_k, x_kv @ w_v
    mask = kv_padding_mask[:, :, None] if kv_padding_mask is not None else None
    return scaled_dot_product_attention(q, k, v, mask)
