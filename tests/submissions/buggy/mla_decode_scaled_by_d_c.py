"""Scales the absorbed scores by the square root of the latent's width d_c.

file: latent_attention.py
breaks: mla_decode_step
"""

import numpy as np


def mla_decode_step(x_t, latent_cache, w_dkv, w_uk, w_uv, w_q, n_heads):
    latent = x_t @ w_dkv
    cache = latent if latent_cache is None else np.concatenate([latent_cache, latent], axis=1)
    d_c = w_dkv.shape[1]
    d_head = w_q.shape[1] // n_heads
    q = split_heads(x_t @ w_q, n_heads)
    w_uk_heads = w_uk.reshape(d_c, n_heads, d_head).transpose(1, 0, 2)
    w_uv_heads = w_uv.reshape(d_c, n_heads, d_head).transpose(1, 0, 2)
    absorbed = q @ w_uk_heads.transpose(0, 2, 1)
    scores = absorbed @ cache[:, None].transpose(0, 1, 3, 2) / np.sqrt(d_c)
    mixed = softmax(scores) @ cache[:, None]
    return merge_heads(mixed @ w_uv_heads), cache
