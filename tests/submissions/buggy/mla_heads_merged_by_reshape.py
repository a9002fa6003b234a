"""Merges the heads with a reshape of (B, h, T, d_head) straight to (B, T, h * d_head).

file: latent_attention.py
breaks: mla_attention
"""

import numpy as np


def mla_attention(x, w_dkv, w_uk, w_uv, w_q, n_heads, causal=True):
    latent = x @ w_dkv
    q = split_heads(x @ w_q, n_heads)
    k = split_heads(latent @ w_uk, n_heads)
    v = split_heads(latent @ w_uv, n_heads)
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if causal:
        scores = np.where(np.tril(np.ones(scores.shape[-2:], dtype=bool)), scores, -np.inf)
    heads = softmax(scores, axis=-1) @ v
    return heads.reshape(x.shape[0], x.shape[1], -1), latent
