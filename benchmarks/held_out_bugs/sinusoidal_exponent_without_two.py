"""10000 ** (i / d_model) with i = 0, 1, 2, ...: the 2 of 2i left out.

file: positions.py
breaks: sinusoidal_encoding
"""

import numpy as np


def sinusoidal_encoding(n_positions, d_model):
    p = np.arange(n_positions)[:, None]
    i = np.arange(d_model // 2)[None, :]
    angles = p / 10000.0 ** (i / d_model)
    table = np.zeros((n_positions, d_model))
    table[:, 0::2] = np.sin(angles)
    table[:, 1::2] = np.cos(angles)
    return table
