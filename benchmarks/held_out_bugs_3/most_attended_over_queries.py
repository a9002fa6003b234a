"""Takes the argmax along axis -2 (over the queries) instead of over the keys.

file: heads.py
breaks: most_attended_token
"""

import numpy as np

def most_attended_token(weights):
    return np.argmax(weights, axis=-2)
