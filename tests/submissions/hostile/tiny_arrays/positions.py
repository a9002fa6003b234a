"""A table of one zero, RoPE of one zero, and a gap of 0.

file: positions.py
"""


def sinusoidal_encoding(n_positions, d_model):
    return np.zeros(1)


def rope(x, positions, theta=10000.0):
    return np.zeros(1)


def equivariance_gap(x, perm, w_q, w_k, w_v, add_positions=False):
    return 0.0
