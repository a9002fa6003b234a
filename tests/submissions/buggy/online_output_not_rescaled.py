"""Rescales the running sum when the max grows, but forgets the output accumulator.

file: efficient.py
breaks: online_softmax_attention
"""

import numpy as np


def online_softmax_attention(q, k, v, block_size, causal=False):
    L_q, L_k = q.shape[-2], k.shape[-2]
    scale = 1.0 / np.sqrt(q.shape[-1])
    m = np.full(q.shape[:-1] + (1,), -np.inf)
    l = np.zeros(q.shape[:-1] + (1,))
    o = np.zeros(q.shape[:-1] + (v.shape[-1],))
    for start in range(0, L_k, block_size):
        end = min(start + block_size, L_k)
        s = q @ np.swapaxes(k[..., start:end, :], -1, -2) * scale
        if causal:
            s = np.where(np.arange(L_q)[:, None] >= np.arange(start, end)[None, :], s, -np.inf)
        m_new = np.maximum(m, s.max(axis=-1, keepdims=True))
        p = np.exp(s - m_new)
        l = l * np.exp(m - m_new) + p.sum(axis=-1, keepdims=True)
        o = o + p @ v[..., start:end, :]
        m = m_new
    return o / l
