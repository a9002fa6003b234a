"""Returns a cache with the new token only: each step attends to itself and forgets the past.

file: efficient.py
breaks: kv_cache_step
"""


def kv_cache_step(x_t, cache, w_q, w_k, w_v):
    q_t, k_t, v_t = x_t @ w_q, x_t @ w_k, x_t @ w_v
    if cache is not None:
        k_all = np.concatenate([cache["k"], k_t], axis=-2)
        v_all = np.concatenate([cache["v"], v_t], axis=-2)
    else:
        k_all, v_all = k_t, v_t
    out_t, _ = scaled_dot_product_attention(q_t, k_all, v_all)
    return out_t, {"k": k_t, "v": v_t}
