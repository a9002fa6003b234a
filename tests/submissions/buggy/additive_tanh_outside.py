"""Applies the tanh to the score, after the product with v.

file: scores.py
breaks: additive_scores
"""

import numpy as np


def additive_scores(q, k, w_q, w_k, v):
    hidden = np.expand_dims(q @ w_q, -2) + np.expand_dims(k @ w_k, -3)
    return np.tanh(np.einsum("...a,a->...", hidden, v))
