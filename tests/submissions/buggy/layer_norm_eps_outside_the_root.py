"""eps added to the standard deviation.

file: induction.py
breaks: layer_norm
"""

import numpy as np


def layer_norm(x, gamma, beta, eps=1e-5):
    centred = x - x.mean(axis=-1, keepdims=True)
    return gamma * centred / (x.std(axis=-1, keepdims=True) + eps) + beta
