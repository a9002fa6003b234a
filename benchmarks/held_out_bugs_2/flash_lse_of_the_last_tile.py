"""lse is taken from the last key tile's own sum and max, not from the running ones.

file: efficient.py
breaks: flash_attention
"""

import numpy as np


def flash_attention(q, k, v, block_q, block_k, causal=False, mask=None):
    if block_q < 1 or block_k < 1:
        raise ValueError("empty tiles")
    n_q, n_k = q.shape[-2], k.shape[-2]
    allowed = np.ones((n_q, n_k), dtype=bool) if mask is None else mask
    if causal:
        allowed = allowed & causal_mask(n_q)
    allowed = np.broadcast_to(allowed, np.broadcast_shapes(np.shape(allowed), (n_q, n_k)))
    lead = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2], allowed.shape[:-2])
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
            s = np.where(allowed[..., qs:qe, ks:ke], s, -np.inf)
            new = np.maximum(m, s.max(axis=-1, keepdims=True))
            shift = np.where(new > -np.inf, new, 0.0)
            r, p = np.exp(m - shift), np.exp(s - shift)
            l = l * r + p.sum(axis=-1, keepdims=True)
            acc = acc * r + p @ v[..., ks:ke, :]
            m = new
            tile_max = np.where(s.max(axis=-1, keepdims=True) > -np.inf, s.max(axis=-1, keepdims=True), 0.0)
            tile_sum = np.exp(s - tile_max).sum(axis=-1, keepdims=True)
        seen = l > 0
        out[..., qs:qe, :] = np.divide(acc, l, out=np.zeros_like(acc), where=seen)
        lse[..., qs:qe] = np.where(seen & (tile_sum > 0), tile_max + np.log(np.where(tile_sum > 0, tile_sum, 1.0)), -np.inf)[..., 0]
    return out, lse
