"""np.tril without k=-1: a token counts as its own earlier copy.

file: heads.py
breaks: induction_score
"""

import numpy as np


def induction_score(weights, token_ids):
    token_ids = np.asarray(token_ids)
    earlier = np.tril(token_ids[..., :, None] == token_ids[..., None, :])
    targets = np.zeros(earlier.shape, dtype=bool)
    targets[..., :, 1:] = earlier[..., :, :-1]
    per_query = np.sum(weights * targets, axis=-1)
    repeated = earlier.any(axis=-1)
    total = np.sum(per_query * repeated, axis=-1)
    counted = np.broadcast_to(np.sum(repeated, axis=-1), np.shape(total))
    return np.divide(total, counted, out=np.zeros(np.shape(total)), where=counted > 0)
