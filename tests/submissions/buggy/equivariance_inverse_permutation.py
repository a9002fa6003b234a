"""Permutes f(X) with argsort(perm), the inverse permutation, on one side only.

file: positions.py
breaks: equivariance_gap
"""

import numpy as np


def equivariance_gap(x, perm, w_q, w_k, w_v, add_positions=False):
    perm = np.asarray(perm)

    def f(tokens):
        if add_positions:
            tokens = tokens + sinusoidal_encoding(*tokens.shape)
        return self_attention(tokens, w_q, w_k, w_v)[0]

    return float(np.linalg.norm(f(x[perm]) - f(x)[np.argsort(perm)]))
