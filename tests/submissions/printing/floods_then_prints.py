"""Right, and writes 300 kB straight to the file behind stdout on its first call, then a line per call.

file: positions.py
"""

import os

import numpy as np

_flooded = []


def equivariance_gap(x, perm, w_q, w_k, w_v, add_positions=False):
    perm = np.asarray(perm)
    n_tokens, d_model = x.shape

    def attend(tokens):
        if add_positions:
            tokens = tokens + sinusoidal_encoding(n_tokens, d_model)
        return self_attention(tokens, w_q, w_k, w_v)[0]

    if not _flooded:
        _flooded.append(os.write(1, b"~" * 300_000 + b"\n"))
    gap = float(np.linalg.norm(attend(x[perm]) - attend(x)[perm]))
    print(f"gap for {n_tokens} tokens: {gap:.3g}")
    return gap
