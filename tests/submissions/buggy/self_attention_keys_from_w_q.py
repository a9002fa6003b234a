"""A copy-paste slip: the keys are projected with w_q.

file: attention.py
breaks: self_attention
"""


def self_attention(x, w_q, w_k, w_v, causal=False):
    q = x @ w_q
    k = x @ w_q
    v = x @ w_v
    mask = causal_mask(x.shape[-2]) if causal else None
    return scaled_dot_product_attention(q, k, v, mask)
