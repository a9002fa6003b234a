"""Keeps each query tile's accumulator as its output: acc is never divided by l.

file: efficient.py
breaks: flash_attention
"""

import numpy as np


def flash_attention(q, k, v, block_q, block_k, causal=False, mask=None):
    if block_q < 1 or block_k < 1:
        raise ValueError("a tile holds at least one query and one key")
    n_q, n_k, d = q.shape[-2], k.shape[-2], q.shape[-1]
    if mask is not None:
        mask = np.broadcast_to(mask, np.broadcast_shapes(np.shape(mask), (n_q, n_k)))
    lead = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2], () if mask is None else mask.shape[:-2])
    out = np.zeros(lead + (n_q, v.shape[-1]))
    lse = np.full(lead + (n_q,), -np.inf)
    for i in range(0, n_q, block_q):
        qi = q[..., i:i + block_q, :]
        b_q = qi.shape[-2]
        m = np.full(lead + (b_q, 1), -np.inf)
        l = np.zeros(lead + (b_q, 1))
        acc = np.zeros(lead + (b_q, v.shape[-1]))
        for j in range(0, n_k, block_k):
            kj, vj = k[..., j:j + block_k, :], v[..., j:j + block_k, :]
            s = qi @ np.swapaxes(kj, -1, -2) / np.sqrt(d)
            if causal:
                s = np.where(np.arange(i, i + b_q)[:, None] >= np.arange(j, j + kj.shape[-2])[None, :], s, -np.inf)
            if mask is not None:
                s = np.where(mask[..., i:i + block_q, j:j + block_k], s, -np.inf)
            m_new = np.maximum(m, s.max(axis=-1, keepdims=True))
            safe = np.where(np.isneginf(m_new), 0.0, m_new)
            p = np.exp(s - safe)
            alpha = np.exp(m - safe)
            l = l * alpha + p.sum(axis=-1, keepdims=True)
            acc = acc * alpha + p @ vj
            m = m_new
        seen = l > 0
        out[..., i:i + b_q, :] = acc
        lse[..., i:i + b_q] = np.where(seen, np.where(seen, m, 0.0) + np.log(np.where(seen, l, 1.0)), -np.inf)[..., 0]
    return out, lse
