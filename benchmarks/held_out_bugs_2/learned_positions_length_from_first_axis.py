"""Takes T from len(token_ids): the batch size once there is a batch axis.

file: positions.py
breaks: learned_positions
"""

import numpy as np


def learned_positions(token_ids, token_table, position_table):
    token_ids = np.asarray(token_ids)
    t = len(token_ids)
    if t > len(position_table):
        raise ValueError("too long")
    return token_table[token_ids] + position_table[:t]
