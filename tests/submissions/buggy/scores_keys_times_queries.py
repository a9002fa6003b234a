"""Multiplies keys by queries: the scores come out as (L_k, L_q).

file: scores.py
breaks: attention_scores
"""

import numpy as np


def attention_scores(q, k):
    d_k = q.shape[-1]
    return np.matmul(k, np.swapaxes(q, -1, -2)) / np.sqrt(d_k)
