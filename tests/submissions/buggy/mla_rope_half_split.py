"""Turns the RoPE queries and keys with rope_half_split (the Llama layout) instead of rope.

file: latent_attention.py
breaks: mla_rope_attention
"""

import numpy as np
from positions import rope_half_split


def mla_rope_attention(x, w_dkv, w_uk, w_uv, w_q, w_qr, w_kr, n_heads, causal=True):
    t = x.shape[1]
    positions = np.arange(t)
    latent = x @ w_dkv
    rope_keys = rope_half_split(x @ w_kr, positions)
    q = split_heads(x @ w_q, n_heads)
    q_rope = rope_half_split(split_heads(x @ w_qr, n_heads), positions)
    k = split_heads(latent @ w_uk, n_heads)
    v = split_heads(latent @ w_uv, n_heads)
    scores = q @ k.swapaxes(-1, -2) + q_rope @ rope_keys[:, None].swapaxes(-1, -2)
    scores /= np.sqrt(q.shape[-1] + rope_keys.shape[-1])
    if causal:
        scores = np.where(np.tril(np.ones((t, t), dtype=bool)), scores, -np.inf)
    return merge_heads(softmax(scores) @ v), (latent, rope_keys)
