"""Rebuilds every head's keys and values from the whole cache of latents at each step: right values, the memory MLA saves spent.

file: latent_attention.py
breaks: mla_rope_decode_step
"""

import numpy as np


def mla_rope_decode_step(x_t, cache, w_dkv, w_uk, w_uv, w_q, w_qr, w_kr, n_heads):
    t = 0 if cache is None else cache[0].shape[1]
    latent = x_t @ w_dkv
    k_r = rope(x_t @ w_kr, np.array([t]))
    if cache is not None:
        latent = np.concatenate([cache[0], latent], axis=1)
        k_r = np.concatenate([cache[1], k_r], axis=1)
    batch, n = latent.shape[:2]
    d_head, d_rope = w_q.shape[1] // n_heads, w_kr.shape[1]
    q = (x_t @ w_q).reshape(batch, 1, n_heads, d_head).transpose(0, 2, 1, 3)
    k = (latent @ w_uk).reshape(batch, n, n_heads, d_head).transpose(0, 2, 1, 3)
    v = (latent @ w_uv).reshape(batch, n, n_heads, d_head).transpose(0, 2, 1, 3)
    q_r = rope((x_t @ w_qr).reshape(batch, 1, n_heads, d_rope).transpose(0, 2, 1, 3), np.array([t]))
    scores = (q @ k.transpose(0, 1, 3, 2) + q_r @ k_r[:, None].transpose(0, 1, 3, 2)) / np.sqrt(d_head + d_rope)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    return (weights @ v).transpose(0, 2, 1, 3).reshape(batch, 1, n_heads * d_head), (latent, k_r)
