"""A KV cache that computes the attention of the newest token by hand; a step that may see no key is found by counting its visible keys and gets zeros.

file: efficient.py
"""


def kv_cache_step(x_t, cache, w_q, w_k, w_v, key_padding_mask=None):
    q = x_t @ w_q
    k = x_t @ w_k if cache is None else np.concatenate([cache["k"], x_t @ w_k], axis=1)
    v = x_t @ w_v if cache is None else np.concatenate([cache["v"], x_t @ w_v], axis=1)
    scores = np.einsum("bqd,bkd->bqk", q, k) / np.sqrt(q.shape[-1])
    if key_padding_mask is None:
        key_padding_mask = np.ones(k.shape[:2], dtype=bool)
    visible = key_padding_mask[:, None, :]  # (B, 1, t+1)
    scores = np.where(visible, scores, -np.inf)
    sees = visible.sum(axis=-1, keepdims=True) > 0  # (B, 1, 1)
    scores = np.where(sees, scores, 0.0)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = np.where(sees, weights / weights.sum(axis=-1, keepdims=True), 0.0)
    return weights @ v, {"k": k, "v": v}
