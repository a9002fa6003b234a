"""Fills masked scores with -1e9 instead of -inf (exp underflows to exactly 0 all the same), and zeroes a row with no visible key afterwards.

file: attention.py
"""


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = np.einsum("...qd,...kd->...qk", q, k) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -1e9)
    scores = scores - scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights = weights / weights.sum(axis=-1, keepdims=True)
    if mask is not None:
        weights = weights * np.any(mask, axis=-1, keepdims=True)  # -1e9 everywhere would be uniform, not 0
    return np.einsum("...qk,...kd->...qd", weights, v), weights
