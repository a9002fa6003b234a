"""Forgets the 1/√d_k in dS: dq and dk come out √d_k times too large.

file: efficient.py
breaks: flash_attention_backward
"""

import numpy as np

def flash_attention_backward(q, k, v, out, lse, grad_out, block_q, block_k, causal=False, mask=None):
    Lq, Lk, d = q.shape[-2], k.shape[-2], q.shape[-1]
    if mask is not None:
        mask = np.broadcast_to(mask, np.broadcast_shapes(np.shape(mask), (Lq, Lk)))
    lead = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2], () if mask is None else mask.shape[:-2], grad_out.shape[:-2])
    shift = np.where(lse > -np.inf, lse, 0.0)[..., None]
    D = np.sum(grad_out * out, axis=-1, keepdims=True)
    dq = np.zeros(lead + q.shape[-2:])
    dk = np.zeros(lead + k.shape[-2:])
    dv = np.zeros(lead + v.shape[-2:])
    for ks in range(0, Lk, block_k):
        ke = min(ks + block_k, Lk)
        for qs in range(0, Lq, block_q):
            qe = min(qs + block_q, Lq)
            s = q[..., qs:qe, :] @ np.swapaxes(k[..., ks:ke, :], -1, -2) / np.sqrt(d)
            if causal:
                s = np.where(np.arange(qs, qe)[:, None] >= np.arange(ks, ke)[None, :], s, -np.inf)
            if mask is not None:
                s = np.where(mask[..., qs:qe, ks:ke], s, -np.inf)
            p = np.exp(s - shift[..., qs:qe, :])
            dv[..., ks:ke, :] += np.swapaxes(p, -1, -2) @ grad_out[..., qs:qe, :]
            dp = grad_out[..., qs:qe, :] @ np.swapaxes(v[..., ks:ke, :], -1, -2)
            ds = p * (dp - D[..., qs:qe, :])
            dq[..., qs:qe, :] += ds @ k[..., ks:ke, :]
            dk[..., ks:ke, :] += np.swapaxes(ds, -1, -2) @ q[..., qs:qe, :]
    return dq, dk, dv
