"""Returns lse = log(l), forgetting to add back the running max the sum was taken against.

file: efficient.py
breaks: flash_attention
"""

import numpy as np

def flash_attention(q, k, v, block_q, block_k, causal=False, mask=None):
    Lq, Lk, d = q.shape[-2], k.shape[-2], q.shape[-1]
    if mask is not None:
        mask = np.broadcast_to(mask, np.broadcast_shapes(np.shape(mask), (Lq, Lk)))
    lead = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2], () if mask is None else mask.shape[:-2])
    out = np.zeros(lead + (Lq, v.shape[-1]))
    lse = np.full(lead + (Lq,), -np.inf)
    for qs in range(0, Lq, block_q):
        qe = min(qs + block_q, Lq)
        m = np.full(lead + (qe - qs, 1), -np.inf)
        l = np.zeros(lead + (qe - qs, 1))
        acc = np.zeros(lead + (qe - qs, v.shape[-1]))
        for ks in range(0, Lk, block_k):
            ke = min(ks + block_k, Lk)
            s = q[..., qs:qe, :] @ np.swapaxes(k[..., ks:ke, :], -1, -2) / np.sqrt(d)
            if causal:
                s = np.where(np.arange(qs, qe)[:, None] >= np.arange(ks, ke)[None, :], s, -np.inf)
            if mask is not None:
                s = np.where(mask[..., qs:qe, ks:ke], s, -np.inf)
            m2 = np.maximum(m, s.max(-1, keepdims=True))
            sh = np.where(m2 > -np.inf, m2, 0.0)
            r = np.exp(m - sh)
            p = np.exp(s - sh)
            l = l * r + p.sum(-1, keepdims=True)
            acc = acc * r + p @ v[..., ks:ke, :]
            m = m2
        seen = l > 0
        out[..., qs:qe, :] = np.divide(acc, l, out=np.zeros_like(acc), where=seen)
        lse[..., qs:qe] = np.log(l, out=np.full_like(l, -np.inf), where=seen)[..., 0]
    return out, lse
