"""Negates the causal mask, thinking True means "hide".

file: attention.py
breaks: self_attention
"""


def self_attention(x, w_q, w_k, w_v, causal=False):
    mask = None
    if causal:
        mask = ~causal_mask(x.shape[-2])
    return scaled_dot_product_attention(x @ w_q, x @ w_k, x @ w_v, mask)
