"""Appends to the cache it was given and returns that same dict: the caller's cache changes under it.

file: efficient.py
breaks: kv_cache_step
"""


def kv_cache_step(x_t, cache, w_q, w_k, w_v):
    q_t, k_t, v_t = x_t @ w_q, x_t @ w_k, x_t @ w_v
    if cache is None:
        cache = {"k": k_t, "v": v_t}
    else:
        cache["k"] = np.concatenate([cache["k"], k_t], axis=-2)
        cache["v"] = np.concatenate([cache["v"], v_t], axis=-2)
    out_t, _ = scaled_dot_product_attention(q_t, cache["k"], cache["v"])
    return out_t, cache
