"""Reshapes w_uk and w_uv to (n_heads, d_c, d_head): the rows of the matrix are split into heads, not its columns.

file: latent_attention.py
breaks: mla_decode_step
"""

import numpy as np

def mla_decode_step(x_t, latent_cache, w_dkv, w_uk, w_uv, w_q, n_heads):
    latent = x_t @ w_dkv
    cache = latent if latent_cache is None else np.concatenate([latent_cache, latent], axis=-2)
    d_c = w_dkv.shape[-1]
    d_head = w_q.shape[-1] // n_heads
    uk = w_uk.reshape(n_heads, d_c, d_head)
    uv = w_uv.reshape(n_heads, d_c, d_head)
    q = split_heads(x_t @ w_q, n_heads)
    scores = (q @ np.swapaxes(uk, -1, -2)) @ np.swapaxes(cache, -1, -2)[:, None] / np.sqrt(d_head)
    mixed = softmax(scores, axis=-1) @ cache[:, None]
    return merge_heads(mixed @ uv), cache
