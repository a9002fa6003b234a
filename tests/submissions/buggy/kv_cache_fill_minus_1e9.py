"""A KV cache step by hand that fills padded keys with -1e9: a step that may see no key averages every cached value instead of giving 0.

file: efficient.py
breaks: kv_cache_step
"""


def kv_cache_step(x_t, cache, w_q, w_k, w_v, key_padding_mask=None):
    q_t, k_t, v_t = x_t @ w_q, x_t @ w_k, x_t @ w_v
    if cache is not None:
        k_t = np.concatenate([cache["k"], k_t], axis=-2)
        v_t = np.concatenate([cache["v"], v_t], axis=-2)
    scores = q_t @ np.swapaxes(k_t, -1, -2) / np.sqrt(q_t.shape[-1])
    if key_padding_mask is not None:
        scores = np.where(key_padding_mask[:, None, :], scores, -1e9)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return weights @ v_t, {"k": k_t, "v": v_t}
