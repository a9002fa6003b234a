"""Divides the absorbed scores by √d_c, the latent width, instead of √d_head.

file: latent_attention.py
breaks: mla_decode_step
"""

import numpy as np

def mla_decode_step(x_t, latent_cache, w_dkv, w_uk, w_uv, w_q, n_heads):
    c = x_t @ w_dkv
    cache = c if latent_cache is None else np.concatenate([latent_cache, c], axis=1)
    d_c = w_dkv.shape[1]
    d_head = w_q.shape[1] // n_heads
    uk = w_uk.reshape(d_c, n_heads, d_head).transpose(1, 0, 2)
    uv = w_uv.reshape(d_c, n_heads, d_head).transpose(1, 0, 2)
    q = split_heads(x_t @ w_q, n_heads)
    qa = q @ uk.transpose(0, 2, 1)
    s = qa @ cache[:, None].transpose(0, 1, 3, 2) / np.sqrt(d_c)
    mixed = softmax(s, axis=-1) @ cache[:, None]
    return merge_heads(mixed @ uv), cache
