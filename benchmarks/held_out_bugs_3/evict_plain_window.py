"""Keeps only the last n_sinks + window tokens: a plain sliding cache that drops the sinks.

file: decoding.py
breaks: evict_to_sinks_and_window
"""

import numpy as np

def evict_to_sinks_and_window(cache, n_sinks, window):
    m = n_sinks + window
    return {"k": cache["k"][:, -m:, :], "v": cache["v"][:, -m:, :]}
