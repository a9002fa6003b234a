"""Averages query 0's row (weights[..., 0, :]) instead of key 0's column.

file: heads.py
breaks: sink_score
"""

import numpy as np

def sink_score(weights):
    return weights[..., 0, :].mean(axis=-1)
