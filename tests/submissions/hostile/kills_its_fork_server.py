"""causal_mask tries to kill the processes that serve it (its parent when it can see one, and the
first process of its pid namespace), then answers correctly. As root the grader runs workers as
its private user, and the kills are refused; as another user they succeed, and the grader must
start a new fork server without losing a result.

file: masks.py
"""

import os
import signal

import numpy as np


def causal_mask(n):
    for target in {os.getppid(), 1} - {0, os.getpid()}:
        try:
            os.kill(target, signal.SIGKILL)
        except (PermissionError, ProcessLookupError):
            pass
    return np.tril(np.ones((n, n), dtype=bool))
