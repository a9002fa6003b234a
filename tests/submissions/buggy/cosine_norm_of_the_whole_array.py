"""np.linalg.norm(q) without an axis.

file: scores.py
breaks: cosine_scores
"""

import numpy as np

def cosine_scores(q, k, temperature):
    qn = q / max(np.linalg.norm(q), 1e-8)
    kn = k / max(np.linalg.norm(k), 1e-8)
    return qn @ np.swapaxes(kn, -1, -2) / temperature
