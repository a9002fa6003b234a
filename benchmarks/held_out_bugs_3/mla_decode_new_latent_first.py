"""Puts the new token's latent before the cached ones in the returned cache.

file: latent_attention.py
breaks: mla_decode_step
"""

import numpy as np

def mla_decode_step(x_t, latent_cache, w_dkv, w_uk, w_uv, w_q, n_heads):
    latent = x_t @ w_dkv
    cache = latent if latent_cache is None else np.concatenate([latent, latent_cache], axis=1)
    d_c = w_dkv.shape[-1]
    d_head = w_q.shape[-1] // n_heads
    uk = np.swapaxes(w_uk.reshape(d_c, n_heads, d_head), 0, 1)
    uv = np.swapaxes(w_uv.reshape(d_c, n_heads, d_head), 0, 1)
    q = split_heads(x_t @ w_q, n_heads)
    scores = (q @ np.swapaxes(uk, -1, -2)) @ np.swapaxes(cache, -1, -2)[:, None] / np.sqrt(d_head)
    mixed = softmax(scores, axis=-1) @ cache[:, None]
    return merge_heads(mixed @ uv), cache
