"""Right, and prints what it works out along the way (print: through sys.stdout).

file: positions.py
"""

import numpy as np


def equivariance_gap(x, perm, w_q, w_k, w_v, add_positions=False):
    perm = np.asarray(perm)
    n_tokens, d_model = x.shape

    def attend(tokens):
        if add_positions:
            tokens = tokens + sinusoidal_encoding(n_tokens, d_model)
        return self_attention(tokens, w_q, w_k, w_v)[0]

    gap = float(np.linalg.norm(attend(x[perm]) - attend(x)[perm]))
    print(f"gap for {n_tokens} tokens: {gap:.3g}")
    return gap
