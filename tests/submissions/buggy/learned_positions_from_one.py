"""Numbers the positions from 1, so slot t reads row t + 1 of the table.

file: positions.py
breaks: learned_positions
"""

import numpy as np


def learned_positions(token_ids, token_table, position_table):
    token_ids = np.asarray(token_ids)
    T = token_ids.shape[-1]
    if T > position_table.shape[0]:
        raise ValueError(f"{T} tokens but only {position_table.shape[0]} positions")
    positions = np.arange(1, T + 1)
    return token_table[token_ids] + position_table[positions]
