"""Takes the last of equal maxima (argmax of the reversed row, mapped back).

file: heads.py
breaks: most_attended_token
"""

import numpy as np


def most_attended_token(weights):
    n = weights.shape[-1]
    return n - 1 - np.argmax(weights[..., ::-1], axis=-1)
