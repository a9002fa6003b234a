"""Sums without keepdims=True, so the division broadcasts along the wrong axis.

file: softmax.py
breaks: softmax
"""

import numpy as np


def softmax(x, axis=-1):
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    total = np.sum(e, axis=axis)
    return e / total
