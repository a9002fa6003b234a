"""Multiplies the position by 10000^(2i/d).

file: positions.py
breaks: sinusoidal_encoding
"""

import numpy as np


def sinusoidal_encoding(n_positions, d_model):
    freq = np.power(10000.0, np.arange(0, d_model, 2) / d_model)
    angles = np.arange(n_positions)[:, None] * freq
    table = np.zeros((n_positions, d_model))
    table[:, 0::2] = np.sin(angles)
    table[:, 1::2] = np.cos(angles)
    return table
