"""Counts the sinks as part of the window: only window − n_sinks recent keys are left.

file: masks.py
breaks: sink_window_mask
"""

import numpy as np


def sink_window_mask(n, n_sinks, window):
    recent = window - n_sinks
    mask = np.zeros((n, n), dtype=bool)
    for i in range(n):
        for j in range(i + 1):
            mask[i, j] = j < n_sinks or i - j < recent
    return mask
