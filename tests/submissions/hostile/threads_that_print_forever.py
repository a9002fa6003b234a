"""softmax starts a thread that prints forever, then answers correctly. Python cannot stop a
thread: each one took the CPU from every later call, and the submission's program ran out its
whole 60 s budget.

file: softmax.py
"""

import sys
import threading

import numpy as np


def _chatter():
    while True:
        sys.stdout.write("x" * 1000 + "\n")


def softmax(x, axis=-1):
    threading.Thread(target=_chatter, daemon=True).start()
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)
