"""Correct masks, but masks.py holds 48 MiB (every page touched) as soon as it is imported. Each
function of the file is served by a worker of its own, each worker imports the file, and each
stayed alive for the submission: under --memory 64, its five live workers held 240 MiB, and a
whole submission written so (21 workers) 1284 MiB, with nothing bounding their sum. The budget is
the submission's, all its processes together.

file: masks.py
"""

import numpy as np

_HOARD = np.ones(48 << 17)  # 48 MiB of float64, resident


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool)) & bool(_HOARD[0])
