"""Takes the max without keepdims: it broadcasts against the wrong axis (right only where it happens to line up).

file: softmax.py
breaks: softmax
"""

import numpy as np

def softmax(x, axis=-1):
    e = np.exp(x - np.max(x, axis=axis))
    return e / np.sum(e, axis=axis, keepdims=True)
