"""Never checks the length: a sequence longer than the table raises numpy's IndexError, not ValueError.

file: positions.py
breaks: learned_positions
"""

import numpy as np


def learned_positions(token_ids, token_table, position_table):
    token_ids = np.asarray(token_ids)
    return token_table[token_ids] + position_table[np.arange(token_ids.shape[-1])]
