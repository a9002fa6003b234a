"""Divides the additive scores by the square root of the attention width, out of habit.

file: scores.py
breaks: additive_scores
"""

import numpy as np


def additive_scores(q, k, w_q, w_k, v):
    d_a = w_q.shape[1]
    hidden = np.tanh(np.expand_dims(q @ w_q, -2) + np.expand_dims(k @ w_k, -3))
    return (hidden @ v) / np.sqrt(d_a)
