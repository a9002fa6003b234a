"""Returns the largest absolute difference instead of the Frobenius norm.

file: positions.py
breaks: equivariance_gap
"""

import numpy as np


def equivariance_gap(x, perm, w_q, w_k, w_v, add_positions=False):
    perm = np.asarray(perm)
    pe = sinusoidal_encoding(*x.shape) if add_positions else 0.0
    moved = self_attention(x[perm] + pe, w_q, w_k, w_v)[0]
    kept = self_attention(x + pe, w_q, w_k, w_v)[0][perm]
    return float(np.max(np.abs(moved - kept)))
