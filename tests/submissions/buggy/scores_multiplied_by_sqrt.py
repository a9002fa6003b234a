"""Multiplies by √d_k.

file: scores.py
breaks: attention_scores
"""

import numpy as np


def attention_scores(q, k):
    return np.matmul(q, np.swapaxes(k, -1, -2)) * np.sqrt(q.shape[-1])
