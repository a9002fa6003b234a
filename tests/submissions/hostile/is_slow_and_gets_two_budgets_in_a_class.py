"""An honest, correct softmax that takes 0.45 s per call (well under the 2 s deadline): its 140
hidden calls take 63 s, past the submission's 60 s budget. Alone, the last softmax test and every
test after it are "not run: the submission used up its 60 s". In a class, the fast path has a
budget of its own: it spends 60 s on softmax, gives up, and the live run starts with a whole new
60 s for what is left, so the submission gets about 120 s and every point.

file: softmax.py
"""

import time


def softmax(x, axis=-1):
    finish = time.perf_counter() + 0.45
    while time.perf_counter() < finish:  # slow but honest work
        pass
    shifted = x - np.max(x, axis=axis, keepdims=True)
    e = np.exp(shifted)
    return e / np.sum(e, axis=axis, keepdims=True)
