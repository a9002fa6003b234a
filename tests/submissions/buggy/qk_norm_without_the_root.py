"""Divides by the mean square and forgets its square root.

file: scores.py
breaks: qk_norm_scores
"""

import numpy as np


def qk_norm_scores(q, k, gain_q, gain_k, eps=1e-6):
    def rms_norm(x, gain):
        ms = np.mean(x * x, axis=-1, keepdims=True)
        return x / (ms + eps) * gain

    d = q.shape[-1]
    return rms_norm(q, gain_q) @ np.swapaxes(rms_norm(k, gain_k), -1, -2) / np.sqrt(d)
