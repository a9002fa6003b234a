"""Fills masked scores with -1e9 instead of -inf (exp underflows to exactly 0 all the same).

file: attention.py
"""


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = np.einsum("...qd,...kd->...qk", q, k) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -1e9)
    scores = scores - scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return np.einsum("...qk,...kd->...qd", weights, v), weights
