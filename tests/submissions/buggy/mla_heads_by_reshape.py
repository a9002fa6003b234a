"""Splits heads with a reshape straight to (B, h, T, d_head).

file: latent_attention.py
breaks: mla_attention
"""

import numpy as np


def mla_attention(x, w_dkv, w_uk, w_uv, w_q, n_heads, causal=True):
    batch, t, _ = x.shape
    d_head = w_q.shape[1] // n_heads
    latent = x @ w_dkv
    q = (x @ w_q).reshape(batch, n_heads, t, d_head)
    k = (latent @ w_uk).reshape(batch, n_heads, t, d_head)
    v = (latent @ w_uv).reshape(batch, n_heads, t, d_head)
    scores = q @ k.swapaxes(-1, -2) / np.sqrt(d_head)
    if causal:
        scores = np.where(np.tril(np.ones((t, t), dtype=bool)), scores, -np.inf)
    return merge_heads(softmax(scores) @ v), latent
