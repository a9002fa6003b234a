"""Normalises q and k, then forgets the 1/√d of the dot product.

file: scores.py
breaks: qk_norm_scores
"""

import numpy as np


def qk_norm_scores(q, k, gain_q, gain_k, eps=1e-6):
    q = q / np.sqrt(np.mean(q**2, axis=-1, keepdims=True) + eps) * gain_q
    k = k / np.sqrt(np.mean(k**2, axis=-1, keepdims=True) + eps) * gain_k
    return np.einsum("...id,...jd->...ij", q, k)
