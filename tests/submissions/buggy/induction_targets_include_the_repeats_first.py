"""Counts the prediction of the repeat's first token too.

file: induction.py
breaks: induction_targets
"""

import numpy as np


def induction_targets(half):
    mask = np.zeros(2 * half - 1, dtype=bool)
    mask[half - 1 :] = True
    return mask
