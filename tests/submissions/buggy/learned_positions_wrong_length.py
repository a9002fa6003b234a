"""Reads the sequence length off the first axis (len of the ids), which is the batch for a batch.

file: positions.py
breaks: learned_positions
"""

import numpy as np


def learned_positions(token_ids, token_table, position_table):
    token_ids = np.asarray(token_ids)
    T = len(token_ids)
    if T > len(position_table):
        raise ValueError("sequence longer than the position table")
    return token_table[token_ids] + position_table[:T]
