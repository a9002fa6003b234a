"""Cuts W_UK and W_UV into heads with reshape(n_heads, d_c, d_head), not by column blocks.

file: latent_attention.py
breaks: mla_decode_step
"""

import numpy as np


def mla_decode_step(x_t, latent_cache, w_dkv, w_uk, w_uv, w_q, n_heads):
    c = x_t @ w_dkv
    if latent_cache is not None:
        c_all = np.concatenate([latent_cache, c], axis=1)
    else:
        c_all = c
    d_c = w_dkv.shape[1]
    d_head = w_q.shape[1] // n_heads
    uk = w_uk.reshape(n_heads, d_c, d_head)
    uv = w_uv.reshape(n_heads, d_c, d_head)
    q = split_heads(x_t @ w_q, n_heads)  # (B, h, 1, d_head)
    q_abs = np.einsum("bhqd,hcd->bhqc", q, uk)
    s = np.einsum("bhqc,btc->bhqt", q_abs, c_all) / np.sqrt(d_head)
    mixed = np.einsum("bhqt,btc->bhqc", softmax(s, axis=-1), c_all)
    return merge_heads(np.einsum("bhqc,hcd->bhqd", mixed, uv)), c_all
