"""Sums the T - 1 cells below the diagonal but divides by T.

file: heads.py
breaks: previous_token_score
"""

import numpy as np

def previous_token_score(weights):
    T = weights.shape[-1]
    if weights.shape[-2] != T or T < 2:
        raise ValueError("need square weights with at least two tokens")
    return np.diagonal(weights, offset=-1, axis1=-2, axis2=-1).sum(axis=-1) / T
