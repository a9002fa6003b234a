"""One-hot weights from scores == max: a tie marks every tied key.

file: heads.py
breaks: hard_attention
"""

import numpy as np


def hard_attention(q, k, v):
    scores = attention_scores(q, k)
    weights = (scores == scores.max(axis=-1, keepdims=True)).astype(float)
    return weights @ v, weights
