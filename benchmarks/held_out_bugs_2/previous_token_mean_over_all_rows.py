"""Sums the sub-diagonal and divides by T, counting query 0 too.

file: heads.py
breaks: previous_token_score
"""

import numpy as np


def previous_token_score(weights):
    t = weights.shape[-1]
    if weights.shape[-2] != t or t < 2:
        raise ValueError("need square weights over at least 2 tokens")
    return np.diagonal(weights, offset=-1, axis1=-2, axis2=-1).sum(axis=-1) / t
