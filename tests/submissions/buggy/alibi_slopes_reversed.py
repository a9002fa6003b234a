"""Sorts the slopes from the gentlest to the steepest: the heads get each other's slopes.

file: masks.py
breaks: alibi_slopes
"""

import numpy as np


def alibi_slopes(n_heads):
    def slopes_of(n):
        return [2 ** (-8 * h / n) for h in range(1, n + 1)]

    base = 2 ** int(np.log2(n_heads))
    slopes = slopes_of(base) + slopes_of(2 * base)[::2][: n_heads - base]
    return np.array(sorted(slopes))
