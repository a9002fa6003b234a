"""y * (Σ dy y - dy): the sign flipped.

file: backward.py
breaks: softmax_backward
"""

import numpy as np


def softmax_backward(weights, grad_weights, axis=-1):
    along = np.sum(grad_weights * weights, axis=axis, keepdims=True)
    return weights * (along - grad_weights)
