"""Scales the summed content and RoPE scores by 1/√d_head, the content part's width alone.

file: latent_attention.py
breaks: mla_rope_attention
"""

import numpy as np


def mla_rope_attention(x, w_dkv, w_uk, w_uv, w_q, w_qr, w_kr, n_heads, causal=True):
    t = x.shape[1]
    latent = x @ w_dkv
    k_r = rope(x @ w_kr, np.arange(t))
    q = split_heads(x @ w_q, n_heads)
    q_r = rope(split_heads(x @ w_qr, n_heads), np.arange(t))
    k = split_heads(latent @ w_uk, n_heads)
    v = split_heads(latent @ w_uv, n_heads)
    d_head = q.shape[-1]
    scores = (q @ k.swapaxes(-1, -2) + q_r @ k_r[:, None].swapaxes(-1, -2)) / np.sqrt(d_head)
    if causal:
        scores = np.where(np.tril(np.ones((t, t), dtype=bool)), scores, -np.inf)
    return merge_heads(softmax(scores) @ v), (latent, k_r)
