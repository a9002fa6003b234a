"""Keeps j > t - window: the window holds window - 1 tokens.

file: decoding.py
breaks: evict_to_sinks_and_window
"""

import numpy as np

def evict_to_sinks_and_window(cache, n_sinks, window):
    t = cache["k"].shape[-2]
    j = np.arange(t)
    keep = (j < n_sinks) | (j > t - window)
    return {"k": cache["k"][..., keep, :], "v": cache["v"][..., keep, :]}
