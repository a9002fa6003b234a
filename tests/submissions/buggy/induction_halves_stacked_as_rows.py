"""Concatenates without an axis: the copy becomes more rows.

file: induction.py
breaks: repeated_halves
"""

import numpy as np


def repeated_halves(first_halves):
    return np.concatenate((first_halves, first_halves))
