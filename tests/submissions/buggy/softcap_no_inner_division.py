"""Forgets to divide the scores by cap inside the tanh.

file: scores.py
breaks: softcap
"""

import numpy as np


def softcap(scores, cap):
    return np.tanh(scores) * cap
