"""Appends the new key and value along the feature axis (-1): the shapes no longer fit the query.

file: efficient.py
breaks: kv_cache_step
"""


def kv_cache_step(x_t, cache, w_q, w_k, w_v, key_padding_mask=None):
    q_t, k_t, v_t = x_t @ w_q, x_t @ w_k, x_t @ w_v
    if cache is not None:
        k_t = np.concatenate([cache["k"], k_t], axis=-1)
        v_t = np.concatenate([cache["v"], v_t], axis=-1)
    mask = None if key_padding_mask is None else key_padding_mask[:, None, :]
    out_t, _ = scaled_dot_product_attention(q_t, k_t, v_t, mask)
    return out_t, {"k": k_t, "v": v_t}
