"""Mixes up the roles of K and V: the weights come from the values, and the keys are averaged.

file: attention.py
breaks: scaled_dot_product_attention
"""


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = q @ np.swapaxes(v, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    visible = np.isfinite(scores).any(axis=-1, keepdims=True)
    scores = np.where(visible, scores, 0.0)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = np.where(visible, weights / weights.sum(axis=-1, keepdims=True), 0.0)
    return weights @ k, weights
