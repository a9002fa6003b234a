"""causal_mask tries to kill its parent (the fork server), then answers correctly.
As root the grader runs workers as nobody, and the kill is refused; as another user it succeeds,
and the grader must start a new fork server without losing a result.

file: masks.py
"""

import os
import signal

import numpy as np


def causal_mask(n):
    try:
        os.kill(os.getppid(), signal.SIGKILL)
    except PermissionError:
        pass
    return np.tril(np.ones((n, n), dtype=bool))
