"""Masks the recomputed scores with -1e9: a query that may see no key sends gradient to keys it must not see.

file: backward.py
breaks: attention_backward
"""

import numpy as np

from scores import attention_scores
from softmax import softmax


def attention_backward(q, k, v, grad_out, mask=None):
    scores = attention_scores(q, k)
    if mask is not None:
        scores = np.where(mask, scores, -1e9)
    a = softmax(scores, axis=-1)
    dv = np.swapaxes(a, -1, -2) @ grad_out
    ds = softmax_backward(a, grad_out @ np.swapaxes(v, -1, -2)) / np.sqrt(q.shape[-1])
    return ds @ k, np.swapaxes(ds, -1, -2) @ q, dv
