"""Takes exp of the whole input inside np.where: overflows (and warns) for large positive x.

file: linear_attention.py
breaks: elu_feature_map
"""

import numpy as np

def elu_feature_map(x):
    return np.where(x > 0, x + 1, np.exp(x))
