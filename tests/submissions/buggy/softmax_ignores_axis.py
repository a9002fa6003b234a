"""The axis argument is ignored: the softmax always runs over the last axis.

file: softmax.py
breaks: softmax
"""

import numpy as np


def softmax(x, axis=-1):
    shifted = x - np.max(x, axis=-1, keepdims=True)
    exps = np.exp(shifted)
    return exps / np.sum(exps, axis=-1, keepdims=True)
