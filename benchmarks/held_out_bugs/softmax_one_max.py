"""One maximum for the whole array (x.max()), the sum along the axis.

file: softmax.py
breaks: softmax
"""

import numpy as np


def softmax(x, axis=-1):
    m = x.max()
    e = np.exp(x - m)
    return e / e.sum(axis=axis, keepdims=True)
