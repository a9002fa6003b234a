"""Reads the cells above the diagonal: query i on key i + 1.

file: heads.py
breaks: previous_token_score
"""


def previous_token_score(weights):
    n = weights.shape[-1]
    if weights.shape[-2] != n or n < 2:
        raise ValueError("need square weights over at least 2 tokens")
    return np.mean([weights[..., i, i + 1] for i in range(n - 1)], axis=0)
