"""The 1/sqrt(d_k) goes into dk but not into dq.

file: backward.py
breaks: attention_backward
"""

import numpy as np

def attention_backward(q, k, v, grad_out, mask=None):
    _, weights = scaled_dot_product_attention(q, k, v, mask)
    grad_v = np.swapaxes(weights, -1, -2) @ grad_out
    grad_scores = softmax_backward(weights, grad_out @ np.swapaxes(v, -1, -2), axis=-1)
    return grad_scores @ k, np.swapaxes(grad_scores, -1, -2) @ q / np.sqrt(q.shape[-1]), grad_v
