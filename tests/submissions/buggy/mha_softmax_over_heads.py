"""Writes the per-head attention inline and normalises over axis 1, the heads.

file: multihead.py
breaks: multi_head_attention
"""

import numpy as np
from softmax import softmax


def multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads, causal=False, key_padding_mask=None):
    q = split_heads(x @ w_q, n_heads)
    k = split_heads(x @ w_k, n_heads)
    v = split_heads(x @ w_v, n_heads)
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    T = x.shape[-2]
    if causal:
        scores = np.where(causal_mask(T), scores, -np.inf)
    if key_padding_mask is not None:
        scores = np.where(key_padding_mask[:, None, None, :], scores, -np.inf)
    weights = softmax(scores, axis=1)
    return merge_heads(weights @ v) @ w_o, weights
