"""Attention written out by hand inside the function, its scores divided by √d_model.

file: multihead.py
breaks: multi_head_attention
"""

import numpy as np


def multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads, causal=False, key_padding_mask=None):
    t, d_model = x.shape[-2], x.shape[-1]
    q, k, v = (split_heads(x @ w, n_heads) for w in (w_q, w_k, w_v))
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(d_model)
    allowed = np.ones((t, t), dtype=bool)
    if causal:
        allowed = np.tril(allowed)
    if key_padding_mask is not None:
        allowed = allowed & key_padding_mask[:, None, None, :]
    allowed = np.broadcast_to(allowed, scores.shape)
    seen = allowed.any(axis=-1, keepdims=True)
    scores = np.where(allowed, scores, np.where(seen, -np.inf, 0.0))
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = np.where(allowed, e / e.sum(axis=-1, keepdims=True), 0.0)
    return merge_heads(weights @ v) @ w_o, weights
