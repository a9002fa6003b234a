"""Passes the (B, L_k) padding mask as is: it broadcasts as (1, B, L_k), so row b masks query b.
Shapes only line up when B == L_q (or B == 1), which is exactly when nothing complains.

file: attention.py
breaks: cross_attention
"""


def cross_attention(x_q, x_kv, w_q, w_k, w_v, kv_padding_mask=None):
    return scaled_dot_product_attention(x_q @ w_q, x_kv @ w_k, x_kv @ w_v, kv_padding_mask)
