"""Appends the new token's latent in front of the cached ones.

file: latent_attention.py
breaks: mla_decode_step
"""

import numpy as np


def mla_decode_step(x_t, latent_cache, w_dkv, w_uk, w_uv, w_q, n_heads):
    new = x_t @ w_dkv
    cache = new if latent_cache is None else np.concatenate((new, latent_cache), axis=-2)
    d_c, d_head = w_dkv.shape[-1], w_q.shape[-1] // n_heads
    up_k = np.swapaxes(w_uk.reshape(d_c, n_heads, d_head), 0, 1)
    up_v = np.swapaxes(w_uv.reshape(d_c, n_heads, d_head), 0, 1)
    q = split_heads(x_t @ w_q, n_heads)
    scores = (q @ np.swapaxes(up_k, -1, -2)) @ np.swapaxes(cache, -1, -2)[:, None] / np.sqrt(d_head)
    return merge_heads((softmax(scores, axis=-1) @ cache[:, None]) @ up_v), cache
