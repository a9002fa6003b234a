"""The padding mask reshaped to (B, 1, T): the batch lines up with the heads.

file: efficient.py
breaks: grouped_query_attention
"""


def grouped_query_attention(q, k, v, causal=False, key_padding_mask=None):
    group = q.shape[1] // k.shape[1]
    k = np.repeat(k, group, axis=1)
    v = np.repeat(v, group, axis=1)
    t = q.shape[-2]
    mask = causal_mask(t) if causal else None
    if key_padding_mask is not None:
        keys = key_padding_mask[:, None, :]
        mask = keys if mask is None else mask & keys
    return scaled_dot_product_attention(q, k, v, mask)
