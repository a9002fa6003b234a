"""Multiplies the cosines by the temperature instead of dividing.

file: scores.py
breaks: cosine_scores
"""

import numpy as np


def cosine_scores(q, k, temperature):
    qn = q / np.maximum(np.sqrt((q**2).sum(-1, keepdims=True)), 1e-8)
    kn = k / np.maximum(np.sqrt((k**2).sum(-1, keepdims=True)), 1e-8)
    return temperature * (qn @ np.swapaxes(kn, -1, -2))
