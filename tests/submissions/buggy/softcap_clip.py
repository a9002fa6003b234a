"""Clips the scores to ±cap instead of squashing them with tanh.

file: scores.py
breaks: softcap
"""

import numpy as np


def softcap(scores, cap):
    return np.minimum(np.maximum(scores, -cap), cap)
