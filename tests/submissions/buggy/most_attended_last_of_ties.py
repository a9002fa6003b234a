"""The last of equal maxima, through the reversed row.

file: heads.py
breaks: most_attended_token
"""

import numpy as np

def most_attended_token(weights):
    flipped = np.flip(weights, axis=-1)
    return weights.shape[-1] - 1 - flipped.argmax(axis=-1)
