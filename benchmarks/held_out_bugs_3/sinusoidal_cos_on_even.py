"""Fills the even columns with cos and the odd ones with sin.

file: positions.py
breaks: sinusoidal_encoding
"""

import numpy as np

def sinusoidal_encoding(n_positions, d_model):
    pe = np.zeros((n_positions, d_model))
    pos = np.arange(n_positions)[:, None]
    div = np.power(10000.0, np.arange(0, d_model, 2) / d_model)
    pe[:, 0::2] = np.cos(pos / div)
    pe[:, 1::2] = np.sin(pos / div)
    return pe
