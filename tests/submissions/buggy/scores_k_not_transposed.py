"""Forgets to transpose the keys: q @ k, which only runs when L_k equals d_k.

file: scores.py
breaks: attention_scores
"""

import numpy as np


def attention_scores(q, k):
    d_k = q.shape[-1]
    scores = np.matmul(q, k)
    return scores / np.sqrt(d_k)
