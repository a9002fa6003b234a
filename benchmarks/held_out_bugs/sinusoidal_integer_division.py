"""(2i // d_model) in the exponent: integer division makes every exponent 0.

file: positions.py
breaks: sinusoidal_encoding
"""

import numpy as np


def sinusoidal_encoding(n_positions, d_model):
    p = np.arange(n_positions)[:, None]
    two_i = np.arange(0, d_model, 2)[None, :]
    angles = p / np.power(10000.0, two_i // d_model)
    table = np.zeros((n_positions, d_model))
    table[:, 0::2] = np.sin(angles)
    table[:, 1::2] = np.cos(angles)
    return table
