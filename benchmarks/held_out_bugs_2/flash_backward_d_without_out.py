"""D taken as the row sum of grad_out alone, without multiplying by out.

file: efficient.py
breaks: flash_attention_backward
"""

import numpy as np


def flash_attention_backward(q, k, v, out, lse, grad_out, causal=False, mask=None):
    n_q, n_k, d = q.shape[-2], k.shape[-2], q.shape[-1]
    allowed = np.ones((n_q, n_k), dtype=bool) if mask is None else mask
    if causal:
        allowed = allowed & causal_mask(n_q)
    allowed = np.broadcast_to(allowed, np.broadcast_shapes(np.shape(allowed), (n_q, n_k)))
    lead = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2], allowed.shape[:-2], grad_out.shape[:-2])
    shift = np.where(lse > -np.inf, lse, 0.0)
    big_d = grad_out.sum(axis=-1)
    dq, dk, dv = np.zeros(lead + q.shape[-2:]), np.zeros(lead + k.shape[-2:]), np.zeros(lead + v.shape[-2:])
    for j in range(n_k):
        s = np.where(allowed[..., j], (q @ k[..., j, :, None])[..., 0] / np.sqrt(d), -np.inf)
        p = np.exp(s - shift)
        dv[..., j, :] = np.sum(p[..., None] * grad_out, axis=-2)
        dp = (grad_out @ v[..., j, :, None])[..., 0]
        ds = p * (dp - big_d) / np.sqrt(d)
        dq += ds[..., None] * k[..., j, None, :]
        dk[..., j, :] = np.sum(ds[..., None] * q, axis=-2)
    return dq, dk, dv
