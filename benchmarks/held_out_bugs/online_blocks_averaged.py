"""A softmax within each block, and the blocks' outputs averaged.

file: efficient.py
breaks: online_softmax_attention
"""

import numpy as np


def online_softmax_attention(q, k, v, block_size, causal=False):
    n_q, n_k, d = q.shape[-2], k.shape[-2], q.shape[-1]
    qi = np.arange(n_q)[:, None]
    outs = []
    for s in range(0, n_k, block_size):
        e = min(s + block_size, n_k)
        sc = q @ np.swapaxes(k[..., s:e, :], -1, -2) / np.sqrt(d)
        if causal:
            sc = np.where(qi >= np.arange(s, e)[None, :], sc, -np.inf)
        p = np.exp(sc - sc.max(axis=-1, keepdims=True))
        p = np.nan_to_num(p / p.sum(axis=-1, keepdims=True))
        outs.append(p @ v[..., s:e, :])
    return sum(outs) / len(outs)
