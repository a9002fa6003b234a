"""softmax returns 15 MB of ones, whatever it is given: under the 64 MiB one array may be, and
wrong every time. A class's grading process once kept every such result of a submission (4 GB).

file: softmax.py
"""

import numpy as np


def softmax(x, axis=-1):
    return np.ones((1000, 1875))
