"""Refuses anything but a 2-D query matrix with its own ValueError.

file: scores.py
breaks: attention_scores
"""

import numpy as np


def attention_scores(q, k):
    if q.ndim != 2 or k.ndim != 2:
        raise ValueError("attention_scores expects 2-D q and k")
    return q @ k.T / np.sqrt(q.shape[-1])
