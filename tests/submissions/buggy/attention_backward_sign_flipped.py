"""Writes the softmax's backward inline the wrong way round: A * (D - dA).

file: backward.py
breaks: attention_backward
"""

import numpy as np
from attention import scaled_dot_product_attention


def attention_backward(q, k, v, grad_out, mask=None):
    _, a = scaled_dot_product_attention(q, k, v, mask)
    dv = np.swapaxes(a, -1, -2) @ grad_out
    da = grad_out @ np.swapaxes(v, -1, -2)
    d_row = np.sum(da * a, axis=-1, keepdims=True)
    ds = a * (d_row - da) / np.sqrt(q.shape[-1])
    return ds @ k, np.swapaxes(ds, -1, -2) @ q, dv
