"""Never passes the causal mask on: the decoder can copy the answer from the future.

file: attention.py
breaks: self_attention
"""


def self_attention(x, w_q, w_k, w_v, causal=False):
    return scaled_dot_product_attention(x @ w_q, x @ w_k, x @ w_v)
