"""Reshapes to (..., T, n_heads, d_head) and stops there: the head axis stays behind the tokens.

file: multihead.py
breaks: split_heads
"""


def split_heads(x, n_heads):
    *lead, T, d_model = x.shape
    return x.reshape(*lead, T, n_heads, d_model // n_heads)
