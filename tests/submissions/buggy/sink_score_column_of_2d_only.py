"""Reads key 0 as weights[:, 0], which is a row once a heads axis comes first.

file: heads.py
breaks: sink_score
"""

import numpy as np


def sink_score(weights):
    return np.mean(weights[:, 0], axis=-1)
