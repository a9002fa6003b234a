"""Divides by d_k instead of √d_k.

file: scores.py
breaks: attention_scores
"""

import numpy as np


def attention_scores(q, k):
    return q @ np.swapaxes(k, -1, -2) / q.shape[-1]
