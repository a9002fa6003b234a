"""T >= P raises: a sequence exactly as long as the table is refused.

file: positions.py
breaks: learned_positions
"""

import numpy as np


def learned_positions(token_ids, token_table, position_table):
    token_ids = np.asarray(token_ids)
    t = token_ids.shape[-1]
    if t >= len(position_table):
        raise ValueError(f"sequence of {t} tokens is too long for {len(position_table)} positions")
    return token_table[token_ids] + position_table[:t]
