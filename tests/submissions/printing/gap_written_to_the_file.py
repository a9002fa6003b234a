"""Right, and writes what it works out straight to the file behind stdout (os.write), past sys.stdout.

file: positions.py
"""

import os

import numpy as np


def equivariance_gap(x, perm, w_q, w_k, w_v, add_positions=False):
    perm = np.asarray(perm)
    n_tokens, d_model = x.shape

    def attend(tokens):
        if add_positions:
            tokens = tokens + sinusoidal_encoding(n_tokens, d_model)
        return self_attention(tokens, w_q, w_k, w_v)[0]

    gap = float(np.linalg.norm(attend(x[perm]) - attend(x)[perm]))
    os.write(1, f"gap for {n_tokens} tokens: {gap:.3g}\n".encode())
    return gap
