"""Merges the heads with a plain reshape of (B, h, T, d_head), which mixes tokens and heads.

file: latent_attention.py
breaks: mla_attention
"""

import numpy as np

def mla_attention(x, w_dkv, w_uk, w_uv, w_q, n_heads, causal=True):
    B, T, _ = x.shape
    latent = x @ w_dkv
    q = split_heads(x @ w_q, n_heads)
    k = split_heads(latent @ w_uk, n_heads)
    v = split_heads(latent @ w_uv, n_heads)
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if causal:
        scores = np.where(np.tril(np.ones((T, T), dtype=bool)), scores, -np.inf)
    out = softmax(scores, axis=-1) @ v
    return out.reshape(B, T, -1), latent
