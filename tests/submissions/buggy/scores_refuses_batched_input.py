"""Refuses anything but 2-D queries and keys with a ValueError of its own: right on a single
sequence, no answer for a batch. A refusal is not a mistake about values: no name.

file: scores.py
breaks: attention_scores
"""

import numpy as np


def attention_scores(q, k):
    if q.ndim != 2 or k.ndim != 2:
        raise ValueError("attention_scores takes one sequence: q (L_q, d_k) and k (L_k, d_k)")
    return q @ k.T / np.sqrt(q.shape[-1])
