"""The causal test compares positions inside the two tiles, not in the sequence.

file: efficient.py
breaks: flash_attention
"""

import numpy as np


def flash_attention(q, k, v, block_q, block_k, causal=False, mask=None):
    if block_q < 1 or block_k < 1:
        raise ValueError("empty tiles")
    n_q, n_k = q.shape[-2], k.shape[-2]
    given = np.ones((n_q, n_k), dtype=bool) if mask is None else mask
    given = np.broadcast_to(given, np.broadcast_shapes(np.shape(given), (n_q, n_k)))
    lead = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2], given.shape[:-2])
    out = np.zeros(lead + (n_q, v.shape[-1]))
    lse = np.full(lead + (n_q,), -np.inf)
    for qs in range(0, n_q, block_q):
        qe = min(qs + block_q, n_q)
        m = np.full(lead + (qe - qs, 1), -np.inf)
        l = np.zeros(lead + (qe - qs, 1))
        acc = np.zeros(lead + (qe - qs, v.shape[-1]))
        for ks in range(0, n_k, block_k):
            ke = min(ks + block_k, n_k)
            s = q[..., qs:qe, :] @ np.swapaxes(k[..., ks:ke, :], -1, -2) / np.sqrt(q.shape[-1])
            allowed = given[..., qs:qe, ks:ke]
            if causal:
                allowed = allowed & (np.arange(qe - qs)[:, None] >= np.arange(ke - ks)[None, :])
            s = np.where(allowed, s, -np.inf)
            new = np.maximum(m, s.max(axis=-1, keepdims=True))
            shift = np.where(new > -np.inf, new, 0.0)
            r, p = np.exp(m - shift), np.exp(s - shift)
            l = l * r + p.sum(axis=-1, keepdims=True)
            acc = acc * r + p @ v[..., ks:ke, :]
            m = new
        seen = l > 0
        out[..., qs:qe, :] = np.divide(acc, l, out=np.zeros_like(acc), where=seen)
        lse[..., qs:qe] = (np.where(seen, m, 0.0) + np.log(l, out=np.full_like(l, -np.inf), where=seen))[..., 0]
    return out, lse
