"""Never masks: every token attends to every token, causal or not.

file: latent_attention.py
breaks: mla_attention
"""

import numpy as np


def mla_attention(x, w_dkv, w_uk, w_uv, w_q, n_heads, causal=True):
    latent = x @ w_dkv
    q = split_heads(x @ w_q, n_heads)
    k = split_heads(latent @ w_uk, n_heads)
    v = split_heads(latent @ w_uv, n_heads)
    weights = softmax(q @ k.swapaxes(-1, -2) / np.sqrt(q.shape[-1]))
    return merge_heads(weights @ v), latent
