"""Reshapes (..., h, T, d_head) straight to (..., T, h * d_head).

file: multihead.py
breaks: merge_heads
"""

import numpy as np


def merge_heads(x):
    *lead, h, t, d = x.shape
    return x.reshape(*lead, t, h * d)
