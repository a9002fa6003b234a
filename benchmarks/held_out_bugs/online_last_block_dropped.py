"""range(0, L_k - block_size + 1, block_size): a last, shorter block is never read.

file: efficient.py
breaks: online_softmax_attention
"""

import numpy as np


def online_softmax_attention(q, k, v, block_size, causal=False):
    n_q, n_k, d = q.shape[-2], k.shape[-2], q.shape[-1]
    lead = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    m = np.full(lead + (n_q, 1), -np.inf)
    l = np.zeros(lead + (n_q, 1))
    acc = np.zeros(lead + (n_q, v.shape[-1]))
    qi = np.arange(n_q)[:, None]
    for s in range(0, n_k - block_size + 1, block_size):
        e = s + block_size
        sc = q @ np.swapaxes(k[..., s:e, :], -1, -2) / np.sqrt(d)
        if causal:
            sc = np.where(qi >= np.arange(s, e)[None, :], sc, -np.inf)
        m_new = np.maximum(m, sc.max(axis=-1, keepdims=True))
        r = np.exp(m - m_new)
        p = np.exp(sc - m_new)
        l = l * r + p.sum(axis=-1, keepdims=True)
        acc = acc * r + p @ v[..., s:e, :]
        m = m_new
    return acc / l
