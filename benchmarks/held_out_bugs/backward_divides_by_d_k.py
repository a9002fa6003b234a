"""dS divided by d_k, not √d_k.

file: backward.py
breaks: attention_backward
"""

import numpy as np

from scores import attention_scores
from softmax import softmax


def attention_backward(q, k, v, grad_out, mask=None):
    d_k = q.shape[-1]
    scores = attention_scores(q, k)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = softmax(scores, axis=-1)
    grad_v = np.swapaxes(weights, -1, -2) @ grad_out
    grad_weights = grad_out @ np.swapaxes(v, -1, -2)
    grad_scores = softmax_backward(weights, grad_weights, axis=-1) / d_k
    return grad_scores @ k, np.swapaxes(grad_scores, -1, -2) @ q, grad_v
