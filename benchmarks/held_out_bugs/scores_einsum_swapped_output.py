"""einsum with the output indices the wrong way round: (L_k, L_q).

file: scores.py
breaks: attention_scores
"""

import numpy as np


def attention_scores(q, k):
    return np.einsum("...qd,...kd->...kq", q, k) / np.sqrt(q.shape[-1])
