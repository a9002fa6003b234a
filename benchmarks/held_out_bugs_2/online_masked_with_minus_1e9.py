"""Masked scores become -1e9, so nothing is ever -inf: a query that may see no key averages the values.

file: efficient.py
breaks: online_softmax_attention
"""

import numpy as np


def online_softmax_attention(q, k, v, block_size, causal=False, mask=None):
    n_q, n_k = q.shape[-2], k.shape[-2]
    lead = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    if mask is not None:
        mask = np.broadcast_to(mask, np.broadcast_shapes(np.shape(mask), (n_q, n_k)))
    m = np.full(lead + (n_q, 1), -np.inf)
    l = np.zeros(lead + (n_q, 1))
    acc = np.zeros(lead + (n_q, v.shape[-1]))
    for s in range(0, n_k, block_size):
        e = min(s + block_size, n_k)
        sc = q @ np.swapaxes(k[..., s:e, :], -1, -2) / np.sqrt(q.shape[-1])
        if causal:
            sc = np.where(np.arange(n_q)[:, None] >= np.arange(s, e)[None, :], sc, -1e9)
        if mask is not None:
            sc = np.where(mask[..., s:e], sc, -1e9)
        new = np.maximum(m, sc.max(axis=-1, keepdims=True))
        r = np.exp(m - new)
        p = np.exp(sc - new)
        l = l * r + p.sum(axis=-1, keepdims=True)
        acc = acc * r + p @ v[..., s:e, :]
        m = new
    return acc / l
