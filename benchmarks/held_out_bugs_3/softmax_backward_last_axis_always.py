"""Sums along the last axis whatever ``axis`` says.

file: backward.py
breaks: softmax_backward
"""

import numpy as np

def softmax_backward(weights, grad_weights, axis=-1):
    return weights * (grad_weights - np.sum(grad_weights * weights, axis=-1, keepdims=True))
