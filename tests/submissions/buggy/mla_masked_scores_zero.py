"""Applies the causal mask by np.tril on the scores: the future gets a score of 0, not -inf.

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
        t = scores.shape[-1]
        scores = scores * np.tril(np.ones((t, t)))
    return merge_heads(softmax(scores, axis=-1) @ v), latent
