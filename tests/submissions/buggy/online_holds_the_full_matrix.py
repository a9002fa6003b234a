"""Right values, wrong method: plain softmax over the whole (L_q, L_k) score matrix, computed in place, the blocks ignored.

file: efficient.py
breaks: online_softmax_attention
"""


def online_softmax_attention(q, k, v, block_size, causal=False, mask=None):
    scores = q @ np.swapaxes(k, -1, -2)
    scores /= np.sqrt(q.shape[-1])
    if causal:
        scores = np.where(np.tril(np.ones(scores.shape[-2:], dtype=bool)), scores, -np.inf)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    top = scores.max(axis=-1, keepdims=True)
    scores -= np.where(np.isneginf(top), 0.0, top)
    np.exp(scores, out=scores)
    total = scores.sum(axis=-1, keepdims=True)
    return np.where(total > 0, (scores @ v) / np.where(total > 0, total, 1.0), 0.0)
