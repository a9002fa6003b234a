"""Always sums over the last axis.

file: backward.py
breaks: softmax_backward
"""

import numpy as np


def softmax_backward(weights, grad_weights, axis=-1):
    dot = (weights * grad_weights).sum(-1, keepdims=True)
    return weights * (grad_weights - dot)
