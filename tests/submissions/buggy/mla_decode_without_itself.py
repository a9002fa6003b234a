"""Attends over the cache before appending the new token's latent.

file: latent_attention.py
breaks: mla_decode_step
"""

import numpy as np


def mla_decode_step(x_t, latent_cache, w_dkv, w_uk, w_uv, w_q, n_heads):
    latent = x_t @ w_dkv
    seen = latent if latent_cache is None else latent_cache
    d_c = w_dkv.shape[1]
    d_head = w_q.shape[1] // n_heads
    q = split_heads(x_t @ w_q, n_heads)
    w_uk_heads = w_uk.reshape(d_c, n_heads, d_head).transpose(1, 0, 2)
    w_uv_heads = w_uv.reshape(d_c, n_heads, d_head).transpose(1, 0, 2)
    scores = (q @ w_uk_heads.transpose(0, 2, 1)) @ seen[:, None].transpose(0, 1, 3, 2) / np.sqrt(d_head)
    out = merge_heads((softmax(scores) @ seen[:, None]) @ w_uv_heads)
    cache = latent if latent_cache is None else np.concatenate([latent_cache, latent], axis=1)
    return out, cache
