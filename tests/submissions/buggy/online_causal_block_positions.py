"""Builds the causal mask from the key's index inside its block, not in the sequence.

file: efficient.py
breaks: online_softmax_attention
"""

import numpy as np


def online_softmax_attention(q, k, v, block_size, causal=False):
    L_q, L_k = q.shape[-2], k.shape[-2]
    m = np.full(q.shape[:-1] + (1,), -np.inf)
    l = np.zeros(q.shape[:-1] + (1,))
    o = np.zeros(q.shape[:-1] + (v.shape[-1],))
    for start in range(0, L_k, block_size):
        kb, vb = k[..., start:start + block_size, :], v[..., start:start + block_size, :]
        s = q @ np.swapaxes(kb, -1, -2) / np.sqrt(q.shape[-1])
        if causal:
            b = kb.shape[-2]
            s = np.where(np.tril(np.ones((L_q, b), dtype=bool)), s, -np.inf)
        m_new = np.maximum(m, s.max(axis=-1, keepdims=True))
        p = np.exp(s - m_new)
        l = l * np.exp(m - m_new) + p.sum(axis=-1, keepdims=True)
        o = o * np.exp(m - m_new) + p @ vb
        m = m_new
    return o / l
