"""Shifts the earlier copies one key to the left: scores the token before the copy.

file: heads.py
breaks: induction_score
"""

import numpy as np


def induction_score(weights, token_ids):
    ids = np.asarray(token_ids)
    T = ids.shape[-1]
    same_before = np.tril(ids[..., :, None] == ids[..., None, :], k=-1)
    target = np.zeros_like(same_before)
    target[..., :, : T - 1] = same_before[..., :, 1:]
    per_query = (weights * target).sum(axis=-1)
    has_copy = same_before.any(axis=-1)
    n = np.broadcast_to(has_copy.sum(axis=-1), per_query.shape[:-1])
    total = (per_query * has_copy).sum(axis=-1)
    return np.divide(total, n, out=np.zeros(np.shape(total)), where=n > 0)
