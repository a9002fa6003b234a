"""Multiplies by the cap inside the tanh as well as outside.

file: scores.py
breaks: softcap
"""

import numpy as np


def softcap(scores, cap):
    return cap * np.tanh(cap * scores)
