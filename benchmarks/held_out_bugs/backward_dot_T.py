"""Transposes with .T, which reverses every axis of a batched array.

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
    grad_v = weights.T @ grad_out
    grad_weights = grad_out @ v.T
    grad_scores = softmax_backward(weights, grad_weights) / np.sqrt(d_k)
    return grad_scores @ k, grad_scores.T @ q, grad_v
