"""Takes the first slopes of twice as many heads, without skipping every other one.

file: masks.py
breaks: alibi_slopes
"""

import math

import numpy as np


def alibi_slopes(n_heads):
    def slopes_for(n):
        return np.array([2.0 ** (-8.0 * h / n) for h in range(1, n + 1)])

    n_pow = 2 ** math.floor(math.log2(n_heads))
    if n_pow == n_heads:
        return slopes_for(n_heads)
    return np.concatenate([slopes_for(n_pow), slopes_for(2 * n_pow)[: n_heads - n_pow]])
