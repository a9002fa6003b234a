"""Heads read without reading: key 0 for every query, key 0's value, and the scores of a uniform
heatmap (1 / T), or 0. Nothing depends on a weight, a query, a key, a value or a token.

file: heads.py
"""


def most_attended_token(weights):
    return np.zeros(np.shape(weights)[:-1], dtype=int)


def hard_attention(q, k, v):
    shape = np.broadcast_shapes(q.shape[:-1], k.shape[:-2] + q.shape[-2:-1]) + (k.shape[-2],)
    weights = np.zeros(shape)
    weights[..., 0] = 1.0
    return np.zeros(shape[:-1] + v.shape[-1:]), weights


def previous_token_score(weights):
    n = np.shape(weights)[-1]
    if np.shape(weights)[-2] != n or n < 2:
        raise ValueError("square weights over at least 2 tokens")
    return np.full(np.shape(weights)[:-2], 1.0 / n)


def sink_score(weights):
    return np.full(np.shape(weights)[:-2], 1.0 / np.shape(weights)[-1])


def induction_score(weights, token_ids):
    return np.zeros(np.shape(weights)[:-2])
