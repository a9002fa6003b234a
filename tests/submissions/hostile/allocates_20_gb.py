"""attention_scores asks for a 20 GB array.

file: scores.py
"""

import numpy as np


def attention_scores(q, k):
    return np.ones((50_000, 50_000))
