"""Computes one angle per column, so each cosine column uses the next frequency.

file: positions.py
breaks: sinusoidal_encoding
"""

import numpy as np


def sinusoidal_encoding(n_positions, d_model):
    pos = np.arange(n_positions).reshape(-1, 1)
    col = np.arange(d_model).reshape(1, -1)
    angle = pos / np.power(10000.0, col / d_model)
    pe = np.zeros((n_positions, d_model))
    pe[:, 0::2] = np.sin(angle[:, 0::2])
    pe[:, 1::2] = np.cos(angle[:, 1::2])
    return pe
