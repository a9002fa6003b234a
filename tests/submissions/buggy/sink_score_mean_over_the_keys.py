"""Sums key 0's column and divides by the number of keys.

file: heads.py
breaks: sink_score
"""

import numpy as np

def sink_score(weights):
    column = weights[..., :, 0]
    return column.sum(axis=-1) / weights.shape[-1]
