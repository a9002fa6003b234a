"""np.argmax without an axis: one index into the flattened array.

file: heads.py
breaks: most_attended_token
"""

import numpy as np


def most_attended_token(weights):
    return np.argmax(weights)
