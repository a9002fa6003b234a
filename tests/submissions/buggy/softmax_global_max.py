"""Subtracts the global maximum, not each row's: a row far below the maximum underflows to 0/0.

file: softmax.py
breaks: softmax
"""

import numpy as np


def softmax(x, axis=-1):
    exps = np.exp(x - np.max(x))
    return exps / np.sum(exps, axis=axis, keepdims=True)
