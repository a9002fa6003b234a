"""Casts to float32 'to save memory': float64 input comes back in float32, with float32 rounding.

file: softmax.py
breaks: softmax
"""

import numpy as np

def softmax(x, axis=-1):
    x = np.asarray(x, dtype=np.float32)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)
