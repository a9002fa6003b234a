"""A KV cache that computes the attention of the newest token by hand.

file: efficient.py
"""


def kv_cache_step(x_t, cache, w_q, w_k, w_v):
    q = x_t @ w_q
    k = x_t @ w_k if cache is None else np.concatenate([cache["k"], x_t @ w_k], axis=1)
    v = x_t @ w_v if cache is None else np.concatenate([cache["v"], x_t @ w_v], axis=1)
    scores = np.einsum("bqd,bkd->bqk", q, k) / np.sqrt(q.shape[-1])
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    return weights @ v, {"k": k, "v": v}
