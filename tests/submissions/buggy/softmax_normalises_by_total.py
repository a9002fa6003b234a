"""Divides by the sum of the whole array instead of each row's sum.

file: softmax.py
breaks: softmax
"""

import numpy as np


def softmax(x, axis=-1):
    exps = np.exp(x - np.max(x))
    return exps / np.sum(exps)
