"""Compares f(PX) with f(X).

file: positions.py
breaks: equivariance_gap
"""

import numpy as np


def equivariance_gap(x, perm, w_q, w_k, w_v, add_positions=False):
    perm = np.asarray(perm)
    pe = sinusoidal_encoding(*x.shape) if add_positions else 0.0
    permuted = self_attention(x[perm] + pe, w_q, w_k, w_v)[0]
    original = self_attention(x + pe, w_q, w_k, w_v)[0]
    return float(np.linalg.norm(permuted - original))
