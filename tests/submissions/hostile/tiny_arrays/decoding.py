"""One zero for every output.

file: decoding.py
"""


def bottom_right_causal_mask(n_queries, n_keys):
    return np.zeros(1)


def cached_rope_attention(x_new, cache, w_q, w_k, w_v, theta=10000.0):
    return np.zeros(1)


def evict_to_sinks_and_window(cache, n_sinks, window):
    return np.zeros(1)
