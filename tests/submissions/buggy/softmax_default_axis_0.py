"""The default axis is 0: softmax(scores) normalises the first axis unless told otherwise.

file: softmax.py
breaks: softmax
"""

import numpy as np


def softmax(x, axis=0):
    x = x - np.max(x, axis=axis, keepdims=True)
    e = np.exp(x)
    return e / np.sum(e, axis=axis, keepdims=True)
