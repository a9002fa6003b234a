"""key_padding_mask is accepted and never used.

file: multihead.py
breaks: multi_head_attention
"""

import numpy as np

def multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads, causal=False, key_padding_mask=None):
    q, k, v = split_heads(x @ w_q, n_heads), split_heads(x @ w_k, n_heads), split_heads(x @ w_v, n_heads)
    heads, weights = scaled_dot_product_attention(q, k, v, causal_mask(x.shape[1]) if causal else None)
    return merge_heads(heads) @ w_o, weights
