"""Multi-head attention by hand with an additive mask of -1e9: a query that may see no key has every score shifted alike, so it attends as if nothing were masked.

file: multihead.py
breaks: multi_head_attention
"""


def multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads, causal=False, key_padding_mask=None):
    q, k, v = split_heads(x @ w_q, n_heads), split_heads(x @ w_k, n_heads), split_heads(x @ w_v, n_heads)
    n = x.shape[-2]
    allowed = np.ones((n, n), dtype=bool)
    if causal:
        allowed = np.tril(allowed)
    if key_padding_mask is not None:
        allowed = allowed & key_padding_mask[:, None, None, :]
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1]) + np.where(allowed, 0.0, -1e9)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return merge_heads(weights @ v) @ w_o, weights
