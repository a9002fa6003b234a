"""Each key picks its best query: the argmax over axis -2 of the scores.

file: heads.py
breaks: hard_attention
"""


def hard_attention(q, k, v):
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    best = scores.argmax(axis=-2)  # (..., L_k)
    weights = np.zeros_like(scores)
    np.put_along_axis(weights, best[..., None, :], 1.0, axis=-2)
    return weights @ v, weights
