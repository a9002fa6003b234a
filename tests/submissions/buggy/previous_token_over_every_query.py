"""Divides by T: query 0, which has no previous token, counts as a zero.

file: heads.py
breaks: previous_token_score
"""


def previous_token_score(weights):
    n = weights.shape[-1]
    if weights.shape[-2] != n or n < 2:
        raise ValueError("need square weights over at least 2 tokens")
    below = np.diagonal(weights, offset=-1, axis1=-2, axis2=-1)
    return below.sum(axis=-1) / n
