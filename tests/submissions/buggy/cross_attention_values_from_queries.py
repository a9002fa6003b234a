"""Takes the values from the decoder side (x_q) instead of the encoder (x_kv).

file: attention.py
breaks: cross_attention
"""


def cross_attention(x_q, x_kv, w_q, w_k, w_v, kv_padding_mask=None):
    q = x_q @ w_q
    k = x_kv @ w_k
    v = x_q @ w_v
    mask = None if kv_padding_mask is None else kv_padding_mask[:, None, :]
    return scaled_dot_product_attention(q, k, v, mask)
