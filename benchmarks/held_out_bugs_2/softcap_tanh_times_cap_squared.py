"""Divides by cap outside the tanh as well as multiplying: tanh(s / cap) only, scaled back wrongly.

file: scores.py
breaks: softcap
"""

import numpy as np


def softcap(scores, cap):
    return np.tanh(scores / cap) * cap / cap
