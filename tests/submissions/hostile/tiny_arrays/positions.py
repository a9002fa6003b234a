"""A table of one zero, RoPE of one zero (both layouts), learned positions and frequencies of one zero, and a gap of 0.

file: positions.py
"""


def sinusoidal_encoding(n_positions, d_model):
    return np.zeros(1)


def rope(x, positions, theta=10000.0):
    return np.zeros(1)


def equivariance_gap(x, perm, w_q, w_k, w_v, add_positions=False):
    return 0.0


def learned_positions(token_ids, token_table, position_table):
    return np.zeros(1)


def rope_half_split(x, positions, theta=10000.0):
    return np.zeros(1)


def rope_frequencies(head_dim, theta=10000.0, scaling=None, factor=1.0):
    return np.zeros(1)
