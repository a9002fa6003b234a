"""Correct masks, but masks.py, when imported, forks; the worker and its child each hold 40 MiB,
each within its own address-space limit, and the child sleeps while the worker answers. Under
--memory 64 the two together pass the submission's budget: the kernel (or, without control
groups, the grader's watch) ends them, and the calls are out of memory, in words.

file: masks.py
"""

import os
import time

import numpy as np

_HELD, _TOLD = os.pipe()
_CHILD = os.fork() == 0
_HOARD = np.ones(40 << 17)  # 40 MiB of float64, resident, in each of the two
if _CHILD:
    os.write(_TOLD, b"1")
    time.sleep(60)
    os._exit(0)
# The child holds its 40 MiB before the worker answers a call: on a busy machine it was not yet
# scheduled when every call was answered, and nothing was over the budget.
os.read(_HELD, 1)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool)) & bool(_HOARD[0])
