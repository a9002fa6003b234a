"""Adds the positions before permuting, so they travel with the tokens and the gap stays 0.

file: positions.py
breaks: equivariance_gap
"""


def equivariance_gap(x, perm, w_q, w_k, w_v, add_positions=False):
    perm = np.asarray(perm)
    if add_positions:
        x = x + sinusoidal_encoding(*x.shape)
    out = self_attention(x, w_q, w_k, w_v)[0]
    return float(np.linalg.norm(self_attention(x[perm], w_q, w_k, w_v)[0] - out[perm]))
