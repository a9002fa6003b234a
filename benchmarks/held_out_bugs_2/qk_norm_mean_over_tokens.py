"""The root mean square is taken over the tokens (axis -2) instead of the features.

file: scores.py
breaks: qk_norm_scores
"""

import numpy as np


def qk_norm_scores(q, k, gain_q, gain_k, eps=1e-6):
    qn = q / np.sqrt(np.mean(q**2, axis=-2, keepdims=True) + eps) * gain_q
    kn = k / np.sqrt(np.mean(k**2, axis=-2, keepdims=True) + eps) * gain_k
    return qn @ np.swapaxes(kn, -1, -2) / np.sqrt(q.shape[-1])
