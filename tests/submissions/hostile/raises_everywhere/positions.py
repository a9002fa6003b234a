"""Every function of positions.py raises ValueError at once: it computes nothing. A refusal the
hidden tests ask for passes, and earns nothing: such a test is paid only with the values of its
function.

file: positions.py
"""


def sinusoidal_encoding(n_positions, d_model):
    raise ValueError("nothing computed")


def rope(x, positions, theta=10000.0):
    raise ValueError("nothing computed")


def equivariance_gap(x, perm, w_q, w_k, w_v, add_positions=False):
    raise ValueError("nothing computed")


def learned_positions(token_ids, token_table, position_table):
    raise ValueError("nothing computed")


def rope_half_split(x, positions, theta=10000.0):
    raise ValueError("nothing computed")


def rope_frequencies(head_dim, theta=10000.0, scaling=None, factor=1.0):
    raise ValueError("nothing computed")
