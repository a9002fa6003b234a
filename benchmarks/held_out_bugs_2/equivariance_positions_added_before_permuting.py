"""Adds the position table before permuting, so positions travel with their tokens.

file: positions.py
breaks: equivariance_gap
"""

import numpy as np


def equivariance_gap(x, perm, w_q, w_k, w_v, add_positions=False):
    perm = np.asarray(perm)
    if add_positions:
        x = x + sinusoidal_encoding(x.shape[0], x.shape[1])
    out = self_attention(x, w_q, w_k, w_v)[0]
    return float(np.linalg.norm(self_attention(x[perm], w_q, w_k, w_v)[0] - out[perm]))
