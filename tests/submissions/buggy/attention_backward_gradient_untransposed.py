"""Forgets to transpose dS for the keys' gradient: dk = dS q / √d_k.

file: backward.py
breaks: attention_backward
"""

import numpy as np


def attention_backward(q, k, v, grad_out, mask=None):
    scale = np.sqrt(q.shape[-1])
    _, weights = scaled_dot_product_attention(q, k, v, mask)
    grad_v = np.swapaxes(weights, -1, -2) @ grad_out
    grad_weights = grad_out @ np.swapaxes(v, -1, -2)
    grad_scores = softmax_backward(weights, grad_weights) / scale
    return grad_scores @ k, grad_scores @ q, grad_v
