"""Heads, merged heads and multi-head attention of one zero each.

file: multihead.py
"""


def split_heads(x, n_heads):
    return np.zeros(1)


def merge_heads(x):
    return np.zeros(1)


def multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads, causal=False, key_padding_mask=None):
    return np.zeros(1), np.zeros(1)
