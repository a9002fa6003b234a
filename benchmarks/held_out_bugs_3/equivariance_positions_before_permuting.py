"""Adds the positions to X before permuting it, so they travel with the tokens and the gap is 0.

file: positions.py
breaks: equivariance_gap
"""

import numpy as np

def equivariance_gap(x, perm, w_q, w_k, w_v, add_positions=False):
    if add_positions:
        x = x + sinusoidal_encoding(x.shape[0], x.shape[1])
    px = x[perm]
    out_p, _ = self_attention(px, w_q, w_k, w_v)
    out, _ = self_attention(x, w_q, w_k, w_v)
    return float(np.linalg.norm(out_p - out[perm]))
