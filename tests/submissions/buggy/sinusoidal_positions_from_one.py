"""Counts positions from 1, so row p holds position p + 1.

file: positions.py
breaks: sinusoidal_encoding
"""

import numpy as np


def sinusoidal_encoding(n_positions, d_model):
    pe = np.zeros((n_positions, d_model))
    for pos in range(1, n_positions + 1):
        for i in range(0, d_model, 2):
            angle = pos / 10000 ** (i / d_model)
            pe[pos - 1, i] = np.sin(angle)
            pe[pos - 1, i + 1] = np.cos(angle)
    return pe
