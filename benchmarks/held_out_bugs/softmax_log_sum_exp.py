"""exp(x - log Σ exp x): the log-sum-exp form, without the maximum, so it overflows.

file: softmax.py
breaks: softmax
"""

import numpy as np


def softmax(x, axis=-1):
    return np.exp(x - np.log(np.sum(np.exp(x), axis=axis, keepdims=True)))
