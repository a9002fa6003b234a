"""The row sum without keepdims: it broadcasts along the wrong axis.

file: backward.py
breaks: softmax_backward
"""

import numpy as np


def softmax_backward(weights, grad_weights, axis=-1):
    s = np.sum(grad_weights * weights, axis=axis)
    return weights * (grad_weights - s)
