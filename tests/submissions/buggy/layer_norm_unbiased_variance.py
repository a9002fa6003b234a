"""The variance with ddof=1, as torch.var's default.

file: induction.py
breaks: layer_norm
"""

import numpy as np


def layer_norm(x, gamma, beta, eps=1e-5):
    centred = x - x.mean(axis=-1, keepdims=True)
    std = np.sqrt(centred.var(axis=-1, ddof=1, keepdims=True) + eps)
    return gamma * centred / std + beta
