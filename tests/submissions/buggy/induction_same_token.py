"""Scores the weight on the earlier copy of the token itself, not on the token after it.

file: heads.py
breaks: induction_score
"""


def induction_score(weights, token_ids):
    token_ids = np.asarray(token_ids)
    n = weights.shape[-1]
    same = token_ids[..., :, None] == token_ids[..., None, :]
    earlier = same & (np.arange(n)[None, :] < np.arange(n)[:, None])
    per_query = (weights * earlier).sum(axis=-1)
    has = earlier.any(axis=-1)
    count = has.sum(axis=-1)
    total = (per_query * has).sum(axis=-1)
    return np.where(count > 0, total / np.maximum(count, 1), 0.0)
