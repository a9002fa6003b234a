"""Softmax per block, then the mean of the blocks' outputs.

file: efficient.py
breaks: online_softmax_attention
"""

import numpy as np


def online_softmax_attention(q, k, v, block_size, causal=False):
    n_q, n_k = q.shape[-2], k.shape[-2]
    total, blocks = 0.0, 0
    for s in range(0, n_k, block_size):
        e = min(s + block_size, n_k)
        mask = None
        if causal:
            mask = np.arange(n_q)[:, None] >= np.arange(s, e)[None, :]
        out, _ = scaled_dot_product_attention(q, k[..., s:e, :], v[..., s:e, :], mask)
        total = total + out
        blocks += 1
    return total / blocks
