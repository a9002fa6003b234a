"""Counts the window back from t instead of from the newest token: one token short.

file: decoding.py
breaks: evict_to_sinks_and_window
"""

import numpy as np


def evict_to_sinks_and_window(cache, n_sinks, window):
    t = cache["k"].shape[1]
    j = np.arange(t)
    keep = (j < n_sinks) | (j > t - window)
    return {"k": cache["k"][:, keep], "v": cache["v"][:, keep]}
