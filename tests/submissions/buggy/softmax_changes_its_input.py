"""Shifts the scores in place: the caller's array holds x - max after the call.

file: softmax.py
breaks: softmax
"""

import numpy as np


def softmax(x, axis=-1):
    x -= x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)
