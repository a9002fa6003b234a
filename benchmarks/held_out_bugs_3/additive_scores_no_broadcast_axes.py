"""Adds the projected queries and keys without giving them separate axes: (L_q, d_a) + (L_k, d_a).

file: scores.py
breaks: additive_scores
"""

import numpy as np

def additive_scores(q, k, w_q, w_k, v):
    return np.tanh(q @ w_q + k @ w_k) @ v
