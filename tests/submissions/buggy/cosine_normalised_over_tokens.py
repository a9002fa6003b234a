"""Takes the norms over the token axis instead of the feature axis.

file: scores.py
breaks: cosine_scores
"""

import numpy as np


def cosine_scores(q, k, temperature):
    q = q / np.maximum(np.linalg.norm(q, axis=-2, keepdims=True), 1e-8)
    k = k / np.maximum(np.linalg.norm(k, axis=-2, keepdims=True), 1e-8)
    return q @ np.swapaxes(k, -1, -2) / temperature
