"""Scales the scores by the latent width √d_c instead of √d_head.

file: latent_attention.py
breaks: mla_attention
"""

import numpy as np

def mla_attention(x, w_dkv, w_uk, w_uv, w_q, n_heads, causal=True):
    latent = x @ w_dkv
    q = split_heads(x @ w_q, n_heads)
    k = split_heads(latent @ w_uk, n_heads)
    v = split_heads(latent @ w_uv, n_heads)
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(latent.shape[-1])
    if causal:
        T = x.shape[1]
        scores = np.where(np.tril(np.ones((T, T), bool)), scores, -np.inf)
    return merge_heads(softmax(scores) @ v), latent
