"""Compares f(P X) with f(X): the output is never permuted.

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

    return float(np.linalg.norm(f(x[perm]) - f(x)))
