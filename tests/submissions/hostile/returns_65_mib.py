"""softmax returns 65 MiB of ones, whatever it is given: more than one array may be. It is the
student's error, named, and no such array reaches the grader.

file: softmax.py
"""

import numpy as np


def softmax(x, axis=-1):
    return np.ones(65 << 17)
