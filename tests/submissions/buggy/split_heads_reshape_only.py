"""Splits heads by reshape alone, (..., T, d) -> (..., h, T, d/h): tokens and features get mixed.

file: multihead.py
breaks: split_heads
"""


def split_heads(x, n_heads):
    *lead, t, d_model = x.shape
    return x.reshape(*lead, n_heads, t, d_model // n_heads)
