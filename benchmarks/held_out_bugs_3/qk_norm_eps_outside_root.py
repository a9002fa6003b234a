"""Adds eps after the square root instead of inside it.

file: scores.py
breaks: qk_norm_scores
"""

import numpy as np

def qk_norm_scores(q, k, gain_q, gain_k, eps=1e-6):
    def rms(x, g):
        return x / (np.sqrt(np.mean(x**2, axis=-1, keepdims=True)) + eps) * g
    qn, kn = rms(q, gain_q), rms(k, gain_k)
    return qn @ np.swapaxes(kn, -1, -2) / np.sqrt(q.shape[-1])
