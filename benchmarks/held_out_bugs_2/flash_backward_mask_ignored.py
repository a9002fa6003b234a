"""Rebuilds the weights key by key without the mask (causal is applied).

file: efficient.py
breaks: flash_attention_backward
"""

import numpy as np


def flash_attention_backward(q, k, v, out, lse, grad_out, causal=False, mask=None):
    n_q, n_k, d = q.shape[-2], k.shape[-2], q.shape[-1]
    lead = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2], grad_out.shape[:-2], np.shape(lse)[:-1])
    shift = np.where(lse > -np.inf, lse, 0.0)
    big_d = np.sum(grad_out * out, axis=-1)
    dq, dk, dv = np.zeros(lead + q.shape[-2:]), np.zeros(lead + k.shape[-2:]), np.zeros(lead + v.shape[-2:])
    rows = np.arange(n_q)
    for j in range(n_k):
        s = (q @ k[..., j, :, None])[..., 0] / np.sqrt(d)
        if causal:
            s = np.where(rows >= j, s, -np.inf)
        p = np.exp(s - shift)
        dv[..., j, :] = np.sum(p[..., None] * grad_out, axis=-2)
        ds = p * ((grad_out @ v[..., j, :, None])[..., 0] - big_d) / np.sqrt(d)
        dq += ds[..., None] * k[..., j, None, :]
        dk[..., j, :] = np.sum(ds[..., None] * q, axis=-2)
    return dq, dk, dv
