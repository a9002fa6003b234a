"""Adds slope · (i − j): the further back a key, the larger its score.

file: masks.py
breaks: alibi_bias
"""

import numpy as np


def alibi_bias(n, n_heads):
    slopes = alibi_slopes(n_heads)
    positions = np.arange(n)
    return slopes[:, None, None] * (positions[:, None] - positions[None, :])
