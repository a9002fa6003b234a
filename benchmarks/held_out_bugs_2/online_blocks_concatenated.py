"""Scores the keys block by block, keeps every block in a list and runs one softmax over their concatenation.

file: efficient.py
breaks: online_softmax_attention
"""

import numpy as np
from softmax import softmax


def online_softmax_attention(q, k, v, block_size, causal=False, mask=None):
    n_q, n_k = q.shape[-2], k.shape[-2]
    blocks = []
    for start in range(0, n_k, block_size):
        s = q @ np.swapaxes(k[..., start:start + block_size, :], -1, -2) / np.sqrt(q.shape[-1])
        blocks.append(s)
    scores = np.concatenate(blocks, axis=-1)
    if causal:
        scores = np.where(np.tril(np.ones((n_q, n_k), dtype=bool)), scores, -np.inf)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    return softmax(scores, axis=-1) @ v
