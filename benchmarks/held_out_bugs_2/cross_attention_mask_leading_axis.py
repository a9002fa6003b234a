"""The padding mask given a leading axis, (1, B, L_k), instead of a query axis.

file: attention.py
breaks: cross_attention
"""

import numpy as np


def cross_attention(x_q, x_kv, w_q, w_k, w_v, kv_padding_mask=None):
    mask = None if kv_padding_mask is None else kv_padding_mask[None, :, :]
    return scaled_dot_product_attention(x_q @ w_q, x_kv @ w_k, x_kv @ w_v, mask)
