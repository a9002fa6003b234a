"""The norms are taken without keepdims, so they broadcast along the feature axis.

file: scores.py
breaks: cosine_scores
"""

import numpy as np


def cosine_scores(q, k, temperature):
    q_unit = q / np.maximum(np.linalg.norm(q, axis=-1), 1e-8)
    k_unit = k / np.maximum(np.linalg.norm(k, axis=-1), 1e-8)
    return q_unit @ np.swapaxes(k_unit, -1, -2) / temperature
