"""Scores the weight on the earlier copy of the token itself (key j), not the token after it (key j + 1).

file: heads.py
breaks: induction_score
"""

import numpy as np

def induction_score(weights, token_ids):
    ids = np.asarray(token_ids)
    same = ids[..., :, None] == ids[..., None, :]
    T = weights.shape[-1]
    same = same & np.tril(np.ones((T, T), dtype=bool), k=-1)
    has = same.any(axis=-1)
    per_query = np.sum(weights * same, axis=-1)
    n = has.sum(axis=-1)
    total = np.sum(per_query * has, axis=-1)
    return np.where(n > 0, total / np.maximum(n, 1), 0.0)
