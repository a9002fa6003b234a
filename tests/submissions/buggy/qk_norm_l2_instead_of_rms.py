"""Divides by the L2 norm (the root of the sum of squares), not the root mean square.

file: scores.py
breaks: qk_norm_scores
"""

import numpy as np


def qk_norm_scores(q, k, gain_q, gain_k, eps=1e-6):
    q = gain_q * q / np.sqrt((q * q).sum(axis=-1, keepdims=True) + eps)
    k = gain_k * k / np.sqrt((k * k).sum(axis=-1, keepdims=True) + eps)
    return q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
