"""Forgets the minus sign: distant keys get a bonus.

file: masks.py
breaks: alibi_bias
"""

import numpy as np


def alibi_bias(n, n_heads):
    i = np.arange(n)[:, None]
    j = np.arange(n)[None, :]
    return alibi_slopes(n_heads)[:, None, None] * (i - j)[None]
