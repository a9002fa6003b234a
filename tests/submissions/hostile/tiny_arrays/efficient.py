"""One zero for every output, and a cache of one zero each.

file: efficient.py
"""


def online_softmax_attention(q, k, v, block_size, causal=False, mask=None):
    return np.zeros(1)


def grouped_query_attention(q, k, v, causal=False, key_padding_mask=None):
    return np.zeros(1), np.zeros(1)


def kv_cache_step(x_t, cache, w_q, w_k, w_v, key_padding_mask=None):
    return np.zeros(1), {"k": np.zeros(1), "v": np.zeros(1)}


def flash_attention(q, k, v, block_q, block_k, causal=False, mask=None):
    return np.zeros(1), np.zeros(1)


def flash_attention_backward(q, k, v, out, lse, grad_out, block_q, block_k, causal=False, mask=None):
    return np.zeros(1), np.zeros(1), np.zeros(1)
