"""Writes the per-head scores by hand and scales them by √d_model instead of √d_head.

file: multihead.py
breaks: multi_head_attention
"""


def multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads, causal=False, key_padding_mask=None):
    q, k, v = (split_heads(x @ w, n_heads) for w in (w_q, w_k, w_v))
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(x.shape[-1])
    if causal:
        scores = np.where(causal_mask(x.shape[-2]), scores, -np.inf)
    if key_padding_mask is not None:
        scores = np.where(key_padding_mask[:, None, None, :], scores, -np.inf)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    return merge_heads(weights @ v) @ w_o, weights
