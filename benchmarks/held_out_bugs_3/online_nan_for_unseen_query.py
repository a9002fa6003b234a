"""Shifts by the running max even while it is -inf: a query that sees no key gets nan.

file: efficient.py
breaks: online_softmax_attention
"""

import numpy as np

def online_softmax_attention(q, k, v, block_size, causal=False, mask=None):
    Lq, Lk, d = q.shape[-2], k.shape[-2], q.shape[-1]
    lead = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    if mask is not None:
        mask = np.broadcast_to(mask, np.broadcast_shapes(np.shape(mask), (Lq, Lk)))
    m = np.full(lead + (Lq, 1), -np.inf)
    l = np.zeros(lead + (Lq, 1))
    acc = np.zeros(lead + (Lq, v.shape[-1]))
    for s in range(0, Lk, block_size):
        e = min(s + block_size, Lk)
        sc = q @ np.swapaxes(k[..., s:e, :], -1, -2) / np.sqrt(d)
        if causal:
            sc = np.where(np.arange(Lq)[:, None] >= np.arange(s, e), sc, -np.inf)
        if mask is not None:
            sc = np.where(mask[..., s:e], sc, -np.inf)
        m_new = np.maximum(m, sc.max(axis=-1, keepdims=True))
        r = np.exp(m - m_new)
        p = np.exp(sc - m_new)
        l = l * r + p.sum(axis=-1, keepdims=True)
        acc = acc * r + p @ v[..., s:e, :]
        m = m_new
    return acc / l
