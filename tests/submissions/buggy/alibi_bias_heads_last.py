"""Multiplies the distances by the slopes on a new last axis: (n, n, n_heads).

file: masks.py
breaks: alibi_bias
"""

import numpy as np

def alibi_bias(n, n_heads):
    rel = np.arange(n)[None, :] - np.arange(n)[:, None]
    return rel[..., None] * alibi_slopes(n_heads)
