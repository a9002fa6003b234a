"""An honest, correct causal_mask that is slow: each call takes 0.6 s of CPU, under a 1 s
deadline. Alone it earns every point. In a class the watching worker sends a message's results
together: the grader, waiting for the first result, must not count the second call's time
against the first (found by an attacker: 1.2 s calls under a 2 s deadline lost every point).

file: masks.py
"""

import time


def causal_mask(n):
    finish = time.perf_counter() + 0.6
    while time.perf_counter() < finish:  # slow but honest work
        pass
    return np.tril(np.ones((n, n), dtype=bool))
