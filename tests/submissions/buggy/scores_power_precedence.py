"""d_k ** 1/2 for the square root: Python reads it as d_k / 2.

file: scores.py
breaks: attention_scores
"""

import numpy as np


def attention_scores(q, k):
    d_k = q.shape[-1]
    scale = d_k ** 1/2
    return q @ np.swapaxes(k, -1, -2) / scale
