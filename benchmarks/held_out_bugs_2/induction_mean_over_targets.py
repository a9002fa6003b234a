"""Each query's induction weight is the mean of its weights on the target keys, not their sum.

file: heads.py
breaks: induction_score
"""

import numpy as np


def induction_score(weights, token_ids):
    ids = np.asarray(token_ids)
    earlier = np.tril(ids[..., :, None] == ids[..., None, :], k=-1)
    targets = np.zeros(earlier.shape, dtype=bool)
    targets[..., :, 1:] = earlier[..., :, :-1]
    n_targets = targets.sum(axis=-1)
    per_query = np.divide(np.sum(weights * targets, axis=-1), n_targets, out=np.zeros(np.broadcast_shapes(np.shape(weights)[:-1], n_targets.shape)), where=n_targets > 0)
    repeated = earlier.any(axis=-1)
    total = np.sum(per_query * repeated, axis=-1)
    counted = np.broadcast_to(np.sum(repeated, axis=-1), np.shape(total))
    return np.divide(total, counted, out=np.zeros(np.shape(total)), where=counted > 0)
