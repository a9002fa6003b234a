"""The bracket the wrong way round.

file: backward.py
breaks: softmax_backward
"""

import numpy as np


def softmax_backward(weights, grad_weights, axis=-1):
    dot = np.sum(weights * grad_weights, axis=axis, keepdims=True)
    return weights * (dot - grad_weights)
