"""Returns a cache of the newest token only.

file: efficient.py
breaks: kv_cache_step
"""


def kv_cache_step(x_t, cache, w_q, w_k, w_v, key_padding_mask=None):
    q = x_t @ w_q
    k = x_t @ w_k
    v = x_t @ w_v
    if cache is not None:
        keys = np.concatenate([cache["k"], k], axis=1)
        values = np.concatenate([cache["v"], v], axis=1)
    else:
        keys, values = k, v
    mask = None if key_padding_mask is None else key_padding_mask[:, None, :]
    out, _ = scaled_dot_product_attention(q, keys, values, mask)
    return out, {"k": k, "v": v}
