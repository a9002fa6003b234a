"""Concatenates the first n_sinks and the last window tokens: a short cache keeps tokens twice.

file: decoding.py
breaks: evict_to_sinks_and_window
"""

import numpy as np

def evict_to_sinks_and_window(cache, n_sinks, window):
    k, v = cache["k"], cache["v"]
    return {
        "k": np.concatenate([k[:, :n_sinks], k[:, -window:]], axis=1),
        "v": np.concatenate([v[:, :n_sinks], v[:, -window:]], axis=1),
    }
