"""sinusoidal_encoding returns the table 0.01% too large, in float32: float32's looser tolerance
would let it pass, though the function has no float32 input and its contract is float64.

file: positions.py
"""


def sinusoidal_encoding(n_positions, d_model):
    positions = np.arange(n_positions)[:, None]
    angles = positions / 10000.0 ** (np.arange(0, d_model, 2)[None, :] / d_model)
    table = np.empty((n_positions, d_model))
    table[:, 0::2] = np.sin(angles)
    table[:, 1::2] = np.cos(angles)
    return (table * 1.0001).astype(np.float32)
