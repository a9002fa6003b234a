"""Grouped-query attention by reshaping queries into (B, h_kv, group, T, d) and broadcasting the kv heads; masks with -1e30 and multiplies the weights by the mask, which zeroes a query that may see no key.

file: efficient.py
"""


def grouped_query_attention(q, k, v, causal=False, key_padding_mask=None):
    batch, h_q, n, d = q.shape
    h_kv = k.shape[1]
    grouped = q.reshape(batch, h_kv, h_q // h_kv, n, d)
    scores = grouped @ np.swapaxes(k, -1, -2)[:, :, None] / np.sqrt(d)
    allowed = np.tril(np.ones((n, n), dtype=bool)) if causal else np.ones((n, n), dtype=bool)
    if key_padding_mask is not None:
        allowed = allowed & key_padding_mask[:, None, None, None, :]  # (B, 1, 1, 1, T)
    scores = np.where(allowed, scores, -1e30)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = weights / weights.sum(axis=-1, keepdims=True) * allowed
    out = weights @ v[:, :, None]
    return out.reshape(batch, h_q, n, d), weights.reshape(batch, h_q, n, n)
