"""The mean square over axis -2, the tokens.

file: scores.py
breaks: qk_norm_scores
"""

import numpy as np

def qk_norm_scores(q, k, gain_q, gain_k, eps=1e-6):
    q = q / np.sqrt((q**2).mean(axis=-2, keepdims=True) + eps) * gain_q
    k = k / np.sqrt((k**2).mean(axis=-2, keepdims=True) + eps) * gain_k
    return q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
