"""Takes the decode step's softmax over axis -2, the one query: every weight is 1, the latents are summed.

file: latent_attention.py
breaks: mla_decode_step
"""

import numpy as np


def mla_decode_step(x_t, latent_cache, w_dkv, w_uk, w_uv, w_q, n_heads):
    c_t = x_t @ w_dkv
    cache = c_t if latent_cache is None else np.concatenate([latent_cache, c_t], axis=1)
    d_c, d_head = w_dkv.shape[1], w_q.shape[1] // n_heads
    w_uk_heads = w_uk.reshape(d_c, n_heads, d_head).transpose(1, 2, 0)  # (h, d_head, d_c)
    w_uv_heads = w_uv.reshape(d_c, n_heads, d_head).transpose(1, 0, 2)  # (h, d_c, d_head)
    q = split_heads(x_t @ w_q, n_heads)  # (B, h, 1, d_head)
    scores = (q @ w_uk_heads) @ cache[:, None].transpose(0, 1, 3, 2) / np.sqrt(d_head)
    weights = softmax(scores, axis=-2)
    return merge_heads((weights @ cache[:, None]) @ w_uv_heads), cache
