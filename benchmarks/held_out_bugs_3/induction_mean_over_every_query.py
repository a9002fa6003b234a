"""Averages the induction weight over every query, the new tokens' zeros included.

file: heads.py
breaks: induction_score
"""

import numpy as np

def induction_score(weights, token_ids):
    ids = np.asarray(token_ids)
    T = weights.shape[-1]
    same = (ids[..., :, None] == ids[..., None, :]) & np.tril(np.ones((T, T), dtype=bool), k=-1)
    targets = np.zeros(same.shape, dtype=bool)
    targets[..., :, 1:] = same[..., :, :-1]
    return np.sum(weights * targets, axis=-1).mean(axis=-1)
