"""Broadcasts the keys along the rows: the scores come out as (L_k, L_q).

file: scores.py
breaks: additive_scores
"""

import numpy as np


def additive_scores(q, k, w_q, w_k, v):
    keys = (k @ w_k)[..., :, np.newaxis, :]
    queries = (q @ w_q)[..., np.newaxis, :, :]
    return np.tanh(keys + queries) @ v
