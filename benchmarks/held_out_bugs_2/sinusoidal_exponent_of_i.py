"""The exponent uses the pair index i over d_model, i / d_model, not 2i / d_model.

file: positions.py
breaks: sinusoidal_encoding
"""

import numpy as np


def sinusoidal_encoding(n_positions, d_model):
    i = np.arange(d_model // 2)
    angles = np.arange(n_positions)[:, None] / np.power(10000.0, i / d_model)[None, :]
    table = np.zeros((n_positions, d_model))
    table[:, 0::2] = np.sin(angles)
    table[:, 1::2] = np.cos(angles)
    return table
