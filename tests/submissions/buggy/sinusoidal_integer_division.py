"""// in the exponent.

file: positions.py
breaks: sinusoidal_encoding
"""

import numpy as np


def sinusoidal_encoding(n_positions, d_model):
    pe = np.zeros((n_positions, d_model))
    for p in range(n_positions):
        for i in range(0, d_model, 2):
            angle = p / 10000 ** (i // d_model)
            pe[p, i] = np.sin(angle)
            pe[p, i + 1] = np.cos(angle)
    return pe
