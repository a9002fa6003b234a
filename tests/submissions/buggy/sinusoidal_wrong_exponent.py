"""Uses the pair index i instead of 2i in the exponent: 10000^(i/d_model).

file: positions.py
breaks: sinusoidal_encoding
"""


def sinusoidal_encoding(n_positions, d_model):
    angles = np.arange(n_positions)[:, None] / 10000.0 ** (np.arange(d_model // 2)[None, :] / d_model)
    table = np.empty((n_positions, d_model))
    table[:, 0::2] = np.sin(angles)
    table[:, 1::2] = np.cos(angles)
    return table
