"""Subtracts the plain row sum of dy, forgetting to weight it by y.

file: backward.py
breaks: softmax_backward
"""

import numpy as np


def softmax_backward(weights, grad_weights, axis=-1):
    return weights * (grad_weights - np.sum(grad_weights, axis=axis, keepdims=True))
