"""A table of zeros, RoPE that returns its input, and a gap of 0.

file: positions.py
"""


def sinusoidal_encoding(n_positions, d_model):
    return np.zeros((n_positions, d_model))


def rope(x, positions, theta=10000.0):
    return x


def equivariance_gap(x, perm, w_q, w_k, w_v, add_positions=False):
    return 0.0
