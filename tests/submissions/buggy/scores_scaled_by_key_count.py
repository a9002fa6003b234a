"""Takes d_k from the keys' first axis, which is the number of keys.

file: scores.py
breaks: attention_scores
"""

import numpy as np


def attention_scores(q, k):
    d_k = k.shape[-2]
    return q @ np.swapaxes(k, -1, -2) / np.sqrt(d_k)
