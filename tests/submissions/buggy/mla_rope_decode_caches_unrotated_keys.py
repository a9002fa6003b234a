"""Caches x @ w_kr unrotated and turns every cached RoPE key at 0..t at each step.

file: latent_attention.py
breaks: mla_rope_decode_step
"""

import numpy as np


def mla_rope_decode_step(x_t, cache, w_dkv, w_uk, w_uv, w_q, w_qr, w_kr, n_heads):
    t = 0 if cache is None else cache[0].shape[1]
    latent = x_t @ w_dkv
    raw_keys = x_t @ w_kr
    if cache is not None:
        latent = np.concatenate([cache[0], latent], axis=1)
        raw_keys = np.concatenate([cache[1], raw_keys], axis=1)
    keys = rope(raw_keys, np.arange(t + 1))
    d_c = w_dkv.shape[1]
    d_head = w_q.shape[1] // n_heads
    w_uk_h = w_uk.reshape(d_c, n_heads, d_head).transpose(1, 0, 2)
    w_uv_h = w_uv.reshape(d_c, n_heads, d_head).transpose(1, 0, 2)
    q = split_heads(x_t @ w_q, n_heads) @ w_uk_h.transpose(0, 2, 1)
    q_r = rope(split_heads(x_t @ w_qr, n_heads), np.array([t]))
    scores = q @ latent[:, None].transpose(0, 1, 3, 2) + q_r @ keys[:, None].transpose(0, 1, 3, 2)
    weights = softmax(scores / np.sqrt(d_head + w_kr.shape[1]))
    return merge_heads((weights @ latent[:, None]) @ w_uv_h), (latent, raw_keys)
