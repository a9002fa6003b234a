"""Splits and merges heads with einops: right, where the course lets students import einops.

file: multihead.py
"""

from einops import rearrange


def split_heads(x, n_heads):
    return rearrange(x, "... t (h d) -> ... h t d", h=n_heads)


def merge_heads(x):
    return rearrange(x, "... h t d -> ... t (h d)")
