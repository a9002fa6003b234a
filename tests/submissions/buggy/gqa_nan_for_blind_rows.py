"""Grouped-query attention by hand with -inf and a plain softmax: a query that may see no key gets a row of nan.

file: efficient.py
breaks: grouped_query_attention
"""


def grouped_query_attention(q, k, v, causal=False, key_padding_mask=None):
    group = q.shape[1] // k.shape[1]
    k, v = np.repeat(k, group, axis=1), np.repeat(v, group, axis=1)
    n = q.shape[-2]
    allowed = np.tril(np.ones((n, n), dtype=bool)) if causal else np.ones((n, n), dtype=bool)
    if key_padding_mask is not None:
        allowed = allowed & key_padding_mask[:, None, None, :]
    scores = np.where(allowed, q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1]), -np.inf)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return weights @ v, weights
