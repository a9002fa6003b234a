"""Shifts each row by its own maximum, then divides by the sum of every entry.

file: softmax.py
breaks: softmax
"""

import numpy as np


def softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum()
