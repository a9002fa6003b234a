"""An honest, correct causal_mask that is slow: each call does 0.25 s of CPU work (not of the
clock), under a 1 s deadline. Graded alone, or beside an honest classmate, it earns every point;
beside a classmate that burns the CPU it once lost them ("did not return within 1 s"). Its score
must not depend on who is graded beside it.

file: masks.py
"""

import time

import numpy as np


def causal_mask(n):
    finish = time.process_time() + 0.25
    while time.process_time() < finish:  # slow but honest work: a fixed amount of computing
        pass
    return np.tril(np.ones((n, n), dtype=bool))
