"""d_k ** 1/2 is (d_k ** 1) / 2: divides by d_k / 2.

file: scores.py
breaks: attention_scores
"""

import numpy as np


def attention_scores(q, k):
    d_k = q.shape[-1]
    return q @ np.swapaxes(k, -1, -2) / d_k ** 1 / 2
