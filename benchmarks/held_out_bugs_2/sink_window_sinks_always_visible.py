"""ORs the sink columns onto the sliding window: the first queries see sinks in their future.

file: masks.py
breaks: sink_window_mask
"""

import numpy as np


def sink_window_mask(n, n_sinks, window):
    window_part = sliding_window_mask(n, window)
    sinks = np.zeros((n, n), dtype=bool)
    sinks[:, :n_sinks] = True
    return window_part | sinks
