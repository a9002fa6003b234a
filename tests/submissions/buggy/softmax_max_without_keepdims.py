"""Takes the maximum without keepdims=True, so it broadcasts along the wrong axis.

file: softmax.py
breaks: softmax
"""

import numpy as np


def softmax(x, axis=-1):
    m = x.max(axis=axis)
    e = np.exp(x - m)
    return e / e.sum(axis=axis, keepdims=True)
