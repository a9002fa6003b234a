"""Caps the scores in place with out=.

file: scores.py
breaks: softcap
"""

import numpy as np


def softcap(scores, cap):
    np.divide(scores, cap, out=scores)
    np.tanh(scores, out=scores)
    return scores * cap
