"""Puts the new key and value in front of the cache.

file: efficient.py
breaks: kv_cache_step
"""


def kv_cache_step(x_t, cache, w_q, w_k, w_v, key_padding_mask=None):
    q = x_t @ w_q
    k = x_t @ w_k
    v = x_t @ w_v
    if cache is not None:
        keys = np.concatenate([k, cache["k"]], axis=1)
        values = np.concatenate([v, cache["v"]], axis=1)
    else:
        keys, values = k, v
    mask = None if key_padding_mask is None else np.roll(key_padding_mask, 1, axis=-1)[:, None, :]
    out, _ = scaled_dot_product_attention(q, keys, values, mask)
    return out, {"k": keys, "v": values}
