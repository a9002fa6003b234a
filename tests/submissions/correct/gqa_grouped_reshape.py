"""Grouped-query attention by reshaping queries into (B, h_kv, group, T, d) and broadcasting the kv heads.

file: efficient.py
"""


def grouped_query_attention(q, k, v, causal=False):
    batch, h_q, n, d = q.shape
    h_kv = k.shape[1]
    grouped = q.reshape(batch, h_kv, h_q // h_kv, n, d)
    scores = grouped @ np.swapaxes(k, -1, -2)[:, :, None] / np.sqrt(d)
    if causal:
        scores = np.where(np.tril(np.ones((n, n), dtype=bool)), scores, -1e30)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    out = weights @ v[:, :, None]
    return out.reshape(batch, h_q, n, d), weights.reshape(batch, h_q, n, n)
