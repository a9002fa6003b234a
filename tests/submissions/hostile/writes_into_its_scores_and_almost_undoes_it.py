"""softmax subtracts the max from the scores it is given, in place, and adds it back before it
returns: the caller's scores come back a rounding (1e-16) off. "Leaves its input unchanged" asks
for exactly the same array; the replay compared the inputs after the call within its tolerance
(1e-10) and passed the test in a class, which fails alone.

file: softmax.py
"""

import numpy as np


def softmax(x, axis=-1):
    m = np.max(x, axis=axis, keepdims=True)
    x -= m
    e = np.exp(x)
    x += m
    return e / e.sum(axis=axis, keepdims=True)
