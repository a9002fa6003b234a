"""Concatenates the sinks and the window: a short cache keeps the tokens they share twice.

file: decoding.py
breaks: evict_to_sinks_and_window
"""

import numpy as np


def evict_to_sinks_and_window(cache, n_sinks, window):
    new = {}
    for name in ("k", "v"):
        new[name] = np.concatenate([cache[name][:, :n_sinks], cache[name][:, -window:]], axis=1)
    return new
