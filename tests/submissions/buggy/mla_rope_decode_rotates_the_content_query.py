"""Turns the content query by RoPE at position t before absorbing W_UK into it.

file: latent_attention.py
breaks: mla_rope_decode_step
"""

import numpy as np


def mla_rope_decode_step(x_t, cache, w_dkv, w_uk, w_uv, w_q, w_qr, w_kr, n_heads):
    t = 0 if cache is None else cache[0].shape[1]
    pos = np.array([t])
    latent = x_t @ w_dkv
    k_r = rope(x_t @ w_kr, pos)
    if cache is not None:
        latent = np.concatenate([cache[0], latent], axis=1)
        k_r = np.concatenate([cache[1], k_r], axis=1)
    d_c = w_dkv.shape[1]
    d_head = w_q.shape[1] // n_heads
    w_uk_h = w_uk.reshape(d_c, n_heads, d_head).transpose(1, 0, 2)
    w_uv_h = w_uv.reshape(d_c, n_heads, d_head).transpose(1, 0, 2)
    q = rope(split_heads(x_t @ w_q, n_heads), pos) @ w_uk_h.transpose(0, 2, 1)
    q_r = rope(split_heads(x_t @ w_qr, n_heads), pos)
    scores = q @ latent[:, None].transpose(0, 1, 3, 2) + q_r @ k_r[:, None].transpose(0, 1, 3, 2)
    weights = softmax(scores / np.sqrt(d_head + w_kr.shape[1]))
    return merge_heads((weights @ latent[:, None]) @ w_uv_h), (latent, k_r)
