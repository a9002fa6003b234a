"""Returns the squared norm (the sum of squares), not the norm.

file: positions.py
breaks: equivariance_gap
"""

import numpy as np


def equivariance_gap(x, perm, w_q, w_k, w_v, add_positions=False):
    perm = np.asarray(perm)
    t, d = x.shape

    def f(tokens):
        if add_positions:
            tokens = tokens + sinusoidal_encoding(t, d)
        return self_attention(tokens, w_q, w_k, w_v)[0]

    diff = f(x[perm]) - f(x)[perm]
    return float(np.sum(diff**2))
