"""causal_mask kills its parent (the fork server), then answers correctly.

file: masks.py
"""

import os
import signal

import numpy as np


def causal_mask(n):
    os.kill(os.getppid(), signal.SIGKILL)
    return np.tril(np.ones((n, n), dtype=bool))
