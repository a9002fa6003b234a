"""Heads of zeros, and multi-head attention with uniform weights over the keys it may see.

file: multihead.py
"""


def split_heads(x, n_heads):
    return np.zeros(x.shape[:-2] + (n_heads, x.shape[-2], x.shape[-1] // n_heads))


def merge_heads(x):
    return np.zeros(x.shape[:-3] + (x.shape[-2], x.shape[-3] * x.shape[-1]))


def multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads, causal=False, key_padding_mask=None):
    batch, n, _ = x.shape
    visible = np.ones((batch, 1, n, n), dtype=bool)
    if causal:
        visible = visible & np.tril(np.ones((n, n), dtype=bool))
    if key_padding_mask is not None:
        visible = visible & np.asarray(key_padding_mask)[:, None, None, :]
    visible = np.broadcast_to(visible, (batch, n_heads, n, n))
    weights = np.where(visible, 1.0 / np.maximum(visible.sum(axis=-1, keepdims=True), 1), 0.0)
    return np.zeros(x.shape), weights
