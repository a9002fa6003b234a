"""Handles the first step only and raises on any step that is given a cache. Not a mistake about
where the new key goes: no name.

file: efficient.py
breaks: kv_cache_step
"""


def kv_cache_step(x_t, cache, w_q, w_k, w_v, key_padding_mask=None):
    if cache is not None:
        raise NotImplementedError("a cache is not supported yet")
    k, v = x_t @ w_k, x_t @ w_v
    mask = None if key_padding_mask is None else key_padding_mask[:, None, :]
    return scaled_dot_product_attention(x_t @ w_q, k, v, mask)[0], {"k": k, "v": v}
