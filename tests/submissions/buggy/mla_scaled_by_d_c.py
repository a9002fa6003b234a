"""Scales the per-head scores by the square root of the latent's width d_c.

file: latent_attention.py
breaks: mla_attention
"""

import numpy as np


def mla_attention(x, w_dkv, w_uk, w_uv, w_q, n_heads, causal=True):
    latent = x @ w_dkv
    d_c = latent.shape[-1]
    q, k, v = (split_heads(a @ w, n_heads) for a, w in ((x, w_q), (latent, w_uk), (latent, w_uv)))
    scores = np.einsum("bhid,bhjd->bhij", q, k) / np.sqrt(d_c)
    if causal:
        n = x.shape[1]
        scores = np.where(np.arange(n)[None, :] <= np.arange(n)[:, None], scores, -np.inf)
    return merge_heads(softmax(scores, axis=-1) @ v), latent
