"""Projects the queries with w_k and the keys with w_q.

file: scores.py
breaks: additive_scores
"""

import numpy as np


def additive_scores(q, k, w_q, w_k, v):
    a = (q @ w_k)[..., :, None, :]
    b = (k @ w_q)[..., None, :, :]
    return np.tanh(a + b) @ v
