"""Never checks the shape: non-square weights give a number instead of ValueError.

file: heads.py
breaks: previous_token_score
"""

import numpy as np


def previous_token_score(weights):
    return np.diagonal(weights, offset=-1, axis1=-2, axis2=-1).mean(axis=-1)
