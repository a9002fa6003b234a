"""Maps query head h to kv head h // h_kv: right only when h_kv equals the group size.

file: efficient.py
breaks: grouped_query_attention
"""

import numpy as np


def grouped_query_attention(q, k, v, causal=False):
    h_q, h_kv = q.shape[1], k.shape[1]
    kv_head = [h // h_kv for h in range(h_q)]
    k = k[:, kv_head]
    v = v[:, kv_head]
    mask = causal_mask(q.shape[-2]) if causal else None
    return scaled_dot_product_attention(q, k, v, mask)
