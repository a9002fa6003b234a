"""Writes the plain elu (exp(x) - 1 for x <= 0, x above) and forgets the + 1.

file: linear_attention.py
breaks: elu_feature_map
"""

import numpy as np

def elu_feature_map(x):
    return np.where(x > 0, x, np.exp(np.minimum(x, 0)) - 1)
