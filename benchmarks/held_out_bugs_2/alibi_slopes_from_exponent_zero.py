"""The exponents start at 0: the first head's slope is 1.

file: masks.py
breaks: alibi_slopes
"""

import numpy as np


def alibi_slopes(n_heads):
    base = 2 ** int(np.floor(np.log2(n_heads)))
    first = 2.0 ** (-8.0 * np.arange(base) / base)
    extra = 2.0 ** (-8.0 * np.arange(2 * base) / (2 * base))[0::2][: n_heads - base]
    return np.concatenate([first, extra])
