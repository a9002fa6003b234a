"""Keeps the first n_sinks + window tokens: the oldest, not the most recent.

file: decoding.py
breaks: evict_to_sinks_and_window
"""


def evict_to_sinks_and_window(cache, n_sinks, window):
    keep = n_sinks + window
    return {"k": cache["k"][:, :keep].copy(), "v": cache["v"][:, :keep].copy()}
