"""Right values, wrong method: builds the whole (L_q, L_k) score matrix and ignores the blocks.

file: efficient.py
breaks: online_softmax_attention
"""


def online_softmax_attention(q, k, v, block_size, causal=False):
    mask = causal_mask(q.shape[-2]) if causal else None
    return scaled_dot_product_attention(q, k, v, mask)[0]
