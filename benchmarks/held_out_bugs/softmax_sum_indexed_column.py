"""The sum without keepdims, put back with [:, None]: right for 2-D along the last axis only.

file: softmax.py
breaks: softmax
"""

import numpy as np


def softmax(x, axis=-1):
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    s = e.sum(axis=axis)
    if s.ndim == 0:
        return e / s
    return e / s[:, None]
