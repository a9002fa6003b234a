"""Builds each row's Jacobian diag(y) - y yᵀ with np.outer, over the rows of a 2-D array only.

file: backward.py
breaks: softmax_backward
"""

import numpy as np


def softmax_backward(weights, grad_weights, axis=-1):
    weights, grad_weights = np.asarray(weights), np.asarray(grad_weights)
    out = np.empty_like(weights)
    for i in range(weights.shape[0]):
        y = weights[i]
        jacobian = np.diag(y) - np.outer(y, y)
        out[i] = jacobian @ grad_weights[i]
    return out
