"""Keeps only the last window tokens: a plain sliding window, the sinks dropped.

file: decoding.py
breaks: evict_to_sinks_and_window
"""


def evict_to_sinks_and_window(cache, n_sinks, window):
    return {"k": cache["k"][:, -window:], "v": cache["v"][:, -window:]}
