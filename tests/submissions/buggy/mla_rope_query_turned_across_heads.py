"""Turns the RoPE queries x @ w_qr as one n_heads * d_rope wide vector, then splits them into heads.

file: latent_attention.py
breaks: mla_rope_attention
"""

import numpy as np


def mla_rope_attention(x, w_dkv, w_uk, w_uv, w_q, w_qr, w_kr, n_heads, causal=True):
    t = x.shape[1]
    positions = np.arange(t)
    latent = x @ w_dkv
    rope_keys = rope(x @ w_kr, positions)
    q_rope = split_heads(rope(x @ w_qr, positions), n_heads)
    q = split_heads(x @ w_q, n_heads)
    k = split_heads(latent @ w_uk, n_heads)
    v = split_heads(latent @ w_uv, n_heads)
    scores = q @ k.swapaxes(-1, -2) + q_rope @ rope_keys[:, None].swapaxes(-1, -2)
    scores /= np.sqrt(q.shape[-1] + rope_keys.shape[-1])
    if causal:
        scores = np.where(np.tril(np.ones((t, t), dtype=bool)), scores, -np.inf)
    return merge_heads(softmax(scores) @ v), (latent, rope_keys)
