"""q through w_k and k through w_q.

file: scores.py
breaks: additive_scores
"""

import numpy as np

def additive_scores(q, k, w_q, w_k, v):
    return np.tanh((q @ w_k)[..., :, None, :] + (k @ w_q)[..., None, :, :]) @ v
