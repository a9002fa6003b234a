"""Raises ValueError when T equals the table's length, which the table does cover.

file: positions.py
breaks: learned_positions
"""

import numpy as np

def learned_positions(token_ids, token_table, position_table):
    T = np.shape(token_ids)[-1]
    if T >= position_table.shape[0]:
        raise ValueError(f"sequence of {T} tokens is longer than the {position_table.shape[0]} learned positions")
    return token_table[token_ids] + position_table[:T]
