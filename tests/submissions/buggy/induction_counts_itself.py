"""np.tril without k=-1: each token is its own earlier copy.

file: heads.py
breaks: induction_score
"""

import numpy as np

def induction_score(weights, token_ids):
    ids = np.asarray(token_ids)
    seen = np.tril(ids[..., :, None] == ids[..., None, :])
    nxt = np.zeros_like(seen)
    nxt[..., :, 1:] = seen[..., :, :-1]
    has = seen.any(axis=-1)
    got = (weights * nxt).sum(axis=-1)
    n = np.broadcast_to(has.sum(axis=-1), np.shape((got * has).sum(axis=-1)))
    total = (got * has).sum(axis=-1)
    return np.divide(total, n, out=np.zeros(np.shape(total)), where=n > 0)
