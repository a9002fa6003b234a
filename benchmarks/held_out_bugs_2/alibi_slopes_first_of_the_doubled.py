"""For a count that is not a power of two, takes the first n slopes of the next power of two.

file: masks.py
breaks: alibi_slopes
"""

import numpy as np


def alibi_slopes(n_heads):
    power = 2 ** int(np.ceil(np.log2(n_heads)))
    return 2.0 ** (-8.0 * np.arange(1, power + 1) / power)[:n_heads]
