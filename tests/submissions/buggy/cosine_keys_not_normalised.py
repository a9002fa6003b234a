"""Normalises the queries but forgets the keys: long keys win.

file: scores.py
breaks: cosine_scores
"""

import numpy as np


def cosine_scores(q, k, temperature):
    q_norm = np.linalg.norm(q, axis=-1, keepdims=True)
    q = q / np.maximum(q_norm, 1e-8)
    return np.matmul(q, np.swapaxes(k, -1, -2)) / temperature
