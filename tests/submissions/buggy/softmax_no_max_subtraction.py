"""No max subtraction: exp overflows to inf for scores near 1e3, and inf/inf is nan.

file: softmax.py
breaks: softmax
"""

import numpy as np


def softmax(x, axis=-1):
    exps = np.exp(x)
    return exps / np.sum(exps, axis=axis, keepdims=True)
