"""Looks the positions up by token id, as if the position table were a second token table.

file: positions.py
breaks: learned_positions
"""

import numpy as np


def learned_positions(token_ids, token_table, position_table):
    if np.shape(token_ids)[-1] > len(position_table):
        raise ValueError("the sequence is longer than the position table")
    return np.take(token_table, token_ids, axis=0) + np.take(position_table, token_ids, axis=0)
