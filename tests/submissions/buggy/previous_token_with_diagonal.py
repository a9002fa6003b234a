"""Counts the query's own key as well as the previous one.

file: heads.py
breaks: previous_token_score
"""


def previous_token_score(weights):
    n = weights.shape[-1]
    if weights.shape[-2] != n or n < 2:
        raise ValueError("need square weights over at least 2 tokens")
    total = 0.0
    for i in range(1, n):
        total = total + weights[..., i, i - 1] + weights[..., i, i]
    return total / (n - 1)
