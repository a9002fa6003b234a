"""The norms without keepdims: they broadcast along the features.

file: scores.py
breaks: cosine_scores
"""

import numpy as np

def cosine_scores(q, k, temperature):
    q_len = np.maximum(np.linalg.norm(q, axis=-1), 1e-8)
    k_len = np.maximum(np.linalg.norm(k, axis=-1), 1e-8)
    return (q / q_len) @ np.swapaxes(k / k_len, -1, -2) / temperature
