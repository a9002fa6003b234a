"""Absorbs the whole W_UK at once: one d_c-wide query shared by every head.

file: latent_attention.py
breaks: mla_decode_step
"""

import numpy as np


def mla_decode_step(x_t, latent_cache, w_dkv, w_uk, w_uv, w_q, n_heads):
    latent = x_t @ w_dkv
    cache = latent if latent_cache is None else np.concatenate([latent_cache, latent], axis=1)
    d_c = w_dkv.shape[1]
    d_head = w_q.shape[1] // n_heads
    absorbed = (x_t @ w_q) @ w_uk.T  # (B, 1, d_c)
    weights = softmax(absorbed @ cache.transpose(0, 2, 1) / np.sqrt(d_head))  # (B, 1, t+1)
    mixed = weights @ cache  # (B, 1, d_c)
    heads = [mixed @ w_uv[:, h * d_head : (h + 1) * d_head] for h in range(n_heads)]
    return np.concatenate(heads, axis=-1), cache
