"""Squashes only the scores already beyond the cap and leaves the others as they are.

file: scores.py
breaks: softcap
"""

import numpy as np


def softcap(scores, cap):
    return np.where(np.abs(scores) > cap, cap * np.tanh(scores / cap), scores)
