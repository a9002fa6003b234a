"""softmax answers right or wrong by the stack it is called from: every frame above it (function,
file and line) and how many calls its process has served. On a grader whose class path runs the
student's code in another kind of process (a watching worker), it scored 12/12 in a class and
0/12 alone. A class must grade it exactly as alone, in every sandbox mode.

file: softmax.py
"""

import os
import sys
import zlib

import numpy as np

_served = [0]


def _seen():
    frame, seen = sys._getframe(2), []
    while frame is not None:
        code = frame.f_code
        seen.append((code.co_name, os.path.basename(code.co_filename), frame.f_lineno))
        frame = frame.f_back
    return seen


def softmax(x, axis=-1):
    _served[0] += 1
    shifted = np.exp(x - np.max(x, axis=axis, keepdims=True))
    right = shifted / np.sum(shifted, axis=axis, keepdims=True)
    if zlib.crc32(repr((_seen(), _served[0] % 5)).encode()) % 3 == 0:
        return right * 1.5
    return right
