"""The whole weight matrix rebuilt as exp(S - lse) with lse not given a key axis: it broadcasts along the keys.

file: efficient.py
breaks: flash_attention_backward
"""

import numpy as np


def flash_attention_backward(q, k, v, out, lse, grad_out, causal=False, mask=None):
    n_q, n_k, d = q.shape[-2], k.shape[-2], q.shape[-1]
    allowed = np.ones((n_q, n_k), dtype=bool) if mask is None else mask
    if causal:
        allowed = allowed & causal_mask(n_q)
    s = np.where(allowed, q @ np.swapaxes(k, -1, -2) / np.sqrt(d), -np.inf)
    a = np.exp(s - np.where(np.isneginf(lse), 0.0, lse))
    dv = np.swapaxes(a, -1, -2) @ grad_out
    da = grad_out @ np.swapaxes(v, -1, -2)
    ds = a * (da - np.sum(grad_out * out, axis=-1, keepdims=True)) / np.sqrt(d)
    return ds @ k, np.swapaxes(ds, -1, -2) @ q, dv
