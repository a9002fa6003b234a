"""Rescales the accumulator as the maximum grows, but never divides it by the sum of the weights.

file: efficient.py
breaks: online_softmax_attention
"""

import numpy as np


def online_softmax_attention(q, k, v, block_size, causal=False, mask=None):
    if block_size < 1:
        raise ValueError("block_size must be at least 1")
    n_q, n_k, d = q.shape[-2], k.shape[-2], q.shape[-1]
    lead = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    if mask is not None:
        mask = np.broadcast_to(mask, np.broadcast_shapes(np.shape(mask), (n_q, n_k)))
    m = np.full(lead + (n_q, 1), -np.inf)
    acc = np.zeros(lead + (n_q, v.shape[-1]))
    rows = np.arange(n_q)[:, None]
    for start in range(0, n_k, block_size):
        stop = min(start + block_size, n_k)
        s = q @ np.swapaxes(k[..., start:stop, :], -1, -2) / np.sqrt(d)
        if causal:
            s = np.where(rows >= np.arange(start, stop)[None, :], s, -np.inf)
        if mask is not None:
            s = np.where(mask[..., start:stop], s, -np.inf)
        m_new = np.maximum(m, s.max(axis=-1, keepdims=True))
        base = np.where(np.isneginf(m_new), 0.0, m_new)
        acc = acc * np.exp(m - base) + np.exp(s - base) @ v[..., start:stop, :]
        m = m_new
    return acc
