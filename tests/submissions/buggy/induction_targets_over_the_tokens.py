"""A mask over the 2L tokens: True at the repeat's tokens after its first.

file: induction.py
breaks: induction_targets
"""

import numpy as np


def induction_targets(half):
    positions = np.arange(2 * half)
    return positions >= half + 1
