"""The table is np.zeros_like of the integer positions: every value truncated.

file: positions.py
breaks: sinusoidal_encoding
"""

import numpy as np

def sinusoidal_encoding(n_positions, d_model):
    pos = np.arange(n_positions)[:, None]
    div = 10000.0 ** (np.arange(0, d_model, 2) / d_model)
    pe = np.zeros_like(pos * np.ones((1, d_model), dtype=int))
    pe[:, 0::2] = np.sin(pos / div)
    pe[:, 1::2] = np.cos(pos / div)
    return pe
