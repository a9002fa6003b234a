"""Divides by the L2 norm (sum of squares) instead of the RMS (mean of squares).

file: scores.py
breaks: qk_norm_scores
"""

import numpy as np

def qk_norm_scores(q, k, gain_q, gain_k, eps=1e-6):
    qn = q / np.sqrt(np.sum(q**2, axis=-1, keepdims=True) + eps) * gain_q
    kn = k / np.sqrt(np.sum(k**2, axis=-1, keepdims=True) + eps) * gain_k
    return qn @ np.swapaxes(kn, -1, -2) / np.sqrt(q.shape[-1])
