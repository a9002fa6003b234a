"""T >= P raises: a sequence exactly as long as the table is refused.

file: positions.py
breaks: learned_positions
"""

import numpy as np

def learned_positions(token_ids, token_table, position_table):
    token_ids = np.asarray(token_ids)
    n = token_ids.shape[-1]
    if n >= position_table.shape[0]:
        raise ValueError(f"{n} tokens do not fit a table of {position_table.shape[0]} positions")
    return token_table[token_ids] + position_table[:n]
