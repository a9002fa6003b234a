"""A fixed 1e-6 in the root, whatever eps is given.

file: scores.py
breaks: qk_norm_scores
"""

import numpy as np

def qk_norm_scores(q, k, gain_q, gain_k, eps=1e-6):
    def rms(x, g):
        return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + 1e-6) * g

    return rms(q, gain_q) @ np.swapaxes(rms(k, gain_k), -1, -2) / np.sqrt(q.shape[-1])
