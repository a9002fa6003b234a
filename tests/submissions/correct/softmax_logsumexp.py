"""Softmax through log-sum-exp: exp(x - logsumexp(x)).

file: softmax.py
"""

import numpy as np


def softmax(x, axis=-1):
    top = np.max(x, axis=axis, keepdims=True)
    log_sum = top + np.log(np.sum(np.exp(x - top), axis=axis, keepdims=True))
    return np.exp(x - log_sum)
