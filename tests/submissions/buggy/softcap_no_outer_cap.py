"""Divides by cap inside the tanh but never multiplies back: the result lies in (−1, 1).

file: scores.py
breaks: softcap
"""

import numpy as np


def softcap(scores, cap):
    return np.tanh(np.asarray(scores) / cap)
