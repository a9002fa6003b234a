"""A mask of every key, outputs of zeros, and a cache kept whole.

file: decoding.py
"""


def bottom_right_causal_mask(n_queries, n_keys):
    return np.ones((n_queries, n_keys), dtype=bool)


def cached_rope_attention(x_new, cache, w_q, w_k, w_v, theta=10000.0):
    t = 0 if cache is None else cache["k"].shape[-2]
    batch, n = x_new.shape[0], x_new.shape[-2]
    return np.zeros((batch, n, w_v.shape[1])), {"k": np.zeros((batch, t + n, w_k.shape[1])), "v": np.zeros((batch, t + n, w_v.shape[1]))}


def evict_to_sinks_and_window(cache, n_sinks, window):
    return {"k": cache["k"], "v": cache["v"]}
