"""Remembers the 1/√d_k in dk but not in dq.

file: backward.py
breaks: attention_backward
"""

import numpy as np

def attention_backward(q, k, v, grad_out, mask=None):
    scale = 1.0 / np.sqrt(q.shape[-1])
    _, A = scaled_dot_product_attention(q, k, v, mask)
    dv = np.swapaxes(A, -1, -2) @ grad_out
    dS = softmax_backward(A, grad_out @ np.swapaxes(v, -1, -2))
    dq = dS @ k
    dk = np.swapaxes(dS, -1, -2) @ q * scale
    return dq, dk, dv
