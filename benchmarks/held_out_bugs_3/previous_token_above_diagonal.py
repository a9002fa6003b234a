"""Reads the diagonal above the main one (offset=+1): the next token, not the previous.

file: heads.py
breaks: previous_token_score
"""

import numpy as np

def previous_token_score(weights):
    if weights.shape[-1] != weights.shape[-2] or weights.shape[-1] < 2:
        raise ValueError("weights must be square with T >= 2")
    return np.diagonal(weights, offset=1, axis1=-2, axis2=-1).mean(axis=-1)
