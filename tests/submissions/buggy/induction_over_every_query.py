"""Averages over every query: a token seen for the first time counts as 0.

file: heads.py
breaks: induction_score
"""


def induction_score(weights, token_ids):
    token_ids = np.asarray(token_ids)
    n = weights.shape[-1]
    earlier = np.tril(token_ids[..., :, None] == token_ids[..., None, :], k=-1)
    after = np.zeros(earlier.shape, dtype=bool)
    after[..., 1:] = earlier[..., :-1]
    return (weights * after).sum(axis=-1).mean(axis=-1) + np.zeros(weights.shape[:-2])
