"""Opens the sink columns for every query, also the queries that come before the sinks.

file: masks.py
breaks: sink_window_mask
"""

import numpy as np


def sink_window_mask(n, n_sinks, window):
    mask = sliding_window_mask(n, window)
    mask[:, :n_sinks] = True
    return mask
