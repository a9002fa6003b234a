"""Computes dk as dS q instead of dSᵀ q (right only when dS is symmetric).

file: backward.py
breaks: attention_backward
"""

import numpy as np

def attention_backward(q, k, v, grad_out, mask=None):
    d_k = q.shape[-1]
    _, A = scaled_dot_product_attention(q, k, v, mask)
    dv = np.swapaxes(A, -1, -2) @ grad_out
    dA = grad_out @ np.swapaxes(v, -1, -2)
    dS = softmax_backward(A, dA)
    dq = dS @ k / np.sqrt(d_k)
    dk = dS @ q / np.sqrt(d_k)
    return dq, dk, dv
