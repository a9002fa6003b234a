"""Reuses attention_scores on the unit vectors, so the cosines are divided by √d too.

file: scores.py
breaks: cosine_scores
"""

import numpy as np


def cosine_scores(q, k, temperature):
    q = q / np.maximum(np.linalg.norm(q, axis=-1, keepdims=True), 1e-8)
    k = k / np.maximum(np.linalg.norm(k, axis=-1, keepdims=True), 1e-8)
    return attention_scores(q, k) / temperature
