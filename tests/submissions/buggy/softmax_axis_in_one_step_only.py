"""Copies the usual stable line with axis=-1 for the maximum and uses axis only in the sum.

file: softmax.py
breaks: softmax
"""

import numpy as np


def softmax(x, axis=-1):
    shifted = x - x.max(axis=-1, keepdims=True)
    e = np.exp(shifted)
    return e / e.sum(axis=axis, keepdims=True)
