"""Each token written twice in a row (a a b b), not the half then the half again.

file: induction.py
breaks: repeated_halves
"""

import numpy as np


def repeated_halves(first_halves):
    return np.repeat(first_halves, 2, axis=-1)
