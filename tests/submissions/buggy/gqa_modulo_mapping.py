"""Maps query head h to kv head h % h_kv (np.tile) instead of h // group (np.repeat).

file: efficient.py
breaks: grouped_query_attention
"""


def grouped_query_attention(q, k, v, causal=False):
    group = q.shape[1] // k.shape[1]
    k = np.tile(k, (1, group, 1, 1))
    v = np.tile(v, (1, group, 1, 1))
    mask = causal_mask(q.shape[-2]) if causal else None
    return scaled_dot_product_attention(q, k, v, mask)
