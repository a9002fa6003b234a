"""Reuses the right-padding rule: the first lengths[b] positions are marked real.

file: masks.py
breaks: left_padding_mask
"""


def left_padding_mask(lengths, max_len):
    return padding_mask(lengths, max_len)
