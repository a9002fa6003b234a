"""Recomputes the weights with its own masked softmax: a query that sees no key gets nan gradients.

file: backward.py
breaks: attention_backward
"""

import numpy as np

def attention_backward(q, k, v, grad_out, mask=None):
    d_k = q.shape[-1]
    s = q @ np.swapaxes(k, -1, -2) / np.sqrt(d_k)
    if mask is not None:
        s = np.where(mask, s, -np.inf)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    A = e / e.sum(axis=-1, keepdims=True)
    dv = np.swapaxes(A, -1, -2) @ grad_out
    dS = softmax_backward(A, grad_out @ np.swapaxes(v, -1, -2))
    return dS @ k / np.sqrt(d_k), np.swapaxes(dS, -1, -2) @ q / np.sqrt(d_k), dv
