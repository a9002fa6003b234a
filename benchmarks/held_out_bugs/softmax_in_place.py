"""Subtracts the maximum in place: the caller's scores are changed.

file: softmax.py
breaks: softmax
"""

import numpy as np


def softmax(x, axis=-1):
    x -= np.max(x, axis=axis, keepdims=True)
    np.exp(x, out=x)
    return x / np.sum(x, axis=axis, keepdims=True)
