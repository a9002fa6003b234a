"""Rotates every query and key by RoPE, the content part as well as the decoupled one.

file: latent_attention.py
breaks: mla_rope_attention
"""

import numpy as np


def mla_rope_attention(x, w_dkv, w_uk, w_uv, w_q, w_qr, w_kr, n_heads, causal=True):
    pos = np.arange(x.shape[1])
    latent = x @ w_dkv
    k_rope = rope(x @ w_kr, pos)
    q = rope(split_heads(x @ w_q, n_heads), pos)
    k = rope(split_heads(latent @ w_uk, n_heads), pos)
    v = split_heads(latent @ w_uv, n_heads)
    q_rope = rope(split_heads(x @ w_qr, n_heads), pos)
    scores = q @ k.swapaxes(-1, -2) + q_rope @ k_rope[:, None].swapaxes(-1, -2)
    scores = scores / np.sqrt(q.shape[-1] + k_rope.shape[-1])
    if causal:
        t = x.shape[1]
        scores = np.where(np.tril(np.ones((t, t), dtype=bool)), scores, -np.inf)
    return merge_heads(softmax(scores) @ v), (latent, k_rope)
