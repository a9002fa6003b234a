"""A table of zeros, RoPE that returns its input, a gap of 0; learned positions of zeros (refusing a long
sequence, as the contract asks), half-split RoPE that returns its input, frequencies of ones.

file: positions.py
"""


def sinusoidal_encoding(n_positions, d_model):
    return np.zeros((n_positions, d_model))


def rope(x, positions, theta=10000.0):
    return x


def equivariance_gap(x, perm, w_q, w_k, w_v, add_positions=False):
    return 0.0


def learned_positions(token_ids, token_table, position_table):
    token_ids = np.asarray(token_ids)
    if token_ids.shape[-1] > len(position_table):
        raise ValueError("longer than the table")
    return np.zeros(token_ids.shape + token_table.shape[-1:])


def rope_half_split(x, positions, theta=10000.0):
    return x


def rope_frequencies(head_dim, theta=10000.0, scaling=None, factor=1.0):
    if scaling not in (None, "linear", "ntk") or (scaling == "ntk" and head_dim < 4):
        raise ValueError("cannot scale")
    return np.ones(head_dim // 2)
