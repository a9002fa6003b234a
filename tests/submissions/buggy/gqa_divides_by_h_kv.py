"""Indexes the kv head of query head h as h // h_kv.

file: efficient.py
breaks: grouped_query_attention
"""


def grouped_query_attention(q, k, v, causal=False, key_padding_mask=None):
    group = q.shape[1] // k.shape[1]
    heads = np.arange(q.shape[1]) // k.shape[1]
    k = k[:, heads]
    v = v[:, heads]
    t = q.shape[-2]
    mask = causal_mask(t) if causal else None
    if key_padding_mask is not None:
        keys = key_padding_mask[:, None, None, :]
        mask = keys if mask is None else mask & keys
    return scaled_dot_product_attention(q, k, v, mask)
