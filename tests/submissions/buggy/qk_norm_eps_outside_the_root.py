"""Adds eps after the square root instead of under it.

file: scores.py
breaks: qk_norm_scores
"""

import numpy as np


def qk_norm_scores(q, k, gain_q, gain_k, eps=1e-6):
    rms_q = np.sqrt(np.mean(q**2, axis=-1, keepdims=True))
    rms_k = np.sqrt(np.mean(k**2, axis=-1, keepdims=True))
    q = q / (rms_q + eps) * gain_q
    k = k / (rms_k + eps) * gain_k
    return q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
