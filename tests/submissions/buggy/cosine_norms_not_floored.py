"""Divides by the norms as they are: a zero query or key gives 0 / 0 = nan.

file: scores.py
breaks: cosine_scores
"""

import numpy as np


def cosine_scores(q, k, temperature):
    q_len = np.sqrt(np.sum(q * q, axis=-1, keepdims=True))
    k_len = np.sqrt(np.sum(k * k, axis=-1, keepdims=True))
    return (q / q_len) @ np.swapaxes(k / k_len, -1, -2) / temperature
