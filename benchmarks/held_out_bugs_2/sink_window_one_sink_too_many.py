"""j <= n_sinks: one sink column too many.

file: masks.py
breaks: sink_window_mask
"""

import numpy as np


def sink_window_mask(n, n_sinks, window):
    i = np.arange(n)[:, None]
    j = np.arange(n)[None, :]
    return (j <= i) & ((j <= n_sinks) | (j > i - window))
