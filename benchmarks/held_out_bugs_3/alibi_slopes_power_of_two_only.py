"""Uses 2^(-8h/n) for every n, not only for powers of two.

file: masks.py
breaks: alibi_slopes
"""

import numpy as np

def alibi_slopes(n_heads):
    h = np.arange(1, n_heads + 1)
    return 2.0 ** (-8 * h / n_heads)
