"""Multiplies by the gain first and normalises the product, so the gain is divided out again.

file: scores.py
breaks: qk_norm_scores
"""

import numpy as np


def qk_norm_scores(q, k, gain_q, gain_k, eps=1e-6):
    def rms(x, g):
        x = x * g
        return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps)

    return rms(q, gain_q) @ np.swapaxes(rms(k, gain_k), -1, -2) / np.sqrt(q.shape[-1])
