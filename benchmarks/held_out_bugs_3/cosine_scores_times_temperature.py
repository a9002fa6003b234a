"""Multiplies by the temperature instead of dividing by it.

file: scores.py
breaks: cosine_scores
"""

import numpy as np

def cosine_scores(q, k, temperature):
    qn = q / np.maximum(np.linalg.norm(q, axis=-1, keepdims=True), 1e-8)
    kn = k / np.maximum(np.linalg.norm(k, axis=-1, keepdims=True), 1e-8)
    return (qn @ np.swapaxes(kn, -1, -2)) * temperature
