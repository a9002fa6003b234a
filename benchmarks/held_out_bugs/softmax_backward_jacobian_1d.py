"""Builds the Jacobian diag(y) - y yᵀ, which is right for one row only (np.diag of a matrix takes its diagonal).

file: backward.py
breaks: softmax_backward
"""

import numpy as np


def softmax_backward(weights, grad_weights, axis=-1):
    y = np.asarray(weights)
    jacobian = np.diag(y) - np.outer(y, y)
    return (jacobian @ np.asarray(grad_weights).reshape(-1)).reshape(y.shape) if y.ndim == 1 else y * grad_weights - y * np.sum(y * grad_weights)
