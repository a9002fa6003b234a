"""Subtracts the row sums from the upstream gradient in place.

file: backward.py
breaks: softmax_backward
"""

import numpy as np


def softmax_backward(weights, grad_weights, axis=-1):
    grad_weights -= np.sum(weights * grad_weights, axis=axis, keepdims=True)
    return weights * grad_weights
