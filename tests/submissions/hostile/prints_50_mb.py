"""softmax prints 50 MB, then returns the right answer.

file: softmax.py
"""

import numpy as np


def softmax(x, axis=-1):
    print("x" * 50_000_000)
    exps = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return exps / np.sum(exps, axis=axis, keepdims=True)
