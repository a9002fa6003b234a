"""Rebuilds every head's keys and values from the whole cache at each step.

file: latent_attention.py
breaks: mla_decode_step
"""

import numpy as np


def mla_decode_step(x_t, latent_cache, w_dkv, w_uk, w_uv, w_q, n_heads):
    latent = x_t @ w_dkv
    cache = latent if latent_cache is None else np.concatenate([latent_cache, latent], axis=1)
    batch, t, _ = cache.shape
    d_head = w_q.shape[1] // n_heads
    q = (x_t @ w_q).reshape(batch, 1, n_heads, d_head).transpose(0, 2, 1, 3)
    k = (cache @ w_uk).reshape(batch, t, n_heads, d_head).transpose(0, 2, 1, 3)
    v = (cache @ w_uv).reshape(batch, t, n_heads, d_head).transpose(0, 2, 1, 3)
    scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(d_head)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    return (weights @ v).transpose(0, 2, 1, 3).reshape(batch, 1, n_heads * d_head), cache
