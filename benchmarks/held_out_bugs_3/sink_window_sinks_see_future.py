"""ORs in the sink columns without keeping j ≤ i for them: early queries see later sinks.

file: masks.py
breaks: sink_window_mask
"""

import numpy as np

def sink_window_mask(n, n_sinks, window):
    i = np.arange(n)[:, None]
    j = np.arange(n)[None, :]
    return ((j <= i) & (j > i - window)) | (j < n_sinks)
