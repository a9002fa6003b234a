"""Keys from the encoder, but the values from the decoder's x_q.

file: attention.py
breaks: cross_attention
"""

import numpy as np


def cross_attention(x_q, x_kv, w_q, w_k, w_v, kv_padding_mask=None):
    q, k, v = x_q @ w_q, x_kv @ w_k, x_q @ w_v
    mask = None if kv_padding_mask is None else kv_padding_mask[:, None, :]
    return scaled_dot_product_attention(q, k, v, mask)
