"""Casts the scores to float32 first "to save memory": float64 inputs come back at float32 precision.

file: softmax.py
breaks: softmax
"""

import numpy as np


def softmax(x, axis=-1):
    x = np.asarray(x, dtype=np.float32)
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)
