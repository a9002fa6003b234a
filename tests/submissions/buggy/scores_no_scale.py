"""Forgets the 1/√d_k scale.

file: scores.py
breaks: attention_scores
"""

import numpy as np


def attention_scores(q, k):
    return q @ np.swapaxes(k, -1, -2)
