"""The maximum is subtracted inside the numerator's exp but the denominator sums exp of the raw scores.

file: softmax.py
breaks: softmax
"""

import numpy as np


def softmax(x, axis=-1):
    top = np.max(x, axis=axis, keepdims=True)
    return np.exp(x - top) / np.sum(np.exp(x), axis=axis, keepdims=True)
