"""attention_scores dereferences a null pointer.

file: scores.py
"""

import ctypes


def attention_scores(q, k):
    return ctypes.string_at(0)
