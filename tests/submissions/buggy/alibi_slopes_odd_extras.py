"""Takes the extra slopes at [1::2], reading "the 1st, 3rd, ..." as indices 1, 3, ...

file: masks.py
breaks: alibi_slopes
"""

import numpy as np


def alibi_slopes(n_heads):
    def slopes_for(n):
        return 2.0 ** (-8.0 * np.arange(1, n + 1) / n)

    n_pow = 2 ** int(np.floor(np.log2(n_heads)))
    if n_pow == n_heads:
        return slopes_for(n_heads)
    extra = slopes_for(2 * n_pow)[1::2]
    return np.concatenate([slopes_for(n_pow), extra[: n_heads - n_pow]])
