"""Lets the window reach one key too far back (j ≥ i − window).

file: masks.py
breaks: sink_window_mask
"""

import numpy as np


def sink_window_mask(n, n_sinks, window):
    i = np.arange(n)[:, None]
    j = np.arange(n)[None, :]
    sinks = j < n_sinks
    recent = (i - j) <= window
    return (j <= i) & (sinks | recent)
