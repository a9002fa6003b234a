"""k.T for the transpose.

file: scores.py
breaks: attention_scores
"""

import numpy as np


def attention_scores(q, k):
    return np.dot(q, k.T) / np.sqrt(q.shape[-1])
