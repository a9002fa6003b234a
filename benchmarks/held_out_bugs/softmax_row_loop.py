"""A loop over the first axis that handles 1-D and 2-D arrays along their last axis, and ignores `axis`.

file: softmax.py
breaks: softmax
"""

import numpy as np


def softmax(x, axis=-1):
    x = np.asarray(x, dtype=float)
    if x.ndim == 1:
        e = np.exp(x - x.max())
        return e / e.sum()
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        e = np.exp(x[i] - x[i].max())
        out[i] = e / e.sum()
    return out
