"""Reads the padding mask as True = padding and negates it.

file: attention.py
breaks: cross_attention
"""


def cross_attention(x_q, x_kv, w_q, w_k, w_v, kv_padding_mask=None):
    mask = None
    if kv_padding_mask is not None:
        mask = ~kv_padding_mask[:, None, :]
    return scaled_dot_product_attention(x_q @ w_q, x_kv @ w_k, x_kv @ w_v, mask)
