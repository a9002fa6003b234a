"""Measures the gap with np.linalg.norm(..., 2): the spectral norm of the matrix, not the Frobenius norm.

file: positions.py
breaks: equivariance_gap
"""

import numpy as np


def equivariance_gap(x, perm, w_q, w_k, w_v, add_positions=False):
    T, d = x.shape
    pe = sinusoidal_encoding(T, d) if add_positions else np.zeros_like(x)
    out_of_permuted = self_attention(x[perm] + pe, w_q, w_k, w_v)[0]
    permuted_out = self_attention(x + pe, w_q, w_k, w_v)[0][perm]
    return float(np.linalg.norm(out_of_permuted - permuted_out, 2))
