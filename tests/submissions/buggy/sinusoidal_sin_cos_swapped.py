"""Puts cos in the even columns and sin in the odd ones.

file: positions.py
breaks: sinusoidal_encoding
"""


def sinusoidal_encoding(n_positions, d_model):
    angles = np.arange(n_positions)[:, None] / 10000.0 ** (np.arange(0, d_model, 2)[None, :] / d_model)
    table = np.empty((n_positions, d_model))
    table[:, 0::2] = np.cos(angles)
    table[:, 1::2] = np.sin(angles)
    return table
